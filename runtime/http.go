package runtime

// http.go: the Streamable HTTP transport's entry: HTTPHandler and ListenAndServe, each
// POST routed by era, errors and replies written.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// ErrNoStream reports a server-to-client request for a 2025-11-25 client whose
// Accept header rules out an SSE response, so the request cannot reach it.
var ErrNoStream = httpstream.ErrNoStream

// HTTPHandler returns an http.Handler serving the Streamable HTTP transport at
// whatever path it is mounted on. It serves 2026-07-28 clients (stateless, one
// POST per request, headers checked against the body) and 2025-11-25 clients
// (initialize, Mcp-Session-Id, GET stream, DELETE) side by side, deciding per
// request. Origin and Host are checked against DNS rebinding before anything
// else. opts may be nil.
//
// To mount it in your own mux, and shut it down with your http.Server:
//
//	h := s.HTTPHandler(nil)
//	mux.Handle("/mcp", h)
//	...
//	_ = h.Shutdown(ctx)   // ends GET and listen streams and sessions
//	_ = srv.Shutdown(ctx) // no stream holds it up now
func (s *Server) HTTPHandler(opts *HTTPOptions) *HTTPHandler {
	return &HTTPHandler{h: newHTTPHandler(s, opts.withDefaults())}
}

// An HTTPHandler serves the Streamable HTTP transport of one Server; see
// (*Server).HTTPHandler.
type HTTPHandler struct{ h *httpHandler }

// ServeHTTP implements http.Handler.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// Shutdown shuts the handler down, as ListenAndServe does on cancellation: new
// requests get 503, 2025-11-25 GET streams and 2026-07-28 subscriptions/listen
// streams end at once (so http.Server.Shutdown is not held up by them),
// 2025-11-25 requests still running after their client left get until ctx is
// done to finish, and then every session ends (what still runs is cancelled).
// Call it before, or alongside, the http.Server's Shutdown. It returns ctx's
// error when requests were cut short; calling it again does nothing more.
func (h *HTTPHandler) Shutdown(ctx context.Context) error { return h.h.shutdown(ctx) }

// ListenAndServe serves the Streamable HTTP transport on addr (default
// 127.0.0.1:8080) at opts.Path (default /mcp) until ctx is cancelled, then
// shuts down gracefully: new connections are refused, GET and listen streams end,
// in-flight requests get opts.ShutdownTimeout to finish. It returns nil
// after a clean shutdown.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	o := opts.withDefaults()
	h := newHTTPHandler(s, o)
	err := serveHTTP(ctx, addr, h.withLegacySSE(), o, h.endStreams, s.logger)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownTimeout)
	defer cancel()
	return errors.Join(err, h.shutdown(dctx))
}

// An httpHandler is the Streamable HTTP transport of one Server.
type httpHandler struct {
	srv      *Server
	opts     HTTPOptions
	sessions *sessionStore
	// background counts 2025-11-25 handlers still running after their client
	// disconnected (disconnecting is not cancelling in that era).
	background sync.WaitGroup
	// stateless counts the 2026-07-28 requests in flight (opts.MaxStatelessRequests).
	stateless atomic.Int64
	// bodyTimeoutWarning logs once that BodyTimeout cannot be enforced.
	bodyTimeoutWarning sync.Once
	// closing is set by shutdown: new requests get 503.
	closing atomic.Bool
	// legacy is the 2024-11-05 HTTP+SSE transport, when opts.LegacySSE.
	legacy *legacySSE
}

// newHTTPHandler returns a handler with resolved options.
func newHTTPHandler(s *Server, o HTTPOptions) *httpHandler {
	return &httpHandler{srv: s, opts: o, sessions: newSessionStore(s, o)}
}

// endStreams ends the long-lived streams, which would otherwise hold up a
// graceful shutdown: the sessions' GET streams, and 2026-07-28
// subscriptions/listen responses (they end with their final result).
func (h *httpHandler) endStreams() {
	h.sessions.EndStreams()
	if h.legacy != nil {
		h.legacy.EndStreams()
	}
	h.srv.EndSubscriptions(nil)
}

// shutdown refuses new requests, ends the long-lived streams, waits (until
// ctx is done) for background handlers, then ends every session.
func (h *httpHandler) shutdown(ctx context.Context) error {
	h.closing.Store(true)
	h.endStreams()
	done := make(chan struct{})
	go func() { h.background.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("drain background requests: %w", ctx.Err())
	}
	h.sessions.CloseAll()
	return err
}

// ServeHTTP implements http.Handler.
func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = h.anonymous(r)
	if !httpcheck.HostAllowed(r.Host, h.opts.AllowedHosts) {
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, "forbidden: host not allowed")
		return
	}
	if !httpcheck.OriginAllowed(r.Header.Get("Origin"), h.opts.AllowedOrigins) {
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, "forbidden: origin not allowed")
		return
	}
	if h.closing.Load() {
		httpError(w, http.StatusServiceUnavailable, nil, CodeInternalError, "server shutting down")
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
		httpError(w, http.StatusMethodNotAllowed, nil, CodeInvalidRequest, "method not allowed")
	}
}

// httpError writes a JSON-RPC error response with the given HTTP status; id
// may be nil.
func httpError(w http.ResponseWriter, status int, id []byte, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(ErrorResponse(id, code, msg, nil))
}

// busyMessage is the error message of a request refused because too many run
// already (the stdio transport answers the same).
const busyMessage = "server busy: too many requests in flight"

