package otel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otel"
	mcptasks "github.com/mcpgen/mcpgen/runtime/tasks"
)

// canary is a value that must never reach a span or a metric: the tests put
// it in arguments, a ToolError's message, a consent question, an HTTP token.
const canary = "CANARY-7f3a9c"

// Caller's trace context, as a client sends it.
const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan   = "00f067aa0ba902b7"
	traceparent  = "00-" + callerTrace + "-" + callerSpan + "-01"
	headerTrace  = "0af7651916cd43dd8448eb211c80319c"
	headerParent = "00-" + headerTrace + "-b7ad6b7169203331-01"
)

// fixture is a server with the extension on in-memory telemetry.
type fixture struct {
	s      *mcpruntime.Server
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newFixture(t testing.TB, sampler sdktrace.Sampler) *fixture {
	f := &fixture{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans), sdktrace.WithSampler(sampler))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	f.s = mcpruntime.NewServer(mcpruntime.Implementation{Name: "otel-test", Version: "1"}, nil)
	if err := f.s.Use(otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp})); err != nil {
		t.Fatal(err)
	}
	addTools(f.s)
	if err := f.s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f
}

const textInput = `{"type":"object","properties":{"text":{"type":"string"},"key":{"type":"string"}},"required":["text"]}`

// handlerSpan is the span the last handler saw in its context.
var handlerSpan trace.SpanContext

func addTools(s *mcpruntime.Server) {
	s.AddTool(&mcpruntime.Tool{Name: "echo", InputSchema: json.RawMessage(textInput),
		Annotations: &mcpruntime.ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			handlerSpan = trace.SpanContextFromContext(ctx)
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text(string(req.Arguments))}}, nil
		}})
	s.AddTool(&mcpruntime.Tool{Name: "fail", InputSchema: json.RawMessage(textInput),
		Annotations: &mcpruntime.ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			return nil, &mcpruntime.ToolError{Code: "not_found", Message: "no such thing: " + canary}
		}})
	s.AddTool(&mcpruntime.Tool{Name: "slow", InputSchema: json.RawMessage(textInput),
		Annotations: &mcpruntime.ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			time.Sleep(time.Millisecond)
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("slow")}}, nil
		}})
	s.AddTool(&mcpruntime.Tool{Name: "write", InputSchema: json.RawMessage(textInput),
		Confirm: "Write {text}?", IdempotencyKey: "key",
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			time.Sleep(200 * time.Microsecond) // an effect: a handler span

			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("written")}}, nil
		}})
}

// meta is a 2026-07-28 request's _meta with the caller's trace context.
func meta(extra map[string]any) map[string]any {
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// call sends a 2026-07-28 tools/call through HandleRaw and returns the result.
func (f *fixture) call(t testing.TB, id int, params map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
	r := f.s.HandleRaw(context.Background(), raw, nil, nil)
	var resp struct {
		Result map[string]any
		Error  map[string]any
	}
	if err := json.Unmarshal(r.Body, &resp); err != nil {
		t.Fatalf("reply %s: %v", r.Body, err)
	}
	if resp.Error != nil {
		return map[string]any{"error": resp.Error}
	}
	return resp.Result
}

func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func (f *fixture) server(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found sdktrace.ReadOnlySpan
	for _, s := range f.spans.Ended() {
		if s.Name() == name && s.SpanKind() == trace.SpanKindServer {
			found = s
		}
	}
	if found == nil {
		t.Fatalf("no server span %q among %v", name, names(f.spans.Ended()))
	}
	return found
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name())
	}
	return n
}

// metrics collects the recorded metrics, every scope's.
func (f *fixture) metrics(t *testing.T) []metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var ms []metricdata.Metrics
	for _, sm := range rm.ScopeMetrics {
		ms = append(ms, sm.Metrics...)
	}
	return ms
}

// children returns the names of the spans whose parent is p.
func (f *fixture) children(p sdktrace.ReadOnlySpan) map[string]sdktrace.ReadOnlySpan {
	m := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range f.spans.Ended() {
		if s.Parent().SpanID() == p.SpanContext().SpanID() {
			m[s.Name()] = s
		}
	}
	return m
}

