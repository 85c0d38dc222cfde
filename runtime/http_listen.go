package runtime

// http_listen.go: ListenAndServe's listener and its graceful shutdown
// (internal/httplisten), with HTTPOptions.

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httplisten"
)

// serveHTTP serves h at opts.Path on addr until ctx is cancelled, then shuts
// down gracefully (httplisten.Serve). An empty addr means DefaultHTTPAddr
// (loopback).
func serveHTTP(ctx context.Context, addr string, h http.Handler, opts HTTPOptions, onShutdown func(), log *slog.Logger) error {
	if addr == "" {
		addr = DefaultHTTPAddr
	}
	return httplisten.Serve(ctx, addr, h, listenOptions(opts), onShutdown, log)
}

// listenOptions is the listener's share of opts.
func listenOptions(opts HTTPOptions) httplisten.Options {
	o := httplisten.Options{Path: opts.Path, Mount: opts.Mount, ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout: opts.IdleTimeout, MaxHeaderBytes: opts.MaxHeaderBytes, ShutdownTimeout: opts.ShutdownTimeout,
		AllowedHosts: opts.AllowedHosts}
	if opts.LegacySSE {
		o.LegacySSEPath = LegacySSEPath
	}
	return o
}
