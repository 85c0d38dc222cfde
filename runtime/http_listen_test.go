package runtime

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/httplisten"
)

// TestHTTPHeaderBound checks that ListenAndServe's server bounds the header
// block (431).
func TestHTTPHeaderBound(t *testing.T) {
	s := NewServer(Implementation{Name: "httptest", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	opts := (&HTTPOptions{MaxHeaderBytes: 1024}).withDefaults()
	h := newHTTPHandler(s, opts)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, ln, h, opts, h.EndStreams, nil) }()
	defer func() {
		cancel()
		if err := waitFor(t, served, "the server to stop"); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	req, err := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("X-Padding", strings.Repeat("x", 16<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("got status %d, want 431", resp.StatusCode)
	}
}

// serveListener is serveHTTP on an open listener, which it closes.
func serveListener(ctx context.Context, ln net.Listener, h http.Handler, opts HTTPOptions, onShutdown func(), log *slog.Logger) error {
	return httplisten.ServeListener(ctx, ln, h, listenOptions(opts), onShutdown, log)
}