func TestServerSpanJoinsCallersTrace(t *testing.T) {
	f := newFixture(t, sdktrace.ParentBased(sdktrace.AlwaysSample()))
	res := f.call(t, 7, map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"},
		"_meta": meta(map[string]any{"traceparent": traceparent, "tracestate": "vendor=x", "baggage": "team=sre"})})
	if res["isError"] == true || res["error"] != nil {
		t.Fatalf("call failed: %v", res)
	}
	sp := f.server(t, "tools/call echo")
	if got := sp.SpanContext().TraceID().String(); got != callerTrace {
		t.Errorf("trace id %s, want the caller's %s", got, callerTrace)
	}
	if got := sp.Parent().SpanID().String(); got != callerSpan || !sp.Parent().IsRemote() {
		t.Errorf("parent %s (remote %v), want the caller's span %s", got, sp.Parent().IsRemote(), callerSpan)
	}
	if got := sp.SpanContext().TraceState().Get("vendor"); got != "x" {
		t.Errorf("tracestate vendor=%q, want x", got)
	}
	a := attrs(sp.Attributes())
	for k, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo",
		"gen_ai.operation.name": "execute_tool", "jsonrpc.request.id": "7", "mcp.protocol.version": "2026-07-28",
		"network.transport": "pipe", "jsonrpc.protocol.version": "2.0"} {
		if a[k] != want {
			t.Errorf("%s = %q, want %q (attributes %v)", k, a[k], want, a)
		}
	}
	if _, ok := a["error.type"]; ok {
		t.Errorf("a successful call has error.type %q", a["error.type"])
	}
	if handlerSpan.SpanID() != sp.SpanContext().SpanID() {
		t.Errorf("the handler's context carries span %s, want the server span %s", handlerSpan.SpanID(), sp.SpanContext().SpanID())
	}
	f.spans.Reset()
	f.call(t, 9, map[string]any{"name": "slow", "arguments": map[string]any{"text": "hi"},
		"_meta": meta(map[string]any{"traceparent": traceparent})})
	slow := f.server(t, "tools/call slow")
	if h := f.children(slow)["handler"]; h == nil || h.EndTime().Sub(h.StartTime()) < time.Millisecond {
		t.Errorf("a handler of a millisecond has no handler span of its duration (spans %v)", names(f.spans.Ended()))
	}
}

func TestToolErrorAndRPCErrorType(t *testing.T) {
	f := newFixture(t, sdktrace.AlwaysSample())
	f.call(t, 1, map[string]any{"name": "fail", "arguments": map[string]any{"text": "x"}, "_meta": meta(nil)})
	f.call(t, 2, map[string]any{"name": "echo", "arguments": map[string]any{"text": 5}, "_meta": meta(nil)})
	if got := attrs(f.server(t, "tools/call fail").Attributes())["error.type"]; got != "not_found" {
		t.Errorf("tool error: error.type %q, want the ToolError code not_found", got)
	}
	sp := f.server(t, "tools/call echo")
	a := attrs(sp.Attributes())
	if a["error.type"] != "invalid_arguments" || sp.Status().Code.String() != "Error" {
		t.Errorf("invalid arguments: error.type %q, status %v; want invalid_arguments, Error", a["error.type"], sp.Status())
	}
	// A refused stage has its span, with the refusal's code, even when quick.
	if v := f.children(sp)["validate"]; v == nil || attrs(v.Attributes())["error.type"] != "invalid_arguments" {
		t.Errorf("no validate span with error.type invalid_arguments under the refused call (spans %v)", names(f.spans.Ended()))
	}
	seen := map[string]bool{}
	for _, m := range f.metrics(t) {
		seen[m.Name] = true
	}
	for _, n := range []string{"mcp.server.operation.duration", "mcpgen.tool.errors"} {
		if !seen[n] {
			t.Errorf("no metric %s (have %v)", n, seen)
		}
	}
}

func TestHeaderTraceparentWhenMetaHasNone(t *testing.T) {
	f := newFixture(t, sdktrace.ParentBased(sdktrace.AlwaysSample()))
	ts := httptest.NewServer(f.s.HTTPHandler(nil))
	defer ts.Close()
	post := func(params map[string]any) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		req, _ := http.NewRequest("POST", ts.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
		req.Header.Set("Traceparent", headerParent)
		req.Header.Set("Authorization", "Bearer "+canary)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s", resp.Status, b)
		}
	}
	post(map[string]any{"name": "echo", "arguments": map[string]any{"text": "a"}, "_meta": meta(nil)})
	sp := f.server(t, "tools/call echo")
	if got := sp.SpanContext().TraceID().String(); got != headerTrace {
		t.Errorf("no _meta traceparent: trace %s, want the header's %s", got, headerTrace)
	}
	if a := attrs(sp.Attributes()); a["network.transport"] != "tcp" || a["network.protocol.name"] != "http" {
		t.Errorf("HTTP attributes %v", a)
	}
	f.spans.Reset()
	post(map[string]any{"name": "echo", "arguments": map[string]any{"text": "b"}, "_meta": meta(map[string]any{"traceparent": traceparent})})
	if got := f.server(t, "tools/call echo").SpanContext().TraceID().String(); got != callerTrace {
		t.Errorf("_meta and header: trace %s, want _meta's %s", got, callerTrace)
	}
	assertNoCanary(t, f)
}

