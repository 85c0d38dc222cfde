package otel

// env.go: the providers the standard OTEL_* environment variables describe.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	gotel "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"go.opentelemetry.io/otel/attribute"
)

// Providers are a tracer and a meter provider made by FromEnv.
type Providers struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Shutdown flushes what is buffered and stops the exporters.
	Shutdown func(context.Context) error
}

// FromEnv makes the providers the standard environment variables describe:
//
//	OTEL_SDK_DISABLED=true            no telemetry at all
//	OTEL_SERVICE_NAME                 service.name (default: the server's name)
//	OTEL_RESOURCE_ATTRIBUTES          more resource attributes
//	OTEL_TRACES_EXPORTER              otlp or none; unset: otlp when an OTLP endpoint is set, else none
//	OTEL_METRICS_EXPORTER             likewise
//	OTEL_EXPORTER_OTLP_PROTOCOL       http/protobuf (default) or grpc;
//	                                  OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL per signal
//	OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE
//	                                  (and their _TRACES_/_METRICS_ forms): read by the OTLP exporters
//	OTEL_TRACES_SAMPLER, _ARG         read by the trace SDK (default parentbased_always_on)
//	OTEL_BSP_*, OTEL_METRIC_EXPORT_*  batching and export intervals, read by the SDK
//
// It also installs them as the global providers (and W3C trace context and
// baggage as the global propagator) so that handlers' own instrumentation
// (otelhttp, database drivers) exports through them.
func FromEnv(ctx context.Context, serviceName, serviceVersion string) (*Providers, error) {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return &Providers{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(),
			Shutdown: func(context.Context) error { return nil }}, nil
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", serviceName), attribute.String("service.version", serviceVersion)))
	if err != nil {
		return nil, err
	}
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil { // OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES win
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	p := &Providers{}
	var stops []func(context.Context) error
	switch exp := exporterName("TRACES"); exp {
	case "none":
		p.TracerProvider = tracenoop.NewTracerProvider()
	case "otlp":
		e, err := otlpExporter(ctx, "TRACES",
			func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracegrpc.New(ctx) },
			func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracehttp.New(ctx) })
		if err != nil {
			return nil, fmt.Errorf("otel traces: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(e), sdktrace.WithResource(res))
		p.TracerProvider, stops = tp, append(stops, tp.Shutdown)
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER %q: want otlp or none", exp)
	}
	switch exp := exporterName("METRICS"); exp {
	case "none":
		p.MeterProvider = metricnoop.NewMeterProvider()
	case "otlp":
		e, err := otlpExporter(ctx, "METRICS",
			func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetricgrpc.New(ctx) },
			func(ctx context.Context) (sdkmetric.Exporter, error) { return otlpmetrichttp.New(ctx) })
		if err != nil {
			return nil, errors.Join(fmt.Errorf("otel metrics: %w", err), shutdownAll(ctx, stops))
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(e)), sdkmetric.WithResource(res))
		p.MeterProvider, stops = mp, append(stops, mp.Shutdown)
	default:
		return nil, errors.Join(fmt.Errorf("OTEL_METRICS_EXPORTER %q: want otlp or none", exp), shutdownAll(ctx, stops))
	}
	gotel.SetTracerProvider(p.TracerProvider)
	gotel.SetMeterProvider(p.MeterProvider)
	gotel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	p.Shutdown = func(ctx context.Context) error { return shutdownAll(ctx, stops) }
	return p, nil
}

// exporterName reads OTEL_{signal}_EXPORTER: its first name (a list names
// several exporters; one is supported). Unset, it is "otlp" when an OTLP
// endpoint is configured for the signal (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_{signal}_ENDPOINT), else "none": a server built with
// otel exports nothing until told where to.
func exporterName(signal string) string {
	v := strings.TrimSpace(os.Getenv("OTEL_" + signal + "_EXPORTER"))
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	if v == "" {
		if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" {
			return "none"
		}
		return "otlp"
	}
	return strings.ToLower(v)
}

// protocol reads the OTLP protocol of signal (TRACES, METRICS).
func protocol(signal string) string {
	v := os.Getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")
	if v == "" {
		v = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if v = strings.TrimSpace(v); v == "" {
		return "http/protobuf"
	}
	return v
}

// shutdownAll stops each provider in turn.
func shutdownAll(ctx context.Context, stops []func(context.Context) error) error {
	var errs []error
	for _, f := range stops {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// otlpExporter makes a signal's OTLP exporter over the protocol that
// OTEL_EXPORTER_OTLP_{SIGNAL}_PROTOCOL (else OTEL_EXPORTER_OTLP_PROTOCOL) names.
func otlpExporter[E any](ctx context.Context, signal string, grpc, http func(context.Context) (E, error)) (E, error) {
	switch proto := protocol(signal); proto {
	case "grpc":
		return grpc(ctx)
	case "http/protobuf":
		return http(ctx)
	default:
		var zero E
		return zero, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: want grpc or http/protobuf", proto)
	}
}
