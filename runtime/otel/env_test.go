package otel_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgen/mcpgen/runtime/otel"
)

// TestFromEnv: the providers the OTEL_* variables ask for.
func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     map[string]string
		sdk     bool   // an SDK tracer provider (else a no-op one)
		failure string // FromEnv fails naming this
	}{
		{name: "nothing set: no export", env: nil},
		{name: "an endpoint: OTLP over HTTP", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, sdk: true},
		{name: "a traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, sdk: true},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, sdk: true},
		{name: "exporter otlp, default endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, sdk: true},
		{name: "exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none"}},
		{name: "disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, failure: "OTEL_TRACES_EXPORTER"},
		{name: "http/json", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, failure: "http/json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
				"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
				t.Setenv(k, "")
			}
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			p, err := otel.FromEnv(context.Background(), "svc", "1")
			if c.failure != "" {
				if err == nil || !strings.Contains(err.Error(), c.failure) {
					t.Fatalf("err %v, want one naming %s", err, c.failure)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer func() { // the endpoints answer nothing: do not wait for the last export
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				_ = p.Shutdown(ctx)
			}()
			_, isSDK := p.TracerProvider.(*sdktrace.TracerProvider)
			_, isNoop := p.TracerProvider.(tracenoop.TracerProvider)
			if isSDK != c.sdk || isNoop == c.sdk {
				t.Errorf("tracer provider %T, want an SDK one: %v", p.TracerProvider, c.sdk)
			}
		})
	}
}
