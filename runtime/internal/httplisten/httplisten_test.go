package httplisten

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeAndShutdown: the handler answers at Path only, Mount wraps it, and
// cancellation shuts down cleanly after onShutdown.
func TestServeAndShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mounted atomic.Bool
	shut := make(chan struct{})
	opts := Options{Path: "/mcp", ShutdownTimeout: time.Second, Mount: func(mux *http.ServeMux, path string, h http.Handler) {
		mounted.Store(true)
		mux.Handle(path, h)
	}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeListener(ctx, ln, h, opts, func() { close(shut) }, nil) }()
	base := "http://" + ln.Addr().String()
	resp, err := http.Get(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" || !mounted.Load() {
		t.Errorf("GET /mcp: %q (mounted %v)", body, mounted.Load())
	}
	if resp, err := http.Get(base + "/other"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /other: %v %v, want 404", resp, err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	select { // http.Server runs it in its own goroutine
	case <-shut:
	case <-time.After(10 * time.Second):
		t.Error("onShutdown was not called")
	}
}
