package runtime

// extension.go: the public extension API (docs/extensions.md): an Extension
// has an identifier and settings advertised under capabilities.extensions
// (SEP-2133), custom request and notification methods, interceptors around
// tools/call, resources/read and prompts/get, a per-request view of
// tools/list, a hook around every message, stage observation, audit
// attributes and a start/shutdown lifecycle. With none registered the core
// pays one nil check per hook point.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/subscribe"
	"github.com/mcpgen/mcpgen/runtime/internal/toolset"
)

// An Extension adds a protocol extension (e.g. "io.modelcontextprotocol/tasks",
// "io.modelcontextprotocol/ui") or a cross-cutting feature (telemetry, policy)
// to a Server without changing its core. Every field is optional; register it
// with Server.Use before the server serves. The runtime never changes an
// Extension after Use; its functions may be called concurrently.
type Extension struct {
	// ID identifies the extension, a _meta-style key with a prefix
	// ("io.modelcontextprotocol/ui", "com.example/audit"). With an ID and no
	// Advertise, the server advertises Settings as capabilities.extensions[ID]
	// in server/discover (2026-07-28) and in initialize results (2025-11-25;
	// older revisions have no extensions). "" advertises nothing (a
	// middleware-only extension).
	ID string
	// Settings is the extension's settings object; nil means {}.
	Settings json.RawMessage
	// Advertise, when set, replaces the default advertisement: it is called
	// with the ServerCapabilities of revision each time they are sent
	// (server/discover: "2026-07-28"; initialize: the negotiated revision) and
	// may add or change members, e.g. capabilities.tasks for 2025-11-25.
	// AdvertiseExtension adds the extensions entry. caps belongs to the call.
	// What it adds must encode as JSON; an Advertise that panics or adds
	// something that does not encode (tried alone first) is skipped.
	Advertise func(revision string, caps map[string]any)

	// Methods are the custom request and notification methods the extension
	// serves. A name the core serves (tools/call, ...) or one another
	// extension registered (tasks/*, once runtime/tasks is) makes Use fail.
	Methods []Method

	// ToolCall, ResourceRead and PromptGet intercept those requests (see
	// ToolInterceptor). Interceptors of all extensions run in the order the
	// extensions were registered, the first outermost.
	ToolCall     ToolInterceptor
	ResourceRead ResourceInterceptor
	PromptGet    PromptInterceptor

	// ToolsList, when set, shapes tools/list per request (ToolsView).
	ToolsList *ToolsView

	// Observe, when set, is called when the server starts serving each
	// request or notification (after it parsed, before admission checks),
	// with the context it is served under. It returns the context to serve
	// it under (a child of ctx, e.g. carrying a span: handlers see its
	// values) and a function called once with its outcome when it is
	// answered (for a notification, when it was handled), or nil. Observers
	// of several extensions nest in registration order.
	Observe func(ctx context.Context, m *MessageInfo) (context.Context, func(Outcome))

	// Listen, when set, checks the filter of each 2026-07-28
	// subscriptions/listen request before it is acknowledged: it may narrow
	// the filter's parts its extension serves (ListenFilter) or refuse the
	// request (errors map as Method.Handle's). ctx is the request's.
	Listen func(ctx context.Context, f *ListenFilter) error

	// Stages, when set, is told when each stage of the tools/call pipeline
	// starts and ends (Stage). It must be cheap: it runs inline.
	Stages StageObserver

	// AuditAttrs, when set, adds attributes to each audit record
	// (Options.Audit) from the context the request was served under, e.g. a
	// trace id. It must not add argument values or secrets.
	AuditAttrs func(ctx context.Context) []slog.Attr

	// Start, when set, runs once before the server first serves a message
	// (Server.Start, which ServeStdio, ListenAndServe and HTTPHandler call;
	// ServeStdio and ListenAndServe fail with its error, HTTPHandler logs
	// it). Shutdown, when set, runs once when the server stops
	// (Server.Shutdown, which HTTPHandler.Shutdown and ListenAndServe call;
	// ServeStdio runs it when it returns, bounded by Options.DrainTimeout):
	// it should finish or hand off background work until ctx is done.
	Start    func(ctx context.Context, s *Server) error
	Shutdown func(ctx context.Context) error

	// Routes, when set, serves the extension's HTTP routes beside the MCP
	// endpoint on the mux of ListenAndServe (and so of runtime/serve's
	// -http): it is called once per ListenAndServe, after the endpoint was
	// mounted, with the mux and the endpoint's path (HTTPOptions.Path). The
	// routes are outside HTTPOptions.Mount's authentication (runtime/serve's
	// -auth-issuer): an extension whose routes need a caller checks it
	// itself. A program serving HTTPHandler on a mux of its own mounts an
	// extension's handlers itself (runtime/servercard: Card.Handler).
	Routes func(mux *http.ServeMux, endpoint string)

	// Value is the extension's own state, never read by the runtime: its
	// package finds it again in Server.Extensions (e.g. servercard.Of).
	Value any

	// SessionEnd, when set, is called once when a session ends: a
	// 2025-11-25-or-older Streamable HTTP session (DELETE, idle expiry,
	// eviction, shutdown), an HTTP+SSE stream, or a stdio connection
	// (extension_session.go, SessionInfo). It runs inline where the session
	// ends and must be cheap; a session opened before the extension was
	// registered is not reported.
	SessionEnd func(info SessionInfo)
}