// TestConsentAndReplay: a consent round is two requests (input_required,
// then the answer) and a replay has no handler span.
func TestConsentAndReplay(t *testing.T) {
	f := newFixture(t, sdktrace.AlwaysSample())
	args := map[string]any{"text": canary, "key": "key-" + canary}
	write := func(id int) map[string]any {
		res := f.call(t, id, map[string]any{"name": "write", "arguments": args, "_meta": meta(nil)})
		if res["resultType"] != "input_required" {
			return res
		}
		return f.call(t, id, map[string]any{"name": "write", "arguments": args, "_meta": meta(nil),
			"inputResponses": map[string]any{"mcpgen.confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}},
			"requestState":   res["requestState"]})
	}
	if res := write(1); res["isError"] == true || res["error"] != nil {
		t.Fatalf("write: %v", res)
	}
	var outcomes []string
	var consent, handler int
	for _, s := range f.spans.Ended() {
		switch s.Name() {
		case "tools/call write":
			outcomes = append(outcomes, attrs(s.Attributes())["mcpgen.idempotency.outcome"])
		case "consent":
			consent++
		case "handler":
			handler++
		}
	}
	if consent < 1 || handler != 1 {
		t.Errorf("first write: %d consent spans, %d handler spans; want ≥1 and 1 (spans %v)", consent, handler, names(f.spans.Ended()))
	}
	if outcomes[len(outcomes)-1] != "fresh" {
		t.Errorf("first write's idempotency outcome %q, want fresh", outcomes)
	}
	f.spans.Reset()
	if res := write(2); res["isError"] == true || res["error"] != nil {
		t.Fatalf("replay: %v", res)
	}
	sp := f.server(t, "tools/call write")
	if got := attrs(sp.Attributes())["mcpgen.idempotency.outcome"]; got != "replayed" {
		t.Errorf("second write's outcome %q, want replayed (spans %v)", got, names(f.spans.Ended()))
	}
	if f.children(sp)["handler"] != nil {
		t.Error("a replay has a handler span")
	}
	assertNoCanary(t, f)
}

// TestNoArgumentsOrTokensInTelemetry: the canary, sent in arguments, an
// idempotency key, a consent question, a ToolError message and a bearer
// token, is in no span (name, attributes, events, status, links) and no
// metric.
func TestNoArgumentsOrTokensInTelemetry(t *testing.T) {
	f := newFixture(t, sdktrace.AlwaysSample())
	f.call(t, 1, map[string]any{"name": "echo", "arguments": map[string]any{"text": canary}, "_meta": meta(nil)})
	f.call(t, 2, map[string]any{"name": "fail", "arguments": map[string]any{"text": canary}, "_meta": meta(nil)})
	f.call(t, 3, map[string]any{"name": "write", "arguments": map[string]any{"text": canary, "key": canary + "-key"}, "_meta": meta(nil)})
	f.call(t, 4, map[string]any{"name": "echo", "arguments": map[string]any{"text": 1, "x": canary}, "_meta": meta(nil)})
	if len(f.spans.Ended()) < 4 {
		t.Fatalf("only %d spans", len(f.spans.Ended()))
	}
	assertNoCanary(t, f)
}

// assertNoCanary fails when the canary is in any recorded span or metric.
func assertNoCanary(t *testing.T, f *fixture) {
	t.Helper()
	var b strings.Builder
	for _, s := range f.spans.Ended() {
		fmt.Fprintf(&b, "%s %v %v %v %v %v\n", s.Name(), s.Attributes(), s.Events(), s.Status(), s.Links(), s.Resource())
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "%+v", rm)
	if strings.Contains(b.String(), canary) {
		t.Errorf("the canary reached the telemetry:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "tools/call") {
		t.Errorf("the dump has no spans; the check proves nothing:\n%s", b.String())
	}
}

// TestTaskHandlerSpan: a handler that outlives its request (a task) has a
// span that is the child of the request's server span, marked mcpgen.task,
// and mcpgen.tasks.active counts it while it runs.
func TestTaskHandlerSpan(t *testing.T) {
	f := &fixture{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	f.s = mcpruntime.NewServer(mcpruntime.Implementation{Name: "otel-test", Version: "1"}, &mcpruntime.Options{TaskThreshold: -1})
	f.s.MustUse(otel.New(otel.Config{TracerProvider: tp, MeterProvider: mp}))
	mcptasks.Use(f.s)
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	f.s.AddTool(&mcpruntime.Tool{Name: "slow", InputSchema: json.RawMessage(textInput), Task: mcpruntime.TaskRequired,
		Annotations: &mcpruntime.ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			defer close(done)
			close(started)
			<-release
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("late")}}, nil
		}})
	if err := f.s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := f.call(t, 1, map[string]any{"name": "slow", "arguments": map[string]any{"text": "x"},
		"_meta": meta(map[string]any{"traceparent": traceparent, "io.modelcontextprotocol/clientCapabilities": map[string]any{
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}})})
	if res["resultType"] != "task" {
		t.Fatalf("want a task, got %v", res)
	}
	<-started
	if got := activeTasks(t, f); got != 1 {
		t.Errorf("mcpgen.tasks.active = %d while the task runs, want 1", got)
	}
	close(release)
	<-done
	var handler sdktrace.ReadOnlySpan
	for range 200 {
		for _, s := range f.spans.Ended() {
			if s.Name() == "handler" {
				handler = s
			}
		}
		if handler != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if handler == nil {
		t.Fatalf("no handler span (spans %v)", names(f.spans.Ended()))
	}
	sp := f.server(t, "tools/call slow")
	if handler.Parent().SpanID() != sp.SpanContext().SpanID() {
		t.Errorf("the task's handler span's parent is %s, want the creating request's span %s", handler.Parent().SpanID(), sp.SpanContext().SpanID())
	}
	if attrs(handler.Attributes())["mcpgen.task"] != "true" {
		t.Errorf("handler span attributes %v, want mcpgen.task=true", attrs(handler.Attributes()))
	}
	if got := activeTasks(t, f); got != 0 {
		t.Errorf("mcpgen.tasks.active = %d after the task ended, want 0", got)
	}
}

// activeTasks reads mcpgen.tasks.active.
func activeTasks(t *testing.T, f *fixture) int64 {
	t.Helper()
	for _, m := range f.metrics(t) {
		if s, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "mcpgen.tasks.active" {
			var n int64
			for _, dp := range s.DataPoints {
				n += dp.Value
			}
			return n
		}
	}
	return 0
}

// TestNoExportKeepsCallersContext: with no-op providers (nothing configured)
// the handler's context still carries the caller's span context.
func TestNoExportKeepsCallersContext(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "otel-test", Version: "1"}, nil)
	s.MustUse(otel.New(otel.Config{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}))
	addTools(s)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	handlerSpan = trace.SpanContext{}
	(&fixture{s: s}).call(t, 1, map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"},
		"_meta": meta(map[string]any{"traceparent": traceparent})})
	if got := handlerSpan.TraceID().String(); got != callerTrace {
		t.Errorf("handler's trace id %q, want the caller's %s", got, callerTrace)
	}
}

