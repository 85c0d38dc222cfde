package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/jsontest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// modernMeta is the _meta of a 2026-07-28 request.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"fuzz","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// integerAsFloat matches what JSON Schema calls an integer but encoding/json
// will not decode into an int (1.0, 1e2): the one gap the package doc of
// gen/schema lists for this tool's types.
var integerAsFloat = regexp.MustCompile(`cannot unmarshal number [^ ]*[.eE]`)

// FuzzSearchNotesArguments sends candidate argument documents to the
// generated search_notes tool through the runtime and checks three answers
// against each other: the published input schema validated independently
// with santhosh-tekuri/jsonschema/v6, the runtime's own validation (it has a
// fast path of its own), and strict decoding into SearchInput. A document
// the schema accepts must reach the handler and decode; one it rejects must
// be refused as invalid arguments before decoding.
func FuzzSearchNotesArguments(f *testing.F) {
	for _, seed := range []string{`{"keyword":"mcp"}`, `{"keyword":"mcp","limit":5}`, `{"keyword":""}`,
		`{"keyword":"a","limit":0}`, `{"keyword":"a","limit":101}`, `{"keyword":"a","limit":1.0}`,
		`{"keyword":"a","extra":1}`, `{"limit":3}`, `{"keyword":null}`, `{"keyword":"\u00e9t\u00e9","limit":100}`,
		`{}`, `[]`, `null`, `"a"`, `{"keyword":"a","limit":"5"}`, `{"keyword":"0","limit":"","limit":1}`} {
		f.Add([]byte(seed))
	}
	schema := compile(f, mcpSearchNotesInputSchema)
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "fuzz"}, nil)
	RegisterMCP(s)
	f.Fuzz(func(t *testing.T, args []byte) {
		if problem := agreement(t, schema, s, args); problem != "" {
			t.Fatal(problem)
		}
	})
}

// agreement returns what goes wrong when args is sent to search_notes on s
// and checked against schema, or "" when the answers agree.
func agreement(t testing.TB, schema *jsonschema.Schema, s *mcpruntime.Server, args []byte) string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil || !json.Valid(args) {
		return "" // not one JSON value: the request itself would be malformed
	}
	accepted := schema.Validate(doc) == nil && !jsontest.RepeatsName(args)
	text, isError := call(t, s, args)
	invalid := isError && (strings.HasPrefix(text, "invalid arguments") || strings.HasPrefix(text, `rpc error {"code":-32602`))
	switch {
	case accepted && invalid:
		return fmt.Sprintf("the schema accepts %s but the runtime refused it: %s", args, text)
	case !accepted && !invalid:
		return fmt.Sprintf("the schema rejects %s but the runtime let it through: %s", args, text)
	case accepted && strings.HasPrefix(text, "decode arguments") && !integerAsFloat.MatchString(text):
		return fmt.Sprintf("the schema accepts %s but it does not decode: %s", args, text)
	}
	if accepted {
		var in SearchInput
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil && !integerAsFloat.MatchString(err.Error()) {
			return fmt.Sprintf("the schema accepts %s but strict decoding fails: %v", args, err)
		}
	}
	return ""
}

// TestAgreementCatchesWrongSchema shows the fuzz property failing when the
// schema it checks against lies: a wider limit, an open object.
func TestAgreementCatchesWrongSchema(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "test"}, nil)
	RegisterMCP(s)
	tests := []struct{ from, to, args string }{
		{`"maximum": 100`, `"maximum": 1000`, `{"keyword":"a","limit":500}`},
		{`"additionalProperties": false`, `"additionalProperties": true`, `{"keyword":"a","other":1}`},
	}
	for _, tt := range tests {
		wrong := strings.Replace(string(mcpSearchNotesInputSchema), tt.from, tt.to, 1)
		if wrong == string(mcpSearchNotesInputSchema) {
			t.Fatalf("%s not found in the schema", tt.from)
		}
		if agreement(t, compile(t, []byte(wrong)), s, []byte(tt.args)) == "" {
			t.Errorf("schema with %s: %s passed the agreement check", tt.to, tt.args)
		}
		if problem := agreement(t, compile(t, mcpSearchNotesInputSchema), s, []byte(tt.args)); problem != "" {
			t.Errorf("the real schema: %s", problem)
		}
	}
}

// compile compiles a 2020-12 schema document.
func compile(f testing.TB, raw []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		f.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("input.json", doc); err != nil {
		f.Fatal(err)
	}
	s, err := c.Compile("input.json")
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// call sends tools/call with args and returns the first text and isError.
func call(t testing.TB, s *mcpruntime.Server, args []byte) (string, bool) {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_notes","arguments":` + string(args) + `,"_meta":` + modernMeta + `}}`
	rep := s.HandleRaw(context.Background(), []byte(req), nil, nil)
	var resp struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(rep.Body, &resp); err != nil {
		t.Fatalf("reply %s: %v", rep.Body, err)
	}
	if resp.Error != nil {
		return "rpc error " + string(resp.Error), true
	}
	text := ""
	if len(resp.Result.Content) > 0 {
		text = resp.Result.Content[0].Text
	}
	return text, resp.Result.IsError
}