// A ListenFilter is the part of a subscriptions/listen filter that
// extensions serve (Extension.Listen).
type ListenFilter struct {
	// TaskIDs are the filter's taskIds (io.modelcontextprotocol/tasks),
	// nil when absent: the tasks whose notifications/tasks the stream
	// wants. Without an extension that serves them they are dropped.
	TaskIDs []string
}

// A Method is a custom JSON-RPC method an extension serves.
type Method struct {
	// Name is the method's name, e.g. "com.example/echo" or "tasks/get".
	Name string
	// Notification makes the method a notification: Handle's result is
	// dropped and nothing is answered.
	Notification bool
	// Modern and Legacy say in which eras the method exists: 2026-07-28
	// (Modern) or the initialize handshake (Legacy: 2025-11-25 and older,
	// after initialize). Both false means both. A request in an era the
	// method does not exist in is refused as the core refuses one of its own
	// (a 2025-11-25 request for a Modern method as for server/discover:
	// -32602, a 2026-07-28 request for a Legacy one: -32601).
	Modern, Legacy bool
	// Handle serves the method. ctx is the request's context (RequestFrom,
	// PrincipalFrom, ClientExtension and the round's Ask/Elicit work in it).
	// The result is sent as is: a JSON object; in 2026-07-28 the runtime adds
	// resultType "complete" and the server's identity in _meta unless the
	// object has them. Errors map as the core's do: an *RPCError (wrapped or
	// not) is sent as that JSON-RPC error, ErrResourceNotFound as the era's
	// not-found error, any other error as -32603 with its text, a panic as
	// -32603 with a generic text.
	Handle func(ctx context.Context, req *MethodRequest) (json.RawMessage, error)
}

// A MethodRequest is one request or notification of a custom method.
type MethodRequest struct {
	// Method is the method's name.
	Method string
	// ID is the request's JSON-RPC id; nil for a notification.
	ID json.RawMessage
	// Params are the raw params (with _meta); nil when absent.
	Params json.RawMessage
	// Session is the 2025-11-25 session the message came on; nil without one.
	Session *Session
}

// An RPCError is a JSON-RPC error an extension answers with (Method.Handle,
// an interceptor).
type RPCError struct {
	Code    int
	Message string
	Data    any
}

func (e *RPCError) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// A ToolInterceptor runs around the rest of a tools/call. It sees the call
// after its arguments were validated and the caller was authorized (req.Tool
// is the tool's definition with its Meta; PrincipalFrom(ctx) and
// RequestFrom(ctx) give the caller and the revision) and before the
// idempotency replay check, consent, the idempotency claim and the handler,
// which next runs. It may answer (return a result without calling next),
// refuse (a *ToolError becomes an isError result with its code; an *RPCError
// becomes that JSON-RPC error; any other error an isError result with its
// text), or wrap next (call it with a derived context, change the result).
// req.Arguments must not be changed.
type ToolInterceptor func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error)

// A ResourceInterceptor runs around a resources/read after its URI was routed
// and the caller authorized; next runs the resource's handler. Errors map as
// the handler's: ErrResourceNotFound, an *RPCError, any other error -32603.
type ResourceInterceptor func(ctx context.Context, req *ResourceRequest, next ResourceHandler) (*ResourceResult, error)

