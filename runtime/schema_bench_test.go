package runtime

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// benchAddInput is the input schema of examples/bench's add.
const benchAddInput = `{"type":"object","properties":{"a":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},
	"b":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}},"required":["a","b"],"additionalProperties":false}`

// benchSearchInput is the input schema of examples/bench's search_notes.
const benchSearchInput = `{"type":"object","properties":{"keyword":{"type":"string","minLength":1},
	"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},"required":["keyword"],"additionalProperties":false}`

// benchNotesSchema is the output schema of search_notes.
const benchNotesSchema = `{"type":"object","properties":{"matches":{"anyOf":[{"type":"array","items":{"type":"object",
		"properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},
		"text":{"type":"string"}},"required":["file","line","text"],"additionalProperties":false}},{"type":"null"}]},
		"truncated":{"type":"boolean"}},"required":["matches","truncated"],"additionalProperties":false}`

// benchNotesOutput is a structured output of the shape search_notes returns.
const benchNotesOutput = `{"matches":[{"file":"notes/2025-01.md","line":2,"text":"Review: CI runner needs input from Farah (#101)"},` +
	`{"file":"notes/2025-02.md","line":8,"text":"Hiring: data pipeline needs input from Chen (#127)"}],"truncated":false}`

// BenchmarkCheckArgs measures argument validation alone: the valid calls of the
// benchmark tools, an escaped string, and an invalid call (which builds the message).
func BenchmarkCheckArgs(b *testing.B) {
	add := addTool()
	add.InputSchema = json.RawMessage(benchAddInput)
	search := simpleTool("search", nil)
	search.Handler = echoTool().Handler
	search.InputSchema = json.RawMessage(benchSearchInput)
	for _, tc := range []struct {
		name string
		tool *Tool
		args string
	}{
		{"add", add, `{"a":2,"b":3}`},
		{"search_notes", search, `{"keyword":"review","limit":10}`},
		{"escaped", echoTool(), `{"text":"h\u00e9llo w\u00f6rld","repeat":2}`},
		{"invalid", echoTool(), `{"txt":"a","repeat":9}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e, err := newToolEntry(tc.tool)
			if err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(tc.args)
			if _, err := e.checkArgs(args); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = e.checkArgs(args)
			}
		})
	}
}

// BenchmarkCheckOutput measures structured output validation.
func BenchmarkCheckOutput(b *testing.B) {
	tool := echoTool()
	tool.OutputSchema = json.RawMessage(benchNotesSchema)
	e, err := newToolEntry(tool)
	if err != nil {
		b.Fatal(err)
	}
	sc := json.RawMessage(benchNotesOutput)
	if err := e.output.CheckOutput(sc, jsonwire.Valid(sc)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = e.output.CheckOutput(sc, jsonwire.Valid(sc))
	}
}