// httpBusy answers a request beyond the concurrency bound of its session (2025-11-25)
// or of the handler (2026-07-28): 503 and -32603, as MaxSessions does for sessions.
func httpBusy(w http.ResponseWriter, id []byte) {
	httpError(w, http.StatusServiceUnavailable, id, CodeInternalError, busyMessage)
}

// readBody reads a POST body of at most opts.MaxBodyBytes (httpcheck.ReadBody),
// answering 413, 415 or 400 itself when it cannot; ok is false then.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, berr := httpcheck.ReadBody(w, r, h.opts.MaxBodyBytes, h.opts.BodyTimeout, func(err error) { h.warnBodyTimeout(w, err) })
	if berr != nil {
		httpError(w, berr.Status, nil, berr.Code, berr.Msg)
		return nil, false
	}
	return body, true
}

// warnBodyTimeout logs, once per handler, that BodyTimeout cannot be enforced:
// the ResponseWriter (typically a middleware's wrapper without an Unwrap
// method) does not reach the connection's SetReadDeadline.
func (h *httpHandler) warnBodyTimeout(w http.ResponseWriter, err error) {
	h.bodyTimeoutWarning.Do(func() {
		h.srv.logger.Warn("HTTPOptions.BodyTimeout is not enforced: the ResponseWriter cannot set a read deadline; "+
			"give the middleware's ResponseWriter wrapper an Unwrap method, or set http.Server.ReadTimeout",
			"writer", fmt.Sprintf("%T", w), "err", err)
	})
}

// servePost serves one JSON-RPC message POSTed by a client of either era.
func (h *httpHandler) servePost(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if isBatch(body) && h.serveBatch(w, r, body) { // 2025-03-26 sessions (http_revisions.go)
		return
	}
	m, err := ParseMessage(body)
	if err != nil {
		reply := ErrorReply(err)
		if reply.Body == nil {
			httpError(w, http.StatusBadRequest, nil, CodeInvalidRequest, err.Error())
			return
		}
		writeReply(w, nil, reply)
		return
	}
	if modernRequest(m, r.Header) {
		m.Era = EraModern
		h.serveModern(w, r, m)
		return
	}
	h.serveLegacy(w, r, m)
}

// modernRequest decides the era of a POSTed message: 2026-07-28 when its
// _meta says so or its MCP-Protocol-Version header names a version that is
// not a 2025-or-earlier one. Client responses are always 2025-11-25.
func modernRequest(m *Message, h http.Header) bool {
	if m.Kind == KindResponse {
		return false
	}
	if m.Era == EraModern {
		return true
	}
	v, ok := httpcheck.HeaderValue(h, httpcheck.HeaderProtocolVersion)
	return ok && !legacyVersion(v)
}

// legacyVersion reports whether v is a protocol version of the
// initialize-handshake era.
func legacyVersion(v string) bool {
	switch v {
	case versionLegacy, "2025-06-18", "2025-03-26", "2024-11-05":
		return true
	}
	return false
}

// acceptsStream reports whether the client's Accept header admits an SSE response.
func acceptsStream(r *http.Request) bool { return httpstream.AcceptsStream(r) }

// serveHTTPMain serves Main's -http ADDR flag with opts (the defaults, plus what
// a registered MainAuth configured).
func (s *Server) serveHTTPMain(ctx context.Context, addr string, opts *HTTPOptions) error {
	return s.ListenAndServe(ctx, addr, opts)
}

// writeReply writes a JSON reply, or 202 Accepted when there is nothing to say.
func writeReply(w http.ResponseWriter, hdr http.Header, r Reply) {
	httpstream.WriteReply(w, hdr, streamReply(r))
}

// streamReply is r as an exchange carries it.
func streamReply(r Reply) httpstream.Reply {
	return httpstream.Reply{Body: r.Body, Status: r.HTTPStatus(), Challenge: r.Challenge}
}

// An exchangeReplier hands a request's reply to its exchange; it implements replier.
type exchangeReplier struct{ x *httpstream.Exchange }

func (e exchangeReplier) answer(r Reply) { e.x.Finish(streamReply(r)) }

// anonymous gives a request without a principal HTTPOptions.AnonymousPrincipal.
func (h *httpHandler) anonymous(r *http.Request) *http.Request {
	if p := h.opts.AnonymousPrincipal; p != nil && PrincipalFrom(r.Context()) == nil {
		return r.WithContext(WithPrincipal(r.Context(), p))
	}
	return r
}

// The 2025-11-25 HTTP sessions (runtime/internal/httpsession), each serving a
// dispatcher Session.
type (
	httpSession  = httpsession.Session[*Session]
	sessionStore = httpsession.Store[*Session]
)

// SessionPrefixEnv names the environment variable whose value starts every
// 2025-11-25 session id this process mints (visible ASCII, e.g. "r1-"): behind a
// load balancer, each replica gets its own prefix and the balancer routes a
// session to the replica that minted it (docs/deploy-replicas.md).
const SessionPrefixEnv = "MCP_SESSION_PREFIX"

// newSessionStore returns the session store of a handler of s with options o.
func newSessionStore(s *Server, o HTTPOptions) *sessionStore {
	return httpsession.NewStore(o.MaxSessions, o.MaxSessionsPerPeer, o.SessionIdleTimeout, os.Getenv(SessionPrefixEnv),
		func(standalone *httpstream.Exchange) *Session { return s.NewSession(standalone) })
}