// A PromptInterceptor runs around a prompts/get after its arguments were
// checked and the caller authorized; next runs the prompt's handler. Errors
// map as the handler's (an *RPCError is sent as that JSON-RPC error).
type PromptInterceptor func(ctx context.Context, req *PromptRequest, next PromptHandler) (*PromptResult, error)

// A ToolsView shapes the tools/list a request sees. The page cache stays: a
// request's variant (a small number from Variant) selects one cached copy of
// each page per era, so Show must depend only on the variant and the tool.
type ToolsView struct {
	// Variant returns the request's variant, 0 to 255; 0 must be the
	// unchanged list. It sees the request's RequestInfo (its client
	// capabilities: ClientExtensionOf).
	Variant func(info *RequestInfo) uint8
	// Show returns what tools/list shows of t in variant v (v > 0): t
	// itself, another *Tool to list instead (a copy with other Meta, made
	// once and kept: the same pointer each time), or nil to leave t off the
	// list (it can still be called).
	Show func(v uint8, t *Tool) *Tool
}

// MessageInfo describes a request or notification to Extension.Observe.
type MessageInfo struct {
	// Method is the message's method.
	Method string
	// ID is the request's JSON-RPC id; nil for a notification.
	ID json.RawMessage
	// Modern reports a 2026-07-28 message.
	Modern bool
	// Revision is the message's protocol revision: its _meta protocolVersion
	// (2026-07-28), the session's negotiated one (handshake revisions), ""
	// before initialize or when absent.
	Revision string
	// Params are the raw params (with _meta: Meta reads a member).
	Params json.RawMessage
	// Session is the 2025-11-25 session, nil without one.
	Session *Session
	// Header holds the HTTP request's headers when the message came over
	// HTTP (nil on stdio); read only.
	Header http.Header
}

// Meta returns the raw value of member key of the message's params._meta
// (e.g. "traceparent"), read in place.
func (m *MessageInfo) Meta(key string) (json.RawMessage, bool) {
	meta, ok := jsonwire.Member(m.Params, "_meta")
	if !ok {
		return nil, false
	}
	return jsonwire.Member(meta, key)
}

// An Outcome is how a request ended, for Extension.Observe: never argument
// values or result contents.
type Outcome struct {
	// Code is the JSON-RPC error code of an error reply, 0 otherwise.
	Code int
	// ToolError is the code of an isError tools/call result ("error" for a
	// plain handler error), "" otherwise.
	ToolError string
	// Aborted reports a request the client cancelled (no reply).
	Aborted bool
	// Idempotency is what the idempotency ledger did for a keyed tools/call,
	// named as the audit record names it: "fresh" (claimed; the handler ran),
	// "replayed", "conflict", "in_progress", "outcome_unknown", "reconciled",
	// "store_error"; "" for a call without a key.
	Idempotency string
}

// A Stage is a named step of the tools/call pipeline (DESIGN.md, "The call
// pipeline").
type Stage uint8

// The stages of a tools/call, in pipeline order.
const (
	StageValidate  Stage = iota + 1 // the arguments against the input schema
	StageAuthorize                  // the caller's scopes
	StageReplay                     // the idempotency ledger's replay check
	StageConsent                    // Tool.Confirm's question (a round with the client)
	StageClaim                      // the idempotency claim
	StageHandler                    // the tool's handler
	StageReceipt                    // the receipt and the ledger's done record
)

var stageNames = [...]string{"", "validate", "authorize", "replay", "consent", "claim", "handler", "receipt"}

func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("stage(%d)", s)
}

// A StageObserver is told when a stage starts; the function it returns (or
// nil) is called when the stage ends, with its error (nil on success; a
// *ToolError for a refusal). It sees no argument values.
type StageObserver func(ctx context.Context, st Stage) func(err error)

// AdvertiseExtension sets caps["extensions"][id] = settings (nil: {}) in a
// ServerCapabilities map given to Extension.Advertise.
func AdvertiseExtension(caps map[string]any, id string, settings json.RawMessage) {
	if settings == nil {
		settings = json.RawMessage(`{}`)
	}
	exts, _ := caps["extensions"].(map[string]any)
	if exts == nil {
		exts = map[string]any{}
		caps["extensions"] = exts
	}
	exts[id] = settings
}

