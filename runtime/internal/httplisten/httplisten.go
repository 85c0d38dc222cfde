// Package httplisten runs an http.Server for the MCP handler: the mux (with
// an optional authentication mount), the server's timeouts and limits, the
// start-up log lines, and the graceful shutdown on cancellation.
package httplisten

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
)

// Options are the listener's share of runtime.HTTPOptions.
type Options struct {
	Path              string // where the MCP handler is mounted
	Mount             func(mux *http.ServeMux, path string, mcp http.Handler)
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	ShutdownTimeout   time.Duration
	AllowedHosts      []string
	LegacySSEPath     string // the HTTP+SSE stream's path, when that transport is served
}

// Serve serves h at opts.Path on addr until ctx is cancelled, then shuts
// down gracefully: it stops accepting, calls onShutdown (which ends long-lived
// streams), waits up to opts.ShutdownTimeout for in-flight requests, and
// closes what is left.
func Serve(ctx context.Context, addr string, h http.Handler, opts Options, onShutdown func(), log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return ServeListener(ctx, ln, h, opts, onShutdown, log)
}

// ServeListener is Serve on an open listener, which it closes.
func ServeListener(ctx context.Context, ln net.Listener, h http.Handler, opts Options, onShutdown func(), log *slog.Logger) error {
	mux, routed := h.(*http.ServeMux) // already routed (the HTTP+SSE transport beside)
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
		if opts.LegacySSEPath != "" {
			log.Info("serving the 2024-11-05 HTTP+SSE transport", "url", "http://"+ln.Addr().String()+opts.LegacySSEPath)
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
