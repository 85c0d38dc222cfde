// Package otel is mcpgen's OpenTelemetry extension: every request a server
// span in the caller's trace, named and attributed per the OpenTelemetry
// semantic conventions for MCP (semconv v1.41.0, gen-ai/mcp), child spans for
// the tools/call pipeline's stages, the conventions' metrics plus tool errors,
// idempotency outcomes and active tasks, and the trace id in the audit record.
//
// A generated server links it with mcpgen -with otel; by hand:
//
//	s := runtime.NewServer(info, nil)
//	otel.Use(s) // configured by the OTEL_* environment variables at Start
//
// The runtime package imports nothing of OpenTelemetry; a server that does not
// call Use links none of it. docs/telemetry.md lists the configuration, the
// spans and the metrics.
package otel

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/mcpgen/mcpgen/runtime/otel"

// Config sets the providers explicitly (tests, or a program that configures
// OpenTelemetry itself). Nil fields are made from the environment at Start
// (FromEnv), and then shut down with the server.
type Config struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Propagator reads the caller's trace context; nil means W3C trace context
	// and baggage (OTEL_PROPAGATORS is not read).
	Propagator propagation.TextMapPropagator
}

// Use registers the extension, configured from the environment, on s.
func Use(s *mcpruntime.Server) { s.MustUse(New(Config{})) }

// New returns the extension with cfg's providers.
func New(cfg Config) *mcpruntime.Extension {
	x := &ext{cfg: cfg}
	if cfg.TracerProvider != nil && cfg.MeterProvider != nil {
		x.init(cfg.TracerProvider, cfg.MeterProvider)
	}
	return &mcpruntime.Extension{
		Observe:    x.observe,
		Stages:     x.stage,
		AuditAttrs: auditAttrs,
		SessionEnd: x.sessionEnd,
		Start:      x.start,
		Shutdown:   x.shutdown,
	}
}

// ext is one registration's state.
type ext struct {
	cfg  Config
	once sync.Once
	ins  *instruments // nil until init

	mu   sync.Mutex
	stop []func(context.Context) error // providers made here (FromEnv)
}

// start makes the providers the Config lacks from the environment.
func (x *ext) start(ctx context.Context, s *mcpruntime.Server) error {
	if x.ins != nil {
		return nil
	}
	tp, mp := x.cfg.TracerProvider, x.cfg.MeterProvider
	if tp == nil || mp == nil {
		p, err := FromEnv(ctx, s.Info().Name, s.Info().Version)
		if err != nil {
			return err
		}
		x.mu.Lock()
		x.stop = append(x.stop, p.Shutdown)
		x.mu.Unlock()
		if tp == nil {
			tp = p.TracerProvider
		}
		if mp == nil {
			mp = p.MeterProvider
		}
	}
	x.init(tp, mp)
	return nil
}

// init makes the tracer and instruments, once.
func (x *ext) init(tp trace.TracerProvider, mp metric.MeterProvider) {
	x.once.Do(func() {
		prop := x.cfg.Propagator
		if prop == nil {
			prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		}
		x.ins = newInstruments(tp, mp, prop)
	})
}

// shutdown flushes and stops the providers made from the environment.
func (x *ext) shutdown(ctx context.Context) error {
	x.mu.Lock()
	stop := x.stop
	x.stop = nil
	x.mu.Unlock()
	var errs []error
	for _, f := range stop {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// since returns the seconds since t.
func since(t time.Time) float64 { return time.Since(t).Seconds() }