// ClientExtension returns the settings the client of the request ctx belongs
// to declared for extension id under its capabilities.extensions: per request
// in 2026-07-28 (_meta clientCapabilities), from initialize in the handshake
// revisions. ok is false outside a request or when the client did not declare
// the extension.
func ClientExtension(ctx context.Context, id string) (json.RawMessage, bool) {
	c := callFrom(ctx)
	if c == nil {
		return nil, false
	}
	return ClientExtensionOf(&c.info, id)
}

// ClientExtensionOf is ClientExtension for a RequestInfo (ToolsView.Variant).
func ClientExtensionOf(info *RequestInfo, id string) (json.RawMessage, bool) {
	if info == nil {
		return nil, false
	}
	exts, ok := jsonwire.Member(info.ClientCapabilities, "extensions")
	if !ok {
		return nil, false
	}
	v, ok := jsonwire.Member(exts, id)
	if !ok || len(v) == 0 || v[0] != '{' {
		return nil, false // the spec's settings are objects
	}
	return v, true
}

// Use registers x with the server. It fails, registering nothing, on
// Settings that are not a JSON object, a method without a name or handler, a method name the core serves or
// another extension registered, or an ID already used. Register extensions
// before serving; Use is safe for concurrent use but a request already being
// served may not see x.
func (s *Server) Use(x *Extension) error {
	if x == nil {
		return errors.New("mcpgen runtime: Use(nil)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.exts.Load()
	next := &extSet{}
	if old != nil {
		*next = *old
		next.list = append([]*Extension(nil), old.list...)
		next.methods = make(map[string]*Method, len(old.methods)+len(x.Methods))
		for k, v := range old.methods {
			next.methods[k] = v
		}
	} else {
		next.methods = map[string]*Method{}
	}
	if x.Settings != nil {
		if set := jsonwire.TrimSpace(x.Settings); len(set) < 2 || set[0] != '{' || !jsonwire.Valid(set) {
			return fmt.Errorf("mcpgen runtime: extension %q: Settings must be a JSON object", x.ID)
		}
	}
	if x.ID != "" {
		for _, o := range next.list {
			if o.ID == x.ID {
				return fmt.Errorf("mcpgen runtime: extension %q is already registered", x.ID)
			}
		}
	}
	for i := range x.Methods {
		m := &x.Methods[i]
		switch {
		case m.Name == "":
			return fmt.Errorf("mcpgen runtime: extension %q: a method without a name", x.ID)
		case m.Handle == nil:
			return fmt.Errorf("mcpgen runtime: extension %q: method %s has no Handle", x.ID, m.Name)
		case coreMethod(m.Name):
			return fmt.Errorf("mcpgen runtime: extension %q: method %s is a core method; custom methods must not shadow the core", x.ID, m.Name)
		case next.methods[m.Name] != nil:
			return fmt.Errorf("mcpgen runtime: extension %q: method %s is already registered by another extension", x.ID, m.Name)
		}
		next.methods[m.Name] = m
	}
	next.list = append(next.list, x)
	next.index()
	if len(next.views) > 8 {
		return fmt.Errorf("mcpgen runtime: extension %q: at most 8 extensions may have a ToolsList view", x.ID)
	}
	s.exts.Store(next)
	return nil
}

// MustUse is Use, panicking on an error (a programmer error: generated code).
func (s *Server) MustUse(x *Extension) {
	if err := s.Use(x); err != nil {
		panic(err)
	}
}

// Extensions returns the registered extensions in registration order.
func (s *Server) Extensions() []*Extension {
	x := s.exts.Load()
	if x == nil {
		return nil
	}
	return append([]*Extension(nil), x.list...)
}

// coreMethod reports whether the core serves name (in some era), or reserves
// it: the notifications the core handles.
func coreMethod(name string) bool {
	if _, ok := lookupMethod(name); ok {
		return true
	}
	switch name {
	case "notifications/initialized", "notifications/cancelled":
		return true
	}
	return false
}

// An extSet is the registered extensions, immutable once published
// (Server.exts), with each hook's users listed once.
type extSet struct {
	list      []*Extension
	methods   map[string]*Method
	toolCall  []ToolInterceptor
	resRead   []ResourceInterceptor
	promptGet []PromptInterceptor
	views     []*ToolsView
	observers []func(context.Context, *MessageInfo) (context.Context, func(Outcome))
	stages    []StageObserver
	listen    []func(context.Context, *ListenFilter) error
	audit     []func(context.Context) []slog.Attr
	routes    []func(*http.ServeMux, string)
	ends      []*Extension // those with a SessionEnd
}

// index lists each hook's users.
func (x *extSet) index() {
	*x = extSet{list: x.list, methods: x.methods}
	for _, e := range x.list {
		if e.ToolCall != nil {
			x.toolCall = append(x.toolCall, e.ToolCall)
		}
		if e.ResourceRead != nil {
			x.resRead = append(x.resRead, e.ResourceRead)
		}
		if e.PromptGet != nil {
			x.promptGet = append(x.promptGet, e.PromptGet)
		}
		if e.ToolsList != nil && e.ToolsList.Variant != nil && e.ToolsList.Show != nil {
			x.views = append(x.views, e.ToolsList)
		}
		if e.Observe != nil {
			x.observers = append(x.observers, e.Observe)
		}
		if e.Stages != nil {
			x.stages = append(x.stages, e.Stages)
		}
		if e.Listen != nil {
			x.listen = append(x.listen, e.Listen)
		}
		if e.AuditAttrs != nil {
			x.audit = append(x.audit, e.AuditAttrs)
		}
		if e.Routes != nil {
			x.routes = append(x.routes, e.Routes)
		}
		if e.SessionEnd != nil {
			x.ends = append(x.ends, e)
		}
	}
}

// extLifecycle runs the extensions' Start and Shutdown once each.
type extLifecycle struct {
	startOnce, stopOnce sync.Once
	startErr            error
	started             atomic.Bool
}

// Start runs the registered extensions' Start functions, once; later calls
// return the first call's error. Transports call it before serving.
func (s *Server) Start(ctx context.Context) error {
	x := s.exts.Load()
	if x == nil {
		return nil
	}
	s.life.startOnce.Do(func() {
		for _, e := range x.list {
			if e.Start == nil {
				continue
			}
			if err := e.Start(ctx, s); err != nil {
				s.life.startErr = fmt.Errorf("extension %s: start: %w", extName(e), err)
				return
			}
		}
		s.life.started.Store(true)
	})
	return s.life.startErr
}

// Shutdown runs the registered extensions' Shutdown functions (last
// registered first), once, until ctx is done: the tasks extension's
// (runtime/tasks) drains task handlers. HTTPHandler.Shutdown and
// ListenAndServe call it; so does ServeStdio when it returns.
func (s *Server) Shutdown(ctx context.Context) error {
	return s.shutdownExtensions(ctx)
}

// shutdownExtensions runs the extensions' Shutdown functions, once.
func (s *Server) shutdownExtensions(ctx context.Context) error {
	var errs []error
	s.life.stopOnce.Do(func() {
		x := s.exts.Load()
		if x == nil {
			return
		}
		for i := len(x.list) - 1; i >= 0; i-- {
			e := x.list[i]
			if e.Shutdown == nil {
				continue
			}
			if err := e.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("extension %s: shutdown: %w", extName(e), err))
			}
		}
	})
	return errors.Join(errs...)
}

