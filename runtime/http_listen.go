package runtime

// http_listen.go: ListenAndServe's listener and its graceful shutdown.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
)

// serveHTTP serves h at opts.Path on addr until ctx is cancelled, then shuts
// down gracefully: it stops accepting, calls onShutdown (which ends long-lived
// streams), waits up to opts.ShutdownTimeout for in-flight requests, and
// closes what is left. An empty addr means DefaultHTTPAddr (loopback).
func serveHTTP(ctx context.Context, addr string, h http.Handler, opts HTTPOptions, onShutdown func(), log *slog.Logger) error {
	if addr == "" {
		addr = DefaultHTTPAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return serveListener(ctx, ln, h, opts, onShutdown, log)
}

// serveListener is serveHTTP on an open listener, which it closes.
func serveListener(ctx context.Context, ln net.Listener, h http.Handler, opts HTTPOptions, onShutdown func(), log *slog.Logger) error {
	mux, routed := h.(*http.ServeMux) // already routed (HTTPOptions.LegacySSE)
	switch {
	case routed && opts.Mount != nil:
		// Every path of the routed mux (/mcp, /sse, /message) behind Mount's
		// authentication; Mount's own, more specific paths (metadata) win.
		mux = http.NewServeMux()
		opts.Mount(mux, "/", h)
	case routed:
	case opts.Mount != nil:
		mux = http.NewServeMux()
		opts.Mount(mux, opts.Path, h)
	default:
		mux = http.NewServeMux()
		mux.Handle(opts.Path, h)
	}
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		MaxHeaderBytes:    opts.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if onShutdown != nil {
		srv.RegisterOnShutdown(onShutdown)
	}
	if log != nil {
		log.Info("serving MCP over HTTP", "url", "http://"+ln.Addr().String()+opts.Path)
		if opts.LegacySSE {
			log.Info("serving the 2024-11-05 HTTP+SSE transport", "url", "http://"+ln.Addr().String()+LegacySSEPath)
		}
		if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil && !httpcheck.IsLoopbackHost(host) && len(opts.AllowedHosts) == 0 {
			log.Warn("listening beyond loopback, but only loopback Host headers are accepted; set HTTPOptions.AllowedHosts (and authenticate clients)", "addr", ln.Addr().String())
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		_ = srv.Close()
		err = fmt.Errorf("shutdown http: %w", err)
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("serve http: %w", serr))
	}
	return err
}
