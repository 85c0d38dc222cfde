package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkStart: what a generated main does before its first reply, in
// process: NewServer, two tools registered, Main's command line, and a stdio
// connection that answers one tools/list and ends (the harness's cold start
// without exec and the program's loading).
func BenchmarkStart(b *testing.B) {
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	b.ReportAllocs()
	for b.Loop() {
		s := NewServer(Implementation{Name: "bench", Version: "dev"}, nil)
		s.AddTool(echoTool())
		s.AddTool(addTool())
		var out strings.Builder
		if code := s.main(context.Background(), []string{"-stdio"}, strings.NewReader(in), &out, io.Discard); code != 0 || !strings.Contains(out.String(), `"add"`) {
			b.Fatalf("exit %d, %s", code, out.String())
		}
	}
}

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