// extName names an extension in errors.
func extName(e *Extension) string {
	if e.ID == "" {
		return "(no id)"
	}
	return e.ID
}

// advertise adds each extension's advertisement to caps, the capabilities of
// revision.
func (x *extSet) advertise(revision string, caps map[string]any) {
	for _, e := range x.list {
		switch {
		case e.Advertise != nil:
			if _, err := json.Marshal(advertisedBy(e, revision)); err != nil {
				continue // checked alone first: a bad one must not break initialize
			}
			e.Advertise(revision, caps)
		case e.ID != "" && (revision == versionModern || revision == versionLegacy):
			AdvertiseExtension(caps, e.ID, e.Settings)
		}
	}
}

// extMethod returns the method table entry of an extension's request method.
func (s *Server) extMethod(name string) (methodInfo, bool) {
	x := s.exts.Load()
	if x == nil {
		return methodInfo{}, false
	}
	m := x.methods[name]
	if m == nil || m.Notification {
		return methodInfo{}, false
	}
	both := !m.Modern && !m.Legacy
	return methodInfo{modern: both || m.Modern, legacy: both || m.Legacy, handle: (*Server).serveMethod}, true
}

// serveMethod answers a request of an extension's method.
func (s *Server) serveMethod(ctx context.Context, c *call) ([]byte, *rpcError) {
	m := s.exts.Load().methods[c.msg.Method]
	req := &MethodRequest{Method: c.msg.Method, ID: c.msg.ID, Params: c.msg.Params, Session: c.sess}
	r, rerr := s.openRound(c, m.Name, nil) // mrtr.go: Ask and Elicit work in Handle
	if rerr != nil {
		return nil, rerr
	}
	rctx := withRound(ctx, r)
	res, err := recovered(s, "extension method panicked", "method", m.Name, func() (json.RawMessage, error) { return m.Handle(rctx, req) })
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	if err != nil {
		return nil, extError(c, m.Name, err)
	}
	return s.completeResult(c, m.Name, res)
}

