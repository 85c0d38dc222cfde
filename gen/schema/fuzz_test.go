package schema

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// FuzzInputAgreement checks, for the round-trip type RTAll, that every
// document the runtime accepts under the generated input schema decodes
// strictly, apart from the gaps the package doc lists (see knownGap). The
// oracle is the runtime's validator itself, as a generated server runs it: it
// asserts format date-time as encoding/json decodes time.Time, and refuses
// objects that repeat a member name (encoding/json would decode each
// occurrence) and numbers beyond float64.
func FuzzInputAgreement(f *testing.F) {
	p := loadRT(f)
	s, _, diags := p.b.Input(p.lookup(f, "RTAll"), 0)
	if len(diags) > 0 {
		f.Fatalf("diagnostics: %v", diags)
	}
	js, err := Marshal(s)
	if err != nil {
		f.Fatal(err)
	}
	srv := runtimeOracle(f, js)
	g := &docGen{r: rand.New(rand.NewPCG(9, 9)), defs: s.Definitions}
	for range 20 {
		data, err := json.Marshal(g.doc(s, 0))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"I8": 1.0}`))
	rt := rtRoots["RTAll"]
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || !srv.accepts(t, data) {
			return
		}
		if err := strictDecode(data, rt); err != nil && !knownGap(err) {
			t.Fatalf("the runtime accepts %s under the input schema, but decoding fails: %v", data, err)
		}
	})
}

// A runtimeServer validates tool arguments with the runtime, as generated code
// registers a tool.
type runtimeServer struct{ s *mcpruntime.Server }

// runtimeOracle registers a tool whose input schema is schema.
func runtimeOracle(tb testing.TB, schema []byte) runtimeServer {
	if err := mcpruntime.CheckSchema(schema); err != nil {
		tb.Fatalf("the input schema is beyond the runtime's built-in validator: %v", err)
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "oracle", Version: "1"},
		&mcpruntime.Options{Logger: slog.New(slog.DiscardHandler)})
	s.AddTool(&mcpruntime.Tool{Name: "t", InputSchema: schema,
		Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("accepted")}}, nil
		}})
	return runtimeServer{s}
}

// accepts reports whether the runtime lets data through to the handler as the
// arguments of a tools/call.
func (o runtimeServer) accepts(tb testing.TB, data []byte) bool {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + string(data) +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"}}}}`
	reply := o.s.HandleRaw(context.Background(), []byte(req), nil, nil)
	var resp struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(reply.Body, &resp); err != nil {
		tb.Fatalf("reply %s: %v", reply.Body, err)
	}
	c := resp.Result.Content
	return !resp.Result.IsError && len(c) == 1 && c[0].Text == "accepted"
}

func TestRuntimeOracle(t *testing.T) {
	p := loadRT(t)
	s, _, _ := p.b.Input(p.lookup(t, "RTAll"), 0)
	js, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	o := runtimeOracle(t, js)
	g := &docGen{r: rand.New(rand.NewPCG(1, 2)), defs: s.Definitions}
	var accepted []byte
	for range 50 {
		data, err := json.Marshal(g.doc(s, 0))
		if err != nil {
			t.Fatal(err)
		}
		if o.accepts(t, data) {
			accepted = data
		}
	}
	if accepted == nil {
		t.Fatalf("the runtime accepted none of 50 generated documents")
	}
	with := func(field, value string) []byte {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(accepted, &m); err != nil {
			t.Fatal(err)
		}
		m[field] = json.RawMessage(value)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, doc := range [][]byte{
		with("T", `"0000-01-01T00:00:+0Z"`), // the fuzz finding: time.Time refuses it
		with("N", `1e400`),                  // beyond float64
		append(append([]byte{}, accepted[:len(accepted)-1]...), `,"I8":1}`...), // I8 twice
	} {
		if o.accepts(t, doc) {
			t.Errorf("the runtime accepts %s", doc)
		}
	}
	if !o.accepts(t, with("T", `"2006-01-02T15:04:05Z"`)) {
		t.Errorf("the runtime refuses a valid date-time")
	}
}

var (
	gapNumber = regexp.MustCompile(`^number (-?[0-9]*[.eE].*|-?[0-9]{19,})$`)
	gapQuoted = regexp.MustCompile(`invalid use of ,string struct tag, trying to unmarshal "-?[0-9]{19,}" into`)
)

// knownGap reports decoding errors that JSON Schema cannot prevent: an
// integer written with a fraction or exponent (1.0, 1e2), a float64 beyond
// its range (1e400), and a 64-bit integer beyond its range with no more
// digits than the bounds (as a map key or with ",string").
func knownGap(err error) bool {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return gapNumber.MatchString(te.Value)
	}
	return gapQuoted.MatchString(err.Error())
}
