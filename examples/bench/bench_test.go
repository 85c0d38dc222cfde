package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/jsontest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The requests of the benchmark harness (mcpload) in each era.
const (
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"0.1.0"}}`
	initLine   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpload","version":"0.1.0"}}}`
	addArgs    = `{"a":2,"b":3}`
	searchArgs = `{"keyword":"review","limit":10}`
)

// callLine is a tools/call request line as mcpload sends it.
func callLine(modern bool, tool, args string) string {
	p := `{"arguments":` + args + `,"name":"` + tool + `"`
	if modern {
		p += "," + modernMeta
	}
	return `{"id":1,"jsonrpc":"2.0","method":"tools/call","params":` + p + `}}`
}

func TestCorpus(t *testing.T) {
	c := corpus()
	if len(c.lines) != 200 {
		t.Fatalf("%d lines, want 200", len(c.lines))
	}
	for _, tt := range []struct {
		i    int
		want Hit
	}{
		{0, Hit{"notes/2025-01.md", 1, "Deploy: API gateway blocked by Alice (#100)"}},
		{1, Hit{"notes/2025-01.md", 2, "Review: CI runner needs input from Farah (#101)"}},
		{27, Hit{"notes/2025-02.md", 8, "Hiring: data pipeline needs input from Chen (#127)"}},
		{199, Hit{"notes/2025-10.md", 20, "Roadmap: billing service needs input from Bob (#299)"}},
	} {
		if got := c.lines[tt.i]; got != tt.want {
			t.Errorf("line %d = %+v, want %+v", tt.i, got, tt.want)
		}
	}
	// The digest of the harness's corpus (../shared/bench/internal/notes) printed
	// as "file<TAB>line<TAB>text<LF>" per line: the servers search the same text.
	h := sha256.New()
	for _, l := range c.lines {
		fmt.Fprintf(h, "%s\t%d\t%s\n", l.File, l.Line, l.Text)
	}
	if got, want := hex.EncodeToString(h.Sum(nil)), "cc1cd0e903d504774cbc3c35019fccc93411ffcd50c41ac6d65269ec3729367f"; got != want {
		t.Errorf("corpus digest %s, want %s (the harness's corpus)", got, want)
	}
}

func TestSearchNotes(t *testing.T) {
	for _, tt := range []struct {
		in          SearchInput
		hits, total int
	}{
		{SearchInput{"review", 10}, 10, 20},
		{SearchInput{"REVIEW", 50}, 20, 20},
		{SearchInput{"alice", 1}, 1, 29},
		{SearchInput{"(#299)", 10}, 1, 1},
		{SearchInput{"nothing like this", 10}, 0, 0},
	} {
		out, _ := SearchNotes(context.Background(), tt.in)
		if len(out.Hits) != tt.hits || out.Total != tt.total || out.Hits == nil {
			t.Errorf("%+v: %d hits, total %d; want %d, %d", tt.in, len(out.Hits), out.Total, tt.hits, tt.total)
		}
	}
}

// newServer returns the generated server as bench-server builds it, with a
// silent logger.
func newServer(tb testing.TB) *mcpruntime.Server {
	tb.Helper()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "bench", Version: "test"},
		&mcpruntime.Options{Logger: discard()})
	RegisterMCP(s)
	return s
}