// completeResult checks that res, an extension's result for what (a
// method's, an interceptor's RawToolResult), is a JSON object and completes
// it for a 2026-07-28 request: resultType "complete" and the server's
// identity in _meta unless it has them.
func (s *Server) completeResult(c *call, what string, res json.RawMessage) ([]byte, *rpcError) {
	res = jsonwire.TrimSpace(res)
	if len(res) < 2 || res[0] != '{' || !jsonwire.Valid(res) {
		s.logger.Error("extension returned no JSON object", "method", c.msg.Method, "what", what)
		return nil, errorf(CodeInternalError, "internal error: %s returned no result object", what)
	}
	if !c.info.Modern {
		return res, nil
	}
	_, typed := jsonwire.Member(res, "resultType")
	_, meta := jsonwire.Member(res, "_meta")
	return jsonrpc.CompleteResult(res, s.serverInfoMeta, typed, meta), nil // the tasks methods' are complete already: no copy
}

// listenFilter lets the extensions check and narrow a subscriptions/listen
// filter (Extension.Listen); without one, its taskIds are dropped.
func (s *Server) listenFilter(ctx context.Context, c *call, f *subscribe.Filter) *rpcError {
	x := s.exts.Load()
	if x == nil || len(x.listen) == 0 {
		f.TaskIDs = nil
		return nil
	}
	lf := &ListenFilter{TaskIDs: f.TaskIDs}
	for _, h := range x.listen {
		if err := h(ctx, lf); err != nil {
			return extError(c, c.msg.Method, err)
		}
	}
	f.TaskIDs = lf.TaskIDs
	return nil
}

// extError maps an extension's error (a method's, an interceptor's) to the
// JSON-RPC error the core would send.
func extError(c *call, what string, err error) *rpcError {
	var re *RPCError
	switch {
	case errors.As(err, &re):
		return &rpcError{code: re.Code, msg: re.Message, data: re.Data}
	case errors.Is(err, ErrResourceNotFound):
		return notFound(c, c.msg.params.URI)
	case errors.Is(err, errPanic):
		return errorf(CodeInternalError, "internal error in %s", what)
	}
	return errorf(CodeInternalError, "%s: %v", what, err)
}

// extNotify hands a notification to the extension method serving it; false
// when none does.
func (s *Server) extNotify(ctx context.Context, m *Message, sess *Session) bool {
	x := s.exts.Load()
	if x == nil {
		return false
	}
	meth := x.methods[m.Method]
	if meth == nil || !meth.Notification {
		return false
	}
	if (m.Era == EraModern && meth.Legacy && !meth.Modern) || (m.Era == EraLegacy && meth.Modern && !meth.Legacy) {
		return false
	}
	req := &MethodRequest{Method: m.Method, Params: m.Params, Session: sess}
	_, err := recovered(s, "extension notification panicked", "method", meth.Name, func() (json.RawMessage, error) { return meth.Handle(ctx, req) })
	if err != nil {
		s.logger.Warn("extension notification failed", "method", meth.Name, "err", err)
	}
	return true
}

