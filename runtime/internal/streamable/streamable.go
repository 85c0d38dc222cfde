// Package streamable is the Streamable HTTP transport of one MCP server: the
// Host and Origin checks, the routing of POST, GET and DELETE, reading a
// body, deciding a message's era, the 2026-07-28 stateless requests (their
// bound, their cancellation on disconnect) and the 2025-11-25 sessions (the
// Mcp-Session-Id and MCP-Protocol-Version rules, the caller a session is
// bound to, the streams of its requests and its GET stream, DELETE), the
// batches of 2025-03-26 sessions, and shutdown. What a message is, and how it
// is served, are the runtime's (Config): M is its message, C its session.
package streamable

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/legacysse"
	"github.com/mcpgen/mcpgen/runtime/internal/revision"
)

// The JSON-RPC error codes the transport answers with (those of package runtime).
const (
	codeInvalidRequest = -32600
	codeInternalError  = -32603
	codeHeaderMismatch = -32020
)

// BusyMessage is the error message of a request refused because too many
// run already (the stdio transport answers the same).
const BusyMessage = "server busy: too many requests in flight"

// A Conn is the server's side of a 2025-11-25 session.
type Conn interface {
	httpsession.Conn
	// ProtocolVersion is the revision the session negotiated ("" before).
	ProtocolVersion() string
}

// A Sink takes the messages a server sends on its own.
type Sink interface {
	Send(ctx context.Context, msg []byte) error
}

// A Kind is the kind of a JSON-RPC message.
type Kind int

// The kinds of message, as internal/jsonrpc (and runtime.Kind) number them.
const (
	Request      Kind = jsonrpc.KindRequest
	Notification Kind = jsonrpc.KindNotification
	Response     Kind = jsonrpc.KindResponse
)

// Info is what the transport reads of a parsed message.
type Info struct {
	Kind   Kind
	ID     json.RawMessage
	Method string
	Modern bool // its _meta says 2026-07-28

	// What a 2026-07-28 request's headers are checked against: whether its
	// _meta has the fields whose absence is a -32602 (checked before the
	// headers, by the server), its params, the version its _meta names, and
	// for tools/call its tool and arguments.
	MetaComplete bool
	Params       json.RawMessage
	Version      string
	Tool         string
	Arguments    json.RawMessage
}

// Options are the transport's share of runtime.HTTPOptions, defaults applied.
type Options struct {
	AllowedOrigins, AllowedHosts []string
	MaxBodyBytes                 int64
	BodyTimeout                  time.Duration
	MaxSessions                  int
	MaxSessionsPerPeer           int
	SessionIdleTimeout           time.Duration
	SessionPrefix                string // starts every session id
	MaxStatelessRequests         int
	// MaxListenStreams bounds the open 2026-07-28 subscriptions/listen
	// streams in all, MaxListenStreamsPerClient those of one client
	// (ListenClient); they do not count against MaxStatelessRequests.
	MaxListenStreams, MaxListenStreamsPerClient int
	MaxConcurrentRequests                       int // per 2025-11-25 session
	SSERetry, KeepAlive                         time.Duration
}

