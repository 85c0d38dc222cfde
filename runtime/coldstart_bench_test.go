package runtime

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkAddTool: registering 1,000 tools shaped like the catalog curve's
// (scripts/curves: an indented input schema with minLength and a range, an
// output schema), as generated code does (SchemasChecked: nothing checked,
// compiled or serialised until used) and as hand-written code does (every
// schema checked and compiled, the tool serialised).
func BenchmarkAddTool(b *testing.B) {
	const n = 1000
	in := json.RawMessage("{\n  \"description\": \"ToolIn selects records.\",\n  \"type\": \"object\",\n  \"properties\": {\n    \"query\": {\n      \"description\": \"Query is what to look for.\",\n      \"type\": \"string\",\n      \"minLength\": 1\n    },\n    \"limit\": {\n      \"description\": \"Limit caps the hits (1..100).\",\n      \"type\": \"integer\",\n      \"minimum\": 1,\n      \"maximum\": 100\n    }\n  },\n  \"required\": [\n    \"query\"\n  ],\n  \"additionalProperties\": false\n}")
	out := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\n    \"hits\": {\n      \"type\": \"integer\"\n    },\n    \"echo\": {\n      \"type\": \"string\"\n    }\n  },\n  \"required\": [\n    \"hits\",\n    \"echo\"\n  ],\n  \"additionalProperties\": false\n}")
	tools := make([]*Tool, n)
	for i := range tools {
		tools[i] = &Tool{Name: fmt.Sprintf("tool_%05d", i), Description: "Tool looks up records.",
			Annotations: &ToolAnnotations{ReadOnlyHint: true}, InputSchema: in, OutputSchema: out,
			Handler: echoTool().Handler}
	}
	for _, checked := range []bool{true, false} {
		b.Run(fmt.Sprintf("n=%d/generated=%v", n, checked), func(b *testing.B) {
			for _, t := range tools {
				t.SchemasChecked = checked
			}
			b.ReportAllocs()
			for b.Loop() {
				s := NewServer(Implementation{Name: "bench", Version: "dev"}, &Options{Logger: discardLogger()})
				for _, t := range tools {
					s.AddTool(t)
				}
			}
		})
	}
}
