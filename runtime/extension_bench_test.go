package runtime

import (
	"context"
	"log/slog"
	"testing"
)

// BenchmarkExtensionHooks measures a 2026-07-28 tools/call through HandleRaw
// with no extension, then with one extension using each hook alone (a
// pass-through interceptor, an observer that adds a context value, a stage
// observer, an audit attribute without Options.Audit), then all of them:
// each hook's cost is its row minus "none".
func BenchmarkExtensionHooks(b *testing.B) {
	type key struct{}
	hooks := map[string]*Extension{
		"none": nil,
		"toolcall": {ToolCall: func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error) {
			return next(ctx, req)
		}},
		"observe": {Observe: func(ctx context.Context, _ *MessageInfo) (context.Context, func(Outcome)) {
			return context.WithValue(ctx, key{}, 1), func(Outcome) {}
		}},
		"stages":   {Stages: func(context.Context, Stage) func(error) { return func(error) {} }},
		"unusedID": {ID: "com.example/x"},
	}
	hooks["all"] = &Extension{ToolCall: hooks["toolcall"].ToolCall, Observe: hooks["observe"].Observe, Stages: hooks["stages"].Stages,
		AuditAttrs: func(context.Context) []slog.Attr { return nil }}
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	for _, name := range []string{"none", "unusedID", "toolcall", "observe", "stages", "all"} {
		b.Run(name, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
			s.AddTool(addTool())
			if x := hooks[name]; x != nil {
				if err := s.Use(x); err != nil {
					b.Fatal(err)
				}
			}
			if r := s.HandleRaw(b.Context(), line, nil, nil); r.Code != 0 {
				b.Fatalf("reply %s", r.Body)
			}
			b.ReportAllocs()
			cpu0 := processCPU() // the process's CPU time: steadier than wall time on a shared machine
			for b.Loop() {
				s.HandleRaw(b.Context(), line, nil, nil)
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