// Config is what the transport needs of the server.
type Config[C Conn, M any] struct {
	Options
	Log *slog.Logger
	// Admit gives a request its principal when it has none (or returns it).
	Admit func(r *http.Request) *http.Request
	// BoundTo reports whether r comes from the caller that opened hs;
	// Caller identifies that caller when a session opens.
	// OtherCaller is the refusal of a request of another caller.
	BoundTo     func(hs *httpsession.Session[C], r *http.Request) bool
	Caller      func(r *http.Request) string
	OtherCaller string
	// ListenClient names the client whose subscriptions/listen streams
	// MaxListenStreamsPerClient bounds.
	ListenClient func(r *http.Request) string
	// NewConn makes the server side of a new session with the given id,
	// whose messages of its own go to standalone.
	NewConn func(id string, standalone *httpstream.Exchange) C
	// EndStreams ends the server's long-lived streams beside the sessions'
	// (2026-07-28 subscriptions/listen, the HTTP+SSE transport's).
	EndStreams func()

	// Parse reads a POSTed message. A body that is not one gets either the
	// reply bad, or (bad nil) a 400 with err.
	Parse func(body []byte) (m M, info Info, bad *httpstream.Reply, err error)
	// SetModern marks a message served as 2026-07-28 (decided by a header).
	SetModern func(M)
	// ParamHeaders returns the Mcp-Param-* headers tool's inputSchema
	// declares (x-mcp-header); ok false for an unknown tool.
	ParamHeaders func(tool string) (anns []httpcheck.ParamHeader, ok bool)
	// Handle serves a message at once (a notification, a client response,
	// initialize), ok false when its reply is missing or an error (initialize
	// then opens no session); Serve serves a request whose messages go to x,
	// handing its reply to done (nil: x.Finish), which a deadline may call
	// before Serve returns (httpstream.Reply.Late). conn is the zero C without
	// a session.
	// out, when not nil, takes what the message sends on its own (HTTP+SSE).
	Handle func(ctx context.Context, m M, conn C, out Sink) (reply httpstream.Reply, ok bool)
	Serve  func(ctx context.Context, m M, conn C, x *httpstream.Exchange, done func(httpstream.Reply))
	// Go runs f on another goroutine: Serve, for a response that cannot be
	// served inline (httpstream.CanServeInline).
	Go func(f func())
	// Batch serves a JSON-RPC batch of a session that takes them (2025-03-26),
	// its own messages going to out; ok false: conn takes none.
	IsBatch    func(body []byte) bool
	TakesBatch func(conn C) bool
	Batch      func(ctx context.Context, body []byte, conn C, out Sink) []byte
}

// A Handler is the Streamable HTTP transport of one server.
type Handler[C Conn, M any] struct {
	cfg      Config[C, M]
	Sessions *httpsession.Store[C]
	// background counts 2025-11-25 handlers still running after their client
	// disconnected (disconnecting is not cancelling in that era).
	background sync.WaitGroup
	// stateless counts the 2026-07-28 requests in flight (MaxStatelessRequests).
	stateless atomic.Int64
	// listens counts the open subscriptions/listen streams, in all and per client.
	listens listenBound
	// bodyTimeoutWarning logs once that BodyTimeout cannot be enforced.
	bodyTimeoutWarning sync.Once
	// closing is set by Shutdown: new requests get 503.
	closing atomic.Bool
}

// New returns the transport of cfg.
func New[C Conn, M any](cfg Config[C, M]) *Handler[C, M] {
	o := cfg.Options
	return &Handler[C, M]{cfg: cfg, Sessions: httpsession.NewStore(o.MaxSessions, o.MaxSessionsPerPeer, o.SessionIdleTimeout, o.SessionPrefix, cfg.NewConn)}
}

// EndStreams ends the long-lived streams, which would otherwise hold up a
// graceful shutdown: the sessions' GET streams, and the server's own.
func (h *Handler[C, M]) EndStreams() {
	h.Sessions.EndStreams()
	h.cfg.EndStreams()
}

// Shutdown refuses new requests, ends the long-lived streams, waits (until
// ctx is done) for background handlers, then ends every session.
func (h *Handler[C, M]) Shutdown(ctx context.Context) error {
	h.closing.Store(true)
	h.EndStreams()
	done := make(chan struct{})
	go func() { h.background.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("drain background requests: %w", ctx.Err())
	}
	h.Sessions.CloseAll()
	return err
}

// Admit checks a request's Host and Origin, answering 403 itself, and gives
// it its principal.
func (h *Handler[C, M]) Admit(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	r = h.cfg.Admit(r)
	if !httpcheck.HostAllowed(r.Host, h.cfg.AllowedHosts) {
		Refuse(w, http.StatusForbidden, nil, codeInvalidRequest, "forbidden: host not allowed")
		return nil, false
	}
	if !httpcheck.OriginAllowed(r.Header.Get("Origin"), h.cfg.AllowedOrigins) {
		Refuse(w, http.StatusForbidden, nil, codeInvalidRequest, "forbidden: origin not allowed")
		return nil, false
	}
	return r, true
}

