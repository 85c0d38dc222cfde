package serve

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestMain checks that Main's runs leave no goroutine behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

// discardLogger is a logger that drops everything.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// BenchmarkStart: what a generated main does before its first reply, in
// process: NewServer, two tools registered, Main's command line, and a stdio
// connection that answers one tools/list and ends (the harness's cold start
// without exec and the program's loading).
func BenchmarkStart(b *testing.B) {
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)
	handler := func(_ context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
		var in struct{ Text string }
		if err := req.Decode(&in); err != nil {
			return nil, err
		}
		return mcpruntime.Structured(in)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "bench", Version: "dev"}, nil)
		for _, name := range []string{"echo", "add"} {
			s.AddTool(&mcpruntime.Tool{Name: name, Description: name, InputSchema: schema, Handler: handler})
		}
		var out strings.Builder
		if code := run(context.Background(), s, []string{"-stdio"}, strings.NewReader(in), &out, io.Discard); code != 0 || !strings.Contains(out.String(), `"add"`) {
			b.Fatalf("exit %d, %s", code, out.String())
		}
	}
}