// withRoutes has ListenAndServe's mux serve the extensions' routes
// (Extension.Routes) beside the endpoint at opts.Path.
func (s *Server) withRoutes(opts HTTPOptions) HTTPOptions {
	x := s.exts.Load()
	if x == nil || len(x.routes) == 0 {
		return opts
	}
	mount, endpoint := opts.Mount, opts.Path
	opts.Mount = func(mux *http.ServeMux, path string, mcp http.Handler) {
		if mount != nil {
			mount(mux, path, mcp) // authentication in front of the endpoint, not of the routes
		} else {
			mux.Handle(path, mcp)
		}
		for _, r := range x.routes {
			r(mux, endpoint)
		}
	}
	return opts
}

// headerKey is the context key of an HTTP request's headers, set for
// Extension.Observe only when an extension observes.
type headerKey struct{}

// withHeaders gives r's context its headers when an extension observes
// messages (MessageInfo.Header).
func (s *Server) withHeaders(r *http.Request) *http.Request {
	if x := s.exts.Load(); x == nil || len(x.observers) == 0 {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), headerKey{}, r.Header))
}

// observe starts the observation of message m by every observing
// extension: the context to serve it under and the function its outcome
// goes to (nil when no extension observes).
func (s *Server) observe(ctx context.Context, m *Message, sess *Session) (context.Context, func(Outcome)) {
	x := s.exts.Load()
	if x == nil || len(x.observers) == 0 {
		return ctx, nil
	}
	info := &MessageInfo{Method: m.Method, Modern: m.Era == EraModern, Params: m.Params, Session: sess}
	switch {
	case info.Modern && m.params.Meta != nil:
		info.Revision, _ = rawString(m.params.Meta.ProtocolVersion)
	case !info.Modern && sess != nil:
		info.Revision = sess.ProtocolVersion()
	}
	if m.Kind == KindRequest {
		info.ID = m.ID
	}
	info.Header, _ = ctx.Value(headerKey{}).(http.Header)
	ends := make([]func(Outcome), 0, len(x.observers))
	for _, o := range x.observers {
		var end func(Outcome)
		ctx, end = o(ctx, info)
		if end != nil {
			ends = append(ends, end)
		}
	}
	return ctx, func(out Outcome) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](out)
		}
	}
}

// outcome is the Outcome of a reply r of call c (nil c: refused at admission).
func outcome(c *call, r Reply, aborted bool) Outcome {
	o := Outcome{Code: r.Code, Aborted: aborted}
	if c != nil && c.fx != nil {
		o.ToolError, o.Idempotency = c.fx.errCode, c.fx.idempotency
	}
	return o
}

// observeCall starts the observation of an admitted call that is about to
// run (stdio), returning the context to run it under.
func (s *Server) observeCall(ctx context.Context, c *call) context.Context {
	if x := s.exts.Load(); x == nil || len(x.observers) == 0 {
		return ctx
	}
	ctx, c.observed = s.observe(ctx, c.msg, c.sess)
	c.effects()
	return ctx
}

// wrap returns h inside the interceptors ics (tools/call, resources/read,
// prompts/get), the first outermost.
func wrap[Req, Res any, H ~func(context.Context, Req) (Res, error), I ~func(context.Context, Req, H) (Res, error)](ics []I, h H) H {
	for i := len(ics) - 1; i >= 0; i-- {
		ic, next := ics[i], h
		h = func(ctx context.Context, req Req) (Res, error) { return ic(ctx, req, next) }
	}
	return h
}

// intercepted runs the rest of a tools/call (afterAuthorize) inside the
// extensions' interceptors; a panicking interceptor fails the call as a
// panicking handler does.
func (s *Server) intercepted(ctx context.Context, c *call, e *toolEntry, x *extSet) (*ToolResult, error) {
	h := wrap(x.toolCall, ToolHandler(func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
		hc := callFrom(ctx)
		if hc == nil || hc == c || hc.srv != s {
			return s.afterAuthorize(ctx, c, e, req)
		}
		res, err := s.afterAuthorize(ctx, hc, e, req) // detached (Detach): the rest runs as hc
		if d := hc.deniedScope(); d != nil {          // RequireScope: the request's answer says so
			c.mu.Lock()
			c.denied = d
			c.mu.Unlock()
		}
		return res, err
	}))
	return recovered(s, "tool interceptor panicked", "tool", e.tool.Name, func() (*ToolResult, error) { return h(ctx, &c.toolReq) })
}