// ServeHTTP implements http.Handler.
func (h *Handler[C, M]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := h.Admit(w, r)
	if !ok {
		return
	}
	if h.closing.Load() {
		Refuse(w, http.StatusServiceUnavailable, nil, codeInternalError, "server shutting down")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePost(w, r)
	case http.MethodGet:
		h.serveGet(w, r)
	case http.MethodDelete:
		h.serveDelete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		Refuse(w, http.StatusMethodNotAllowed, nil, codeInvalidRequest, "method not allowed")
	}
}

// Refuse writes a JSON-RPC error response with the given HTTP status; id
// may be nil.
func Refuse(w http.ResponseWriter, status int, id []byte, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.ErrorResponse(id, code, msg, nil))
}

// Busy answers a request beyond the concurrency bound of its session
// (2025-11-25) or of the handler (2026-07-28): 503 and -32603, as
// MaxSessions does for sessions.
func Busy(w http.ResponseWriter, id []byte) {
	Refuse(w, http.StatusServiceUnavailable, id, codeInternalError, BusyMessage)
}

// ReadBody reads a POST body of at most MaxBodyBytes (httpcheck.ReadBody),
// answering 413, 415 or 400 itself when it cannot; ok is false then.
func (h *Handler[C, M]) ReadBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, berr := httpcheck.ReadBody(w, r, h.cfg.MaxBodyBytes, h.cfg.BodyTimeout, func(err error) { h.warnBodyTimeout(w, err) })
	if berr != nil {
		Refuse(w, berr.Status, nil, berr.Code, berr.Msg)
		return nil, false
	}
	return body, true
}

// warnBodyTimeout logs, once per handler, that BodyTimeout cannot be enforced:
// the ResponseWriter (typically a middleware's wrapper without an Unwrap
// method) does not reach the connection's SetReadDeadline.
func (h *Handler[C, M]) warnBodyTimeout(w http.ResponseWriter, err error) {
	h.bodyTimeoutWarning.Do(func() {
		h.cfg.Log.Warn("HTTPOptions.BodyTimeout is not enforced: the ResponseWriter cannot set a read deadline; "+
			"give the middleware's ResponseWriter wrapper an Unwrap method, or set http.Server.ReadTimeout",
			"writer", fmt.Sprintf("%T", w), "err", err)
	})
}

// servePost serves one JSON-RPC message POSTed by a client of either era.
func (h *Handler[C, M]) servePost(w http.ResponseWriter, r *http.Request) {
	body, ok := h.ReadBody(w, r)
	if !ok {
		return
	}
	if h.cfg.IsBatch(body) && h.serveBatch(w, r, body) {
		return
	}
	m, info, bad, err := h.cfg.Parse(body)
	if err != nil {
		if bad == nil {
			Refuse(w, http.StatusBadRequest, nil, codeInvalidRequest, err.Error())
			return
		}
		httpstream.WriteReply(w, nil, *bad)
		return
	}
	if modern(&info, r.Header) {
		h.cfg.SetModern(m)
		h.serveModern(w, r, m, &info)
		return
	}
	h.serveLegacy(w, r, m, &info)
}

// modern decides the era of a POSTed message: 2026-07-28 when its _meta
// says so or its MCP-Protocol-Version header names a version that is not a
// 2025-or-earlier one. Client responses are always 2025-11-25.
func modern(info *Info, h http.Header) bool {
	if info.Kind == Response {
		return false
	}
	if info.Modern {
		return true
	}
	v, ok := httpcheck.HeaderValue(h, httpcheck.HeaderProtocolVersion)
	return ok && !revision.Handshake(v)
}

