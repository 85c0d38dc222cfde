package runtime

import (
	"bufio"
	"context"
	"io"
	"testing"
)

// benchCall runs one request line through HandleRaw per iteration.
func benchCall(b *testing.B, line string, legacy bool) {
	s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
	s.AddTool(echoTool())
	s.AddTool(addTool())
	var sess *Session
	if legacy {
		sess = s.NewSession(nil)
		s.HandleRaw(b.Context(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`), sess, nil)
	}
	raw := []byte(line)
	if r := s.HandleRaw(b.Context(), raw, sess, nil); r.Code != 0 {
		b.Fatalf("reply %s", r.Body)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.HandleRaw(b.Context(), raw, sess, nil)
	}
}

func BenchmarkCallModern(b *testing.B) {
	benchCall(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}}}`, false)
}

func BenchmarkCallLegacy(b *testing.B) {
	benchCall(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, true)
}

func BenchmarkListModern(b *testing.B) {
	benchCall(b, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, false)
}

// BenchmarkStdioCall measures one tools/call through the stdio transport (in-memory
// pipes, one request in flight): framing, dispatch, validation and the handler.
func BenchmarkStdioCall(b *testing.B) {
	s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
	s.AddTool(addTool())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	out := bufio.NewReader(outR)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	call := func() {
		if _, err := inW.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := out.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	call()
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
	b.StopTimer()
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
