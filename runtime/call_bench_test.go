package runtime

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The benchmarks here cover the hot path of a generated tool call end to end in
// both eras: frame read, parse, admission, argument validation, typed decode,
// handler, output check, encode and frame write. addTool has the shape mcpgen
// generates (typed Decode, Structured). examples/bench has the same benchmarks
// on the generated server of the cross-server comparison.

const (
	benchModernCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	benchLegacyCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
	benchInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`
)

// BenchmarkStdioCallBothEras sends one call at a time through ServeStdio over
// in-memory pipes.
func BenchmarkStdioCallBothEras(b *testing.B) {
	for _, era := range []string{"modern", "legacy"} {
		b.Run(era, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
			s.AddTool(addTool())
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
			out := bufio.NewReader(outR)
			send := func(line string) {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			line := benchModernCall
			if era == "legacy" {
				send(benchInitialize)
				if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
					b.Fatal(err)
				}
				line = benchLegacyCall
			}
			send(line)
			b.ReportAllocs()
			for b.Loop() {
				send(line)
			}
			b.StopTimer()
			inW.Close()
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkHTTPCallBothEras posts one call per iteration to the Streamable HTTP
// handler (no network: the handler is called directly with a recorder).
func BenchmarkHTTPCallBothEras(b *testing.B) {
	for _, era := range []string{"modern", "legacy"} {
		b.Run(era, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
			s.AddTool(addTool())
			h := s.HTTPHandler(nil)
			header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			body := benchModernCall
			if era == "modern" {
				header.Set("Mcp-Protocol-Version", versionModern)
				header.Set("Mcp-Method", "tools/call")
				header.Set("Mcp-Name", "add")
			} else {
				rec := post(h, header, benchInitialize)
				sid := rec.Header().Get("Mcp-Session-Id")
				if rec.Code != http.StatusOK || sid == "" {
					b.Fatalf("initialize: %d %s", rec.Code, rec.Body)
				}
				header.Set("Mcp-Session-Id", sid)
				header.Set("Mcp-Protocol-Version", versionLegacy)
				post(h, header, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				body = benchLegacyCall
			}
			if rec := post(h, header, body); rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte(`"result"`)) {
				b.Fatalf("call: %d %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				post(h, header, body)
			}
		})
	}
}

// post serves one POST /mcp with the given headers and body.
func post(h http.Handler, header http.Header, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader([]byte(body)))
	req.Header = header.Clone()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