// serveModern serves a 2026-07-28 message: stateless, no session, headers
// checked against the body, and the request cancelled when the client closes
// the response.
func (h *Handler[C, M]) serveModern(w http.ResponseWriter, r *http.Request, m M, info *Info) {
	var none C
	if info.Kind == Notification {
		h.cfg.Handle(r.Context(), m, none, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The spec orders the checks: _meta fields (-32602, the server's), then
	// headers (-32020), then version (-32022) and method (-32601).
	if err := h.checkHeaders(r.Header, info); err != nil {
		httpstream.WriteReply(w, nil, httpstream.Reply{Body: jsonrpc.ErrorResponse(info.ID, codeHeaderMismatch, err.Error(), nil),
			Status: http.StatusBadRequest})
		return
	}
	if info.Method == "subscriptions/listen" {
		// A listen stream stays open: it has bounds of its own, so that one
		// client's streams cannot take every MaxStatelessRequests slot.
		client := h.cfg.ListenClient(r)
		if refusal := h.listens.enter(client, h.cfg.MaxListenStreams, h.cfg.MaxListenStreamsPerClient); refusal != "" {
			Refuse(w, http.StatusServiceUnavailable, info.ID, codeInternalError, refusal)
			return
		}
		defer h.listens.leave(client)
	} else {
		if h.stateless.Add(1) > int64(h.cfg.MaxStatelessRequests) {
			h.stateless.Add(-1)
			Busy(w, info.ID)
			return
		}
		defer h.stateless.Add(-1)
	}
	x := httpstream.New("", httpstream.AcceptsStream(r))
	p := &httpstream.Pump{X: x, W: w, KeepAlive: h.cfg.KeepAlive}
	h.serve(r, p, func() { h.cfg.Serve(r.Context(), m, none, x, nil) })
	x.Wait() // after a disconnect the handler is cancelled; wait for its reply
}

// serve runs a request's handler (serve) and answers r with p: the handler
// runs on r's own goroutine where the response can end without it
// (httpstream.ServeInline), else on another (Config.Go) while this one pumps.
// It reports what ServeRequest does.
func (h *Handler[C, M]) serve(r *http.Request, p *httpstream.Pump, serve func()) (detached bool) {
	if httpstream.CanServeInline(p.W, r) {
		return p.ServeInline(r, serve)
	}
	h.cfg.Go(serve)
	return p.ServeRequest(r.Context())
}

// The refusals of a subscriptions/listen stream beyond its bounds (503, -32603).
const (
	TooManyListens       = "too many subscriptions/listen streams"
	TooManyClientListens = "too many subscriptions/listen streams from this client"
)

// A listenBound counts open subscriptions/listen streams, in all and per client.
type listenBound struct {
	mu       sync.Mutex
	n        int
	byClient map[string]int
}

// enter counts a stream of client unless max are open, or perClient of
// client's; it returns the refusal otherwise.
func (b *listenBound) enter(client string, max, perClient int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.n >= max:
		return TooManyListens
	case b.byClient[client] >= perClient:
		return TooManyClientListens
	}
	if b.byClient == nil {
		b.byClient = map[string]int{}
	}
	b.n++
	b.byClient[client]++
	return ""
}

// leave ends what enter counted.
func (b *listenBound) leave(client string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n--
	if b.byClient[client] <= 1 {
		delete(b.byClient, client)
	} else {
		b.byClient[client]--
	}
}

// checkHeaders validates a 2026-07-28 request's standard headers and, for
// tools/call, the Mcp-Param-* headers of its tool; a request whose _meta is
// incomplete is left to the server (-32602 comes first).
func (h *Handler[C, M]) checkHeaders(hdr http.Header, info *Info) error {
	if !info.MetaComplete {
		return nil
	}
	if err := httpcheck.CheckStandard(hdr, info.Method, info.Params, info.Version); err != nil {
		return err
	}
	if info.Method != "tools/call" {
		return nil
	}
	anns, ok := h.cfg.ParamHeaders(info.Tool)
	if !ok {
		return nil // unknown tool: the server answers -32602
	}
	return httpcheck.CheckParams(hdr, anns, info.Arguments)
}

// serveLegacy serves a 2025-11-25 message: initialize opens a session, and
// everything else must name a live one with Mcp-Session-Id.
func (h *Handler[C, M]) serveLegacy(w http.ResponseWriter, r *http.Request, m M, info *Info) {
	id := strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID))
	if id == "" {
		switch {
		case info.Kind == Request && info.Method == "initialize":
			h.initialize(w, r, m, info)
		case info.Kind == Notification:
			// Nothing to route it to, nothing lost by accepting it: e.g. the
			// notifications/cancelled some clients POST, headerless, after
			// closing a 2026-07-28 stream (the close already cancelled).
			var none C
			h.cfg.Handle(r.Context(), m, none, nil)
			w.WriteHeader(http.StatusAccepted)
		default:
			Refuse(w, http.StatusBadRequest, info.ID, codeInvalidRequest, "missing Mcp-Session-Id header")
		}
		return
	}
	hs, ok := h.Sessions.Get(id)
	if !ok {
		Refuse(w, http.StatusNotFound, info.ID, codeInvalidRequest, "unknown or terminated session")
		return
	}
	if !h.cfg.BoundTo(hs, r) {
		Refuse(w, http.StatusForbidden, info.ID, codeInvalidRequest, h.cfg.OtherCaller)
		return
	}
	if !versionOK(w, r, hs, info.ID) {
		return
	}
	if info.Kind != Request {
		// Notifications and the client's responses to server requests.
		h.cfg.Handle(r.Context(), m, hs.Conn, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.request(w, r, hs, m, info)
}

// initialize answers an initialize request and, when it succeeds, opens a
// session whose id travels in the Mcp-Session-Id response header.
func (h *Handler[C, M]) initialize(w http.ResponseWriter, r *http.Request, m M, info *Info) {
	peer, caller := httpsession.PeerOf(r), h.cfg.Caller(r)
	hs, err := h.Sessions.Create(peer, peer+" "+caller)
	if err != nil {
		Refuse(w, http.StatusServiceUnavailable, info.ID, codeInternalError, err.Error())
		return
	}
	reply, ok := h.cfg.Handle(r.Context(), m, hs.Conn, nil)
	if !ok {
		h.Sessions.Release(hs)
		httpstream.WriteReply(w, nil, reply)
		return
	}
	hs.Caller = caller
	h.Sessions.Add(hs)
	hdr := http.Header{httpcheck.HeaderSessionID: {hs.ID}}
	if reply.Status == http.StatusOK && preferStream(r, hs.Conn.ProtocolVersion()) {
		// As the session's other requests are (preferStream): clients of
		// those revisions that read POST responses only as event streams
		// (the official Go SDK v0.2.0) fail at initialize otherwise.
		httpstream.WriteEvent(w, hdr, reply.Body)
		return
	}
	httpstream.WriteReply(w, hdr, reply)
}

// exchangeKey is the context key of the exchange a 2025-11-25 request streams to.
type exchangeKey struct{}

// ExchangeFrom returns the exchange a 2025-11-25 request's handler streams
// to, from its context.
func ExchangeFrom(ctx context.Context) (*httpstream.Exchange, bool) {
	x, ok := ctx.Value(exchangeKey{}).(*httpstream.Exchange)
	return x, ok
}

// request serves a request of a session. A disconnect does not cancel it
// (that era cancels with notifications/cancelled): the handler runs on, and
// its stream stays resumable with Last-Event-ID.
func (h *Handler[C, M]) request(w http.ResponseWriter, r *http.Request, hs *httpsession.Session[C], m M, info *Info) {
	if !hs.AdmitRequest(h.cfg.MaxConcurrentRequests) {
		Busy(w, info.ID)
		return
	}
	x := hs.NewStream(httpstream.AcceptsStream(r))
	version := hs.Conn.ProtocolVersion()
	if preferStream(r, version) {
		x.StreamNow()
	}
	ctx := context.WithValue(context.WithoutCancel(r.Context()), exchangeKey{}, x)
	h.background.Add(1)
	p := &httpstream.Pump{X: x, W: w, Retry: h.cfg.SSERetry, KeepAlive: h.cfg.KeepAlive, NoPrime: revision.Older(version)}
	detached := h.serve(r, p, func() {
		h.cfg.Serve(ctx, m, hs.Conn, x, func(rep httpstream.Reply) {
			x.Finish(rep)
			hs.LeaveRequest()
			h.background.Done()
		})
	})
	if !detached {
		hs.DropStream(x)
	}
}

// serveGet opens a session's standalone SSE stream, or resumes a stream named
// by Last-Event-ID.
func (h *Handler[C, M]) serveGet(w http.ResponseWriter, r *http.Request) {
	hs, ok := h.sessionFor(w, r)
	if !ok {
		return
	}
	if !httpstream.AcceptsStream(r) {
		Refuse(w, http.StatusNotAcceptable, nil, codeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	defer hs.Enter()()
	p := &httpstream.Pump{X: hs.Standalone, W: w, Retry: h.cfg.SSERetry, KeepAlive: h.cfg.KeepAlive,
		NoPrime: revision.Older(hs.Conn.ProtocolVersion())}
	after := hs.Standalone.DeliveredSeq()
	if last := strings.TrimSpace(r.Header.Get(httpcheck.HeaderLastEventID)); last != "" {
		if x, seq, ok := hs.Resume(last); ok {
			p.X, after = x, seq
		}
	}
	if p.ServeStream(r.Context(), after) && p.X != hs.Standalone {
		hs.DropStream(p.X)
	}
}

// serveDelete ends a session.
func (h *Handler[C, M]) serveDelete(w http.ResponseWriter, r *http.Request) {
	hs, ok := h.sessionFor(w, r)
	if !ok {
		return
	}
	h.Sessions.Remove(hs.ID)
	w.WriteHeader(http.StatusNoContent)
}

// sessionFor finds the session a GET or DELETE names, answering the error
// itself when there is none: 405 without Mcp-Session-Id (2026-07-28 has no
// GET or DELETE), 404 for an unknown or ended session, 400 for a version
// header of the wrong era.
func (h *Handler[C, M]) sessionFor(w http.ResponseWriter, r *http.Request) (*httpsession.Session[C], bool) {
	id := strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID))
	if id == "" {
		w.Header().Set("Allow", "POST")
		Refuse(w, http.StatusMethodNotAllowed, nil, codeInvalidRequest, r.Method+" needs an Mcp-Session-Id")
		return nil, false
	}
	if v, ok := httpcheck.HeaderValue(r.Header, httpcheck.HeaderProtocolVersion); ok && !revision.Handshake(v) {
		Refuse(w, http.StatusBadRequest, nil, codeInvalidRequest, "unsupported MCP-Protocol-Version "+v)
		return nil, false
	}
	hs, ok := h.Sessions.Get(id)
	if !ok {
		Refuse(w, http.StatusNotFound, nil, codeInvalidRequest, "unknown or terminated session")
		return nil, false
	}
	if !h.cfg.BoundTo(hs, r) {
		Refuse(w, http.StatusForbidden, nil, codeInvalidRequest, h.cfg.OtherCaller)
		return nil, false
	}
	return hs, versionOK(w, r, hs, nil)
}

// versionOK checks a session request's MCP-Protocol-Version header against
// the revision the session negotiated, answering 400 itself when they differ.
// 2025-03-26 clients send no header, and a 2025-06-18 server receiving none
// assumes 2025-03-26: a missing header is accepted on every session (the session
// knows its revision). A header naming another revision is refused.
func versionOK[C Conn](w http.ResponseWriter, r *http.Request, hs *httpsession.Session[C], id []byte) bool {
	v, ok := httpcheck.HeaderValue(r.Header, httpcheck.HeaderProtocolVersion)
	if !ok {
		return true
	}
	if negotiated := hs.Conn.ProtocolVersion(); negotiated != "" && v != negotiated {
		Refuse(w, http.StatusBadRequest, id, codeInvalidRequest,
			"MCP-Protocol-Version "+v+" does not match the session's negotiated version "+negotiated)
		return false
	}
	return true
}

// preferStream reports whether a POST of a session answers with an SSE stream even
// when nothing is sent before the reply. Clients of the revisions before
// 2025-11-25 that name text/event-stream in Accept get one: some of their SDK
// releases read a POST's response only as an event stream (the revisions let the
// server pick either when the client accepts both). 2025-11-25 clients keep plain
// JSON, which every client of that revision reads. (Resumable streams of those
// revisions also start without the priming event: 2025-11-25 introduced it, and
// earlier clients' SSE readers try to decode its empty data as JSON-RPC.)
func preferStream(r *http.Request, version string) bool {
	if !revision.Older(version) {
		return false
	}
	for _, part := range strings.Split(strings.Join(r.Header.Values("Accept"), ","), ",") {
		mt, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
			return true
		}
	}
	return false
}

// serveBatch serves a POSTed JSON-RPC batch when the Mcp-Session-Id names a
// session that takes batches (2025-03-26): one JSON array of responses, or
// 202 when none is owed. Messages the batch's requests send on their own go
// to the session's standalone stream. It reports false, writing nothing, for
// any other POST, which is then refused as a single message would be.
func (h *Handler[C, M]) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) bool {
	hs, ok := h.Sessions.Get(strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID)))
	if !ok {
		return false
	}
	// The caller check comes first, as for a single message: a batch from
	// another caller must not answer or cancel the session's pending
	// server-to-client requests, nor learn whether the session takes batches.
	if !h.cfg.BoundTo(hs, r) {
		Refuse(w, http.StatusForbidden, nil, codeInvalidRequest, h.cfg.OtherCaller)
		return true
	}
	if !h.cfg.TakesBatch(hs.Conn) {
		return false
	}
	if !versionOK(w, r, hs, nil) {
		return true
	}
	if !hs.AdmitRequest(h.cfg.MaxConcurrentRequests) {
		Busy(w, nil)
		return true
	}
	defer hs.LeaveRequest()
	out := h.cfg.Batch(r.Context(), body, hs.Conn, hs.Standalone)
	httpstream.WriteReply(w, nil, httpstream.Reply{Body: out, Status: http.StatusOK})
	return true
}