// TestOtherMethodsAndBoundedMetrics: a method other than tools/call is named
// by the method alone; the client's words (an unknown method, an unknown
// tool) do not become metric attribute values.
func TestOtherMethodsAndBoundedMetrics(t *testing.T) {
	f := newFixture(t, sdktrace.AlwaysSample())
	send := func(method string, params map[string]any) {
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		f.s.HandleRaw(context.Background(), raw, nil, nil)
	}
	send("tools/list", map[string]any{"_meta": meta(nil)})
	send("no/such/method-"+canary, map[string]any{"_meta": meta(nil)})
	send("tools/call", map[string]any{"name": "no_such_tool_" + canary, "arguments": map[string]any{}, "_meta": meta(nil)})
	long := strings.Repeat("x", 1<<16)
	send("tools/call", map[string]any{"name": long, "arguments": map[string]any{}, "_meta": meta(nil)})
	a := attrs(f.server(t, "tools/list").Attributes())
	if a["mcp.method.name"] != "tools/list" || a["gen_ai.tool.name"] != "" {
		t.Errorf("tools/list attributes %v", a)
	}
	// A client-chosen name is bounded in the span's name and attributes.
	for _, s := range f.spans.Ended() {
		if len(s.Name()) > 256 {
			t.Errorf("a span name of %d bytes (%.40q...)", len(s.Name()), s.Name())
		}
		for _, kv := range s.Attributes() {
			if v := kv.Value.String(); len(v) > 256 {
				t.Errorf("span %.40q: attribute %s of %d bytes", s.Name(), kv.Key, len(v))
			}
		}
	}
	methods := map[string]bool{}
	for _, m := range f.metrics(t) {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
			for _, dp := range h.DataPoints {
				v, _ := dp.Attributes.Value("mcp.method.name")
				methods[v.AsString()] = true
				if tool, ok := dp.Attributes.Value("gen_ai.tool.name"); ok && strings.Contains(tool.AsString(), canary) {
					t.Errorf("an unknown tool's name is a metric attribute: %v", dp.Attributes)
				}
			}
		}
	}
	if !methods["tools/list"] || !methods["_OTHER"] || !methods["tools/call"] {
		t.Errorf("mcp.server.operation.duration methods %v, want tools/list, tools/call and _OTHER", methods)
	}
	for m := range methods {
		if strings.Contains(m, canary) {
			t.Errorf("an unknown method is a metric attribute: %q", m)
		}
	}
}
