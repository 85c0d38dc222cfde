package otel

// request.go: one request's server span and measurements.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/audit"
)

// Attribute keys of the MCP semantic conventions (semconv v1.41.0) and this
// extension's own (mcpgen.*).
const (
	keyMethod      = attribute.Key("mcp.method.name")
	keyVersion     = attribute.Key("mcp.protocol.version")
	keySession     = attribute.Key("mcp.session.id")
	keyResourceURI = attribute.Key("mcp.resource.uri")
	keyRequestID   = attribute.Key("jsonrpc.request.id")
	keyJSONRPC     = attribute.Key("jsonrpc.protocol.version")
	keyTool        = attribute.Key("gen_ai.tool.name")
	keyPrompt      = attribute.Key("gen_ai.prompt.name")
	keyOperation   = attribute.Key("gen_ai.operation.name")
	keyErrorType   = attribute.Key("error.type")
	keyRPCStatus   = attribute.Key("rpc.response.status_code")
	keyTransport   = attribute.Key("network.transport")
	keyNetProto    = attribute.Key("network.protocol.name")
	keyStage       = attribute.Key("mcpgen.stage")
	keyIdempotency = attribute.Key("mcpgen.idempotency.outcome")
	keyTask        = attribute.Key("mcpgen.task")
)

// instruments are the tracer, the propagator and the metrics of one
// registration.
type instruments struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	opDuration  mcpconv.ServerOperationDuration
	sessDur     mcpconv.ServerSessionDuration
	toolErrors  metric.Int64Counter
	idempotency metric.Int64Counter
	activeTasks metric.Int64UpDownCounter
	mu          sync.RWMutex
	measures    map[opKey]metric.MeasurementOption // mcp.server.operation.duration's attribute sets
}

func newInstruments(tp trace.TracerProvider, mp metric.MeterProvider, prop propagation.TextMapPropagator) *instruments {
	m := mp.Meter(ScopeName)
	ins := &instruments{tracer: tp.Tracer(ScopeName), prop: prop}
	// Errors making instruments leave no-op ones (the SDK reports them).
	ins.opDuration, _ = mcpconv.NewServerOperationDuration(m)
	ins.sessDur, _ = mcpconv.NewServerSessionDuration(m)
	ins.toolErrors, _ = m.Int64Counter("mcpgen.tool.errors", metric.WithUnit("{error}"),
		metric.WithDescription("tools/call results with isError, by tool and ToolError code"))
	ins.idempotency, _ = m.Int64Counter("mcpgen.idempotency.outcomes", metric.WithUnit("{call}"),
		metric.WithDescription("keyed tools/call outcomes of the idempotency ledger: fresh, replayed, conflict, ..."))
	ins.activeTasks, _ = m.Int64UpDownCounter("mcpgen.tasks.active", metric.WithUnit("{task}"),
		metric.WithDescription("task handlers running on this replica"))
	return ins
}

// stateKey is the context key of a request's *reqState.
type stateKey struct{}

// reqState is one observed request.
type reqState struct {
	context.Context // the request's, with its server span
	ins             *instruments
	p               params
	span            trace.Span
	start           time.Time
	method          string
	target          string // the tool or prompt name
	version         string
	transport       string
	recording       bool // the server span records: its stages get spans, also after it ended (a task's)
	ended           atomic.Bool

	mu       sync.Mutex // guards the handler's state against the answer's
	running  int        // handlers running (0 or 1)
	answered bool       // the request was answered
}

// serverKind is the server spans' start option, made once.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// observe starts the server span of a request or notification.
func (x *ext) observe(ctx context.Context, m *mcpruntime.MessageInfo) (context.Context, func(mcpruntime.Outcome)) {
	ins := x.ins
	if ins == nil {
		return ctx, nil
	}
	r := &reqState{ins: ins, start: time.Now(), method: m.Method, transport: "pipe"}
	p := &r.p
	readParams(m.Params, p)
	switch m.Method {
	case "tools/call", "prompts/get":
		r.target = audit.Bound(p.name) // the client's words: a span name stays short
	}
	// The revision: 2026-07-28's _meta, else the one the session negotiated
	// (stdio and HTTP sessions), else the HTTP header.
	r.version = p.version
	if r.version == "" {
		r.version = m.Revision
	}
	if m.Header != nil {
		r.transport = "tcp"
		if r.version == "" {
			r.version = m.Header.Get("Mcp-Protocol-Version")
		}
	}
	// The span starts named by the method alone (samplers see that name); a
	// recorded one gets its target: an unsampled request builds no name.
	ctx, r.span = ins.tracer.Start(ins.extract(ctx, p, m.Header), m.Method, serverKind)
	if r.recording = r.span.IsRecording(); r.recording {
		if r.target != "" {
			r.span.SetName(m.Method + " " + r.target)
		}
		r.span.SetAttributes(r.attrs(m)...)
	}
	r.Context = ctx
	return r, r.end
}

// Value returns r for stateKey: the request's context is its reqState.
func (r *reqState) Value(key any) any {
	if _, ok := key.(stateKey); ok {
		return r
	}
	return r.Context.Value(key)
}

// extract returns ctx with the caller's trace context: from params._meta,
// else from the HTTP request's headers.
func (ins *instruments) extract(ctx context.Context, p *params, h http.Header) context.Context {
	if p.traceparent != "" {
		return ins.prop.Extract(ctx, (*metaCarrier)(p))
	}
	if h != nil && h.Get("Traceparent") != "" {
		return ins.prop.Extract(ctx, propagation.HeaderCarrier(h))
	}
	return ctx
}

// metaCarrier reads the trace context of params._meta.
type metaCarrier params

