package runtime

import (
	"context"
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
