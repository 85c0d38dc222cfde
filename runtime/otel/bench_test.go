package otel_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otel"
)

// BenchmarkCall serves one 2026-07-28 tools/call through HandleRaw: without
// the extension (none), with it and no span sampled (unsampled: metrics still
// recorded), and with every call sampled into a batching processor whose
// exporter drops the spans (sampled). The caller sends a traceparent.
func BenchmarkCall(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"traceparent":"` + traceparent + `","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}}}`)
	for _, c := range []struct {
		name    string
		sampler sdktrace.Sampler // nil: no extension
	}{{"none", nil}, {"unsampled", sdktrace.NeverSample()}, {"sampled", sdktrace.AlwaysSample()}} {
		b.Run(c.name, func(b *testing.B) {
			s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "bench", Version: "1"}, nil)
			if c.sampler != nil {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(c.sampler))
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				defer tp.Shutdown(context.Background())
				s.MustUse(otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp}))
			}
			addTools(s)
			if err := s.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			if r := s.HandleRaw(b.Context(), line, nil, nil); r.Code != 0 {
				b.Fatalf("reply %s", r.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.HandleRaw(b.Context(), line, nil, nil)
			}
		})
	}
}