// result is the part of a tools/call response the tests read.
type result struct {
	Result *struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
		ResultType        string          `json:"resultType"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// roundTrip sends one line to s (in a legacy session when sess is not nil).
func roundTrip(t *testing.T, s *mcpruntime.Server, sess *mcpruntime.Session, line string) result {
	t.Helper()
	rep := s.HandleRaw(context.Background(), []byte(line), sess, nil)
	var r result
	if err := json.Unmarshal(rep.Body, &r); err != nil {
		t.Fatalf("%s: reply %q: %v", line, rep.Body, err)
	}
	if r.Error != nil || r.Result == nil {
		t.Fatalf("%s: error reply %s", line, rep.Body)
	}
	return r
}

func TestCallsBothEras(t *testing.T) {
	s := newServer(t)
	sess := s.NewSession(nil)
	roundTrip(t, s, sess, initLine)
	for _, modern := range []bool{true, false} {
		for _, tt := range []struct{ tool, args, want string }{
			{"add", addArgs, `{"sum":5}`},
			{"add", `{"a":-9223372036854775808,"b":9223372036854775807}`, `{"sum":-1}`},
			{"search_notes", `{"keyword":"(#101)"}`, `{"hits":[{"file":"notes/2025-01.md","line":2,"text":"Review: CI runner needs input from Farah (#101)"}],"total":1}`},
			{"search_notes", searchArgs, ""},
		} {
			var ss *mcpruntime.Session
			if !modern {
				ss = sess
			}
			r := roundTrip(t, s, ss, callLine(modern, tt.tool, tt.args))
			if r.Result.IsError {
				t.Errorf("modern=%v %s %s: isError %+v", modern, tt.tool, tt.args, r.Result.Content)
				continue
			}
			if tt.want != "" && string(r.Result.StructuredContent) != tt.want {
				t.Errorf("modern=%v %s %s: structuredContent %s, want %s", modern, tt.tool, tt.args, r.Result.StructuredContent, tt.want)
			}
			if len(r.Result.Content) != 1 || r.Result.Content[0].Text != string(r.Result.StructuredContent) {
				t.Errorf("modern=%v: content %+v does not mirror the structured result", modern, r.Result.Content)
			}
			if (r.Result.ResultType == "complete") != modern {
				t.Errorf("modern=%v: resultType %q", modern, r.Result.ResultType)
			}
		}
	}
}

// TestInvalidArguments checks that every argument document the published
// schema rejects is refused before the handler runs, and that every one it
// accepts is served: santhosh-tekuri/jsonschema is the oracle, except that the
// runtime refuses an object repeating a member name, which the oracle reads as its
// last occurrence. The one gap is the generator's documented one: an integral
// number written as a fraction or with an exponent (1e3, 10.0) is an integer to
// JSON Schema but not to encoding/json, so it is refused when decoding instead.
func TestInvalidArguments(t *testing.T) {
	s := newServer(t)
	schemas := map[string]*jsonschema.Schema{
		"add":          compile(t, mcpAddInputSchema),
		"search_notes": compile(t, mcpSearchNotesInputSchema),
	}
	cases := map[string][]string{
		"add": {addArgs, `{}`, `{"a":1}`, `{"a":1,"b":"2"}`, `{"a":1,"b":2,"c":3}`, `{"a":1.5,"b":2}`,
			`{"a":1e3,"b":2}`, `{"a":null,"b":2}`, `{"a":9223372036854775808,"b":0}`, `{"b":2,"a":1}`,
			`{"a":1,"b":2,"a":3}`, `{"a" : 1 , "b" : -0}`, `{"\u0061":1,"b":2}`, `[]`, `"x"`},
		"search_notes": {searchArgs, `{"keyword":"x"}`, `{"keyword":""}`, `{"keyword":"x","limit":0}`,
			`{"keyword":"x","limit":50}`, `{"keyword":"x","limit":51}`, `{"keyword":"x","limit":"5"}`,
			`{"limit":5}`, `{"keyword":"x","extra":true}`, `{"keyword":"\u00e9"}`, `{"keyword":"\"q\""}`,
			`{"keyword":null}`, `{"keyword":"x","limit":10.0}`, `{"keyword":"x","limit":-1}`},
	}
	for tool, docs := range cases {
		for _, args := range docs {
			doc, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
			if err != nil {
				t.Fatal(err)
			}
			valid := schemas[tool].Validate(doc) == nil && !jsontest.RepeatsName([]byte(args))
			for _, modern := range []bool{true, false} {
				line := callLine(modern, tool, args)
				var sess *mcpruntime.Session
				if !modern {
					sess = s.NewSession(nil)
					roundTrip(t, s, sess, initLine)
				}
				rep := s.HandleRaw(context.Background(), []byte(line), sess, nil)
				var r result
				if err := json.Unmarshal(rep.Body, &r); err != nil {
					t.Fatal(err)
				}
				refused := r.Error != nil || r.Result.IsError
				if valid && refused && (strings.Contains(args, "e3") || strings.Contains(args, "10.0")) {
					if !strings.Contains(r.Result.Content[0].Text, "decode arguments") {
						t.Errorf("%s %s: reply %s, want a decode error", tool, args, rep.Body)
					}
					continue
				}
				if refused == valid {
					t.Errorf("%s %s (modern=%v): schema valid=%v, reply %s", tool, args, modern, valid, rep.Body)
				}
			}
		}
	}
}

// compile compiles a 2020-12 schema document.
func compile(t testing.TB, raw []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
