package everything

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// inputTools are the tools of this package that take arguments: their
// generated input schema and a fresh value of their In type.
var inputTools = []struct {
	name   string
	schema json.RawMessage
	in     func() any
}{
	{"test_sampling", mcpSamplingInputSchema, func() any { return new(SamplingIn) }},
	{"test_elicitation", mcpElicitationInputSchema, func() any { return new(ElicitationIn) }},
}

// FuzzToolArguments checks, for every tool with arguments, that a candidate
// document the input schema accepts decodes strictly (unknown fields
// disallowed) into the tool's In type, as the generated adapter decodes it.
// Documents repeating a member name are refused by the runtime before
// validation, so they never reach decoding.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{`{"prompt":"hi"}`, `{"message":"m"}`, `{"prompt":"a","message":"b"}`,
		`{"prompt":null}`, `{"prompt":1}`, `{}`, `{"prompt":"\u00e9","x":true}`} {
		f.Add([]byte(seed))
	}
	schemas := make([]*jsonschema.Schema, len(inputTools))
	for i, tool := range inputTools {
		schemas[i] = compileSchema(f, tool.name, tool.schema)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
		if err != nil || !json.Valid(args) || jsontest.RepeatsName(args) {
			return
		}
		for i, tool := range inputTools {
			if schemas[i].Validate(doc) != nil {
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(tool.in()); err != nil {
				t.Fatalf("%s: the input schema accepts %s but strict decoding fails: %v", tool.name, args, err)
			}
		}
	})
}

// compileSchema compiles a 2020-12 schema document.
func compileSchema(tb testing.TB, name string, raw []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(name+".json", doc); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Compile(name + ".json")
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return s
}
