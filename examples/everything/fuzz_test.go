package everything

import (
	"bytes"
	"encoding/json"
	"testing"

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
		if err != nil || !json.Valid(args) || repeatsName(args) {
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

// repeatsName reports whether an object in the JSON document data repeats a
// member name.
func repeatsName(data []byte) bool {
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.keys != nil && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string)
			if top.keys[key] {
				return true
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		if top != nil && top.keys != nil {
			top.wantKey = true // this token is a member's value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
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