func (c *metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.traceparent
	case "tracestate":
		return c.tracestate
	case "baggage":
		return c.baggage
	}
	return ""
}
func (c *metaCarrier) Set(string, string) {}
func (c *metaCarrier) Keys() []string     { return []string{"traceparent", "tracestate", "baggage"} }

// attrs are the span's attributes at its start.
func (r *reqState) attrs(m *mcpruntime.MessageInfo) []attribute.KeyValue {
	p := &r.p
	a := make([]attribute.KeyValue, 0, 10)
	a = append(a, keyMethod.String(m.Method), keyJSONRPC.String("2.0"), keyTransport.String(r.transport))
	if m.ID != nil {
		a = append(a, keyRequestID.String(audit.Bound(requestID(m.ID))))
	}
	if r.version != "" {
		a = append(a, keyVersion.String(r.version))
	}
	if m.Header != nil {
		a = append(a, keyNetProto.String("http"))
		if sid := m.Header.Get("Mcp-Session-Id"); sid != "" {
			a = append(a, keySession.String(sid))
		}
	}
	switch m.Method {
	case "tools/call":
		a = append(a, keyTool.String(r.target), keyOperation.String("execute_tool"))
	case "prompts/get":
		a = append(a, keyPrompt.String(r.target))
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if p.uri != "" {
			a = append(a, keyResourceURI.String(audit.Bound(p.uri)))
		}
	}
	return a
}

// requestID is a JSON-RPC id as a string: a string id unquoted, a number as
// written.
func requestID(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) == nil {
			return s
		}
	}
	return string(id)
}

// end ends the request's span and records its measurements.
func (r *reqState) end(o mcpruntime.Outcome) {
	if r.ended.Swap(true) {
		return
	}
	r.answer()
	errType := ""
	switch {
	case o.Code != 0:
		errType = strconv.Itoa(o.Code)
	case o.ToolError != "":
		errType = o.ToolError
	case o.Aborted:
		errType = "cancelled"
	}
	idem := o.Idempotency
	if r.recording {
		if errType != "" {
			r.span.SetAttributes(keyErrorType.String(errType))
			r.span.SetStatus(codes.Error, errType)
		}
		if o.Code != 0 {
			r.span.SetAttributes(keyRPCStatus.String(errType))
		}
		if idem != "" {
			r.span.SetAttributes(keyIdempotency.String(idem))
		}
		r.span.End()
	}
	ctx := context.Background()
	// A metric's attributes stay bounded: a method or tool name the server
	// does not have (the client's words) is not kept.
	method, target := r.method, r.target
	switch o.Code {
	case -32601:
		method, target = "_OTHER", ""
	case -32602:
		target = ""
	}
	version := r.version
	if !knownVersion(version) {
		version = "" // the client's words
	}
	r.ins.opDuration.Inst().Record(ctx, since(r.start), r.ins.measure(opKey{method, target, errType, version, r.transport, o.Code}))
	if o.ToolError != "" {
		r.ins.toolErrors.Add(ctx, 1, metric.WithAttributes(keyTool.String(r.target), keyErrorType.String(o.ToolError)))
	}
	if idem != "" {
		r.ins.idempotency.Add(ctx, 1, metric.WithAttributes(keyTool.String(r.target), keyIdempotency.String(idem)))
	}
}

// opKey identifies one set of attributes of mcp.server.operation.duration.
type opKey struct {
	method, target, errType, version, transport string
	code                                        int
}

// measure returns the measurement option of k's attributes, made once.
func (ins *instruments) measure(k opKey) metric.MeasurementOption {
	ins.mu.RLock()
	opt, ok := ins.measures[k]
	ins.mu.RUnlock()
	if ok {
		return opt
	}
	a := make([]attribute.KeyValue, 0, 8)
	a = append(a, keyMethod.String(k.method), keyTransport.String(k.transport))
	switch k.method {
	case "tools/call":
		a = append(a, keyTool.String(k.target), keyOperation.String("execute_tool"))
	case "prompts/get":
		a = append(a, keyPrompt.String(k.target))
	}
	if k.version != "" {
		a = append(a, keyVersion.String(k.version))
	}
	if k.errType != "" {
		a = append(a, keyErrorType.String(k.errType))
	}
	if k.code != 0 {
		a = append(a, keyRPCStatus.String(strconv.Itoa(k.code)))
	}
	opt = metric.WithAttributeSet(attribute.NewSet(a...))
	ins.mu.Lock()
	if ins.measures == nil {
		ins.measures = map[opKey]metric.MeasurementOption{}
	}
	ins.measures[k] = opt
	ins.mu.Unlock()
	return opt
}

// auditAttrs adds the trace and span ids to the audit record.
func auditAttrs(ctx context.Context) []slog.Attr {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return nil
	}
	return []slog.Attr{slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String())}
}

// knownVersion reports a protocol revision the runtime serves.
func knownVersion(v string) bool {
	switch v {
	case "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05":
		return true
	}
	return false
}

// sessionEnd records mcp.server.session.duration for a session that ended.
func (x *ext) sessionEnd(info mcpruntime.SessionInfo) {
	ins := x.ins
	if ins == nil {
		return
	}
	a := make([]attribute.KeyValue, 0, 3)
	switch info.Transport {
	case "stdio":
		a = append(a, keyTransport.String("pipe"))
	case "http", "sse":
		a = append(a, keyTransport.String("tcp"), keyNetProto.String("http"))
	}
	if knownVersion(info.Revision) {
		a = append(a, keyVersion.String(info.Revision))
	}
	ins.sessDur.Inst().Record(context.Background(), info.Duration.Seconds(), metric.WithAttributes(a...))
}
