package otel_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TestStdioSessionRevisionAndDuration: over stdio, a 2025-11-25 session's
// requests carry no protocol version of their own; their spans have the
// negotiated one (mcp.protocol.version), and the connection's end records
// mcp.server.session.duration with it and network.transport=pipe. Nothing
// of the arguments reaches either.
func TestStdioSessionRevisionAndDuration(t *testing.T) {
	f := newFixture(t, sdktrace.AlwaysSample())
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + canary + `"},"_meta":{"traceparent":"` + traceparent + `"}}}`,
	}, "\n") + "\n"
	if err := f.s.ServeStdio(context.Background(), strings.NewReader(in), io.Discard); err != nil {
		t.Fatal(err)
	}
	sp := f.server(t, "tools/call echo")
	if a := attrs(sp.Attributes()); a["mcp.protocol.version"] != "2025-11-25" || a["network.transport"] != "pipe" {
		t.Errorf("stdio 2025-11-25 span attributes %v, want mcp.protocol.version=2025-11-25 and network.transport=pipe", a)
	}
	var found bool
	for _, m := range f.metrics(t) {
		h, ok := m.Data.(metricdata.Histogram[float64])
		if !ok || m.Name != "mcp.server.session.duration" {
			continue
		}
		found = true
		if m.Unit != "s" || len(h.DataPoints) != 1 || h.DataPoints[0].Count != 1 || h.DataPoints[0].Sum <= 0 {
			t.Fatalf("mcp.server.session.duration: unit %q, points %+v; want one session of some seconds", m.Unit, h.DataPoints)
		}
		a := map[string]string{}
		for _, kv := range h.DataPoints[0].Attributes.ToSlice() {
			a[string(kv.Key)] = kv.Value.String()
		}
		if a["mcp.protocol.version"] != "2025-11-25" || a["network.transport"] != "pipe" || len(a) != 2 {
			t.Errorf("session duration attributes %v, want mcp.protocol.version=2025-11-25 and network.transport=pipe only", a)
		}
	}
	if !found {
		t.Error("no mcp.server.session.duration after the stdio connection ended")
	}
	assertNoCanary(t, f)
}