// LegacySSE returns the HTTP+SSE transport of 2024-11-05 beside this one
// (runtime/internal/legacysse): the event stream at streamPath, messages
// POSTed to messagePath, with this transport's Host and Origin checks, body
// limits, MaxSessions, MaxSessionsPerPeer, SessionIdleTimeout,
// MaxConcurrentRequests and keep-alives. Its sessions are
// the server's: newConn opens one whose messages go to out, end ends it when
// its stream closes, closed is what a send returns once the stream is gone.
func (h *Handler[C, M]) LegacySSE(streamPath, messagePath string, closed error, newConn func(out legacysse.Sink) C, end func(C)) *legacysse.Transport[C] {
	return legacysse.New(legacysse.Config[C]{
		StreamPath: streamPath, MessagePath: messagePath,
		MaxSessions: h.cfg.MaxSessions, MaxSessionsPerPeer: h.cfg.MaxSessionsPerPeer,
		MaxConcurrentRequests: h.cfg.MaxConcurrentRequests, IdleTimeout: h.cfg.SessionIdleTimeout,
		KeepAlive: h.cfg.KeepAlive, Closed: closed, OtherCaller: h.cfg.OtherCaller,
		Admit: h.Admit, Caller: h.cfg.Caller, PeerOf: httpsession.PeerOf, ReadBody: h.ReadBody,
		Refuse: func(w http.ResponseWriter, status int, id []byte, msg string) {
			code := codeInvalidRequest
			if status == http.StatusServiceUnavailable {
				code = codeInternalError
			}
			Refuse(w, status, id, code, msg)
		},
		Busy: Busy, NewSession: newConn, EndSession: end, Post: h.ssePost,
	})
}

// ssePost serves one message (or, on a session that takes them, a batch)
// POSTed to an HTTP+SSE session: what it is owed goes to the stream, out.
func (h *Handler[C, M]) ssePost(w http.ResponseWriter, ctx context.Context, conn C, body []byte, out legacysse.Sink, run func(id []byte, f func())) {
	if h.cfg.IsBatch(body) && h.cfg.TakesBatch(conn) {
		run(nil, func() {
			if b := h.cfg.Batch(ctx, body, conn, out); b != nil {
				_ = out.Send(ctx, b)
			}
		})
		return
	}
	m, info, bad, err := h.cfg.Parse(body)
	if err != nil {
		if bad == nil {
			Refuse(w, http.StatusBadRequest, nil, codeInvalidRequest, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(bad.Body)
		return
	}
	if info.Kind != Request {
		h.cfg.Handle(ctx, m, conn, out)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	run(info.ID, func() {
		if reply, _ := h.cfg.Handle(ctx, m, conn, out); reply.Body != nil {
			_ = out.Send(ctx, reply.Body)
		}
	})
}