// variant returns the tools/list variant of a request: each view's variant
// in a byte of its own; 0 for the unchanged list.
func (x *extSet) variant(info *RequestInfo) uint64 {
	var v uint64
	for i, view := range x.views {
		v |= uint64(view.Variant(info)) << (8 * i)
	}
	return v
}

// toolsVariant answers tools/list for a variant v of the list (ToolsView):
// each page built once per snapshot, era and variant, like the plain list.
func (s *Server) toolsVariant(ctx context.Context, c *call, set *toolset.Set[*toolEntry], start int, x *extSet, v uint64) ([]byte, *rpcError) {
	size, hide := s.opts.PageSize, s.opts.HideUnauthorized
	var slot *atomic.Pointer[[]byte]
	if !hide && start%size == 0 {
		slot = set.VariantSlot(toolset.VariantKey{Modern: c.info.Modern, Variant: v, Page: start / size})
		if b := slot.Load(); b != nil {
			return *b, nil
		}
	}
	b, failed, err := toolset.VariantPage(set, start, size, c.info.Modern, func(e *toolEntry) (toolset.Tool, bool, bool) {
		if hide && !s.mayList(ctx, e) {
			return toolset.Tool{}, false, false
		}
		t := e.tool
		for i, view := range x.views {
			if vi := uint8(v >> (8 * i)); vi != 0 && t != nil {
				t = view.Show(vi, t)
			}
		}
		switch t {
		case nil:
			return toolset.Tool{}, false, false
		case e.tool:
			return toolset.Tool{}, true, true
		}
		return wireTool(t), false, true
	})
	if err != nil {
		s.logger.Error("tool cannot be listed", "tool", failed, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s cannot be listed", failed)
	}
	b = s.closeToolsPage(b, c.info.Modern)
	if slot != nil {
		b = b[:len(b):len(b)]
		slot.Store(&b)
	}
	return b, nil
}

// auditAttrs returns the extensions' attributes for the audit record of the
// request served under ctx (none before the call began).
func (s *Server) auditAttrs(ctx *callCtx) []slog.Attr {
	x := s.exts.Load()
	if x == nil || len(x.audit) == 0 || ctx.Context == nil {
		return nil
	}
	var attrs []slog.Attr
	for _, f := range x.audit {
		attrs = append(attrs, f(ctx)...)
	}
	return attrs
}

// stopExtensions runs the extensions' Shutdown at the end of ServeStdio,
// bounded by Options.DrainTimeout.
func (s *Server) stopExtensions(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.DrainTimeout)
	defer cancel()
	if err := s.shutdownExtensions(ctx); err != nil {
		s.logger.Warn("extension shutdown", "err", err)
	}
}

// A stageEnd ends a stage for the observers that saw it start; nil when none
// did (no allocation).
type stageEnd []func(error)

// stage tells the extensions observing stages that stage st of call c
// starts.
func (c *call) stage(ctx context.Context, st Stage) stageEnd {
	x := c.srv.exts.Load()
	if x == nil || len(x.stages) == 0 {
		return nil
	}
	var ends stageEnd
	for _, o := range x.stages {
		if end := o(ctx, st); end != nil {
			ends = append(ends, end)
		}
	}
	return ends
}

// end reports the stage's end with err (nil: it passed).
func (e stageEnd) end(err error) {
	for i := len(e) - 1; i >= 0; i-- {
		e[i](err)
	}
}

// Notify sends the client a notification about the request ctx belongs to,
// where the request's own notifications go (its SSE stream over HTTP, the
// connection on stdio, the session otherwise), e.g. an extension's status
// notification. Outside a request it does nothing; after the request was
// answered it returns ErrRequestDone.
func Notify(ctx context.Context, method string, params any) error {
	c := callFrom(ctx)
	if c == nil {
		return nil
	}
	return c.send(ctx, method, params)
}

// advertisedBy returns what e's Advertise adds to empty capabilities of
// revision (nil when it panics), to check that it encodes.
func advertisedBy(e *Extension, revision string) (caps map[string]any) {
	defer func() {
		if recover() != nil {
			caps = map[string]any{"": make(chan int)} // fails to encode
		}
	}()
	caps = map[string]any{}
	e.Advertise(revision, caps)
	return caps
}
