package runtime

// http.go: the Streamable HTTP transport's entry: HTTPHandler and
// ListenAndServe, wiring internal/streamable (routing, sessions, eras,
// shutdown) to the server's messages and sessions.

import (
	"context"
	"errors"
	"net/http"
	"os"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
	"github.com/mcpgen/mcpgen/runtime/internal/streamable"
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
	if err := s.Start(context.Background()); err != nil { // extension.go
		s.logger.Error("extension did not start", "err", err)
	}
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
// Then the extensions' Shutdown runs (Server.Shutdown): the tasks extension
// (runtime/tasks) drains the task handlers running here until ctx is done.
// Call it before, or alongside, the http.Server's Shutdown. It returns ctx's
// error when requests were cut short; calling it again does nothing more.
func (h *HTTPHandler) Shutdown(ctx context.Context) error { return h.h.Shutdown(ctx) }

// ListenAndServe serves the Streamable HTTP transport on addr (default
// 127.0.0.1:8080) at opts.Path (default /mcp) until ctx is cancelled, then
// shuts down gracefully: new connections are refused, GET and listen streams end,
// in-flight requests get opts.ShutdownTimeout to finish. It returns nil
// after a clean shutdown.
func (s *Server) ListenAndServe(ctx context.Context, addr string, opts *HTTPOptions) error {
	if err := s.Start(ctx); err != nil { // extension.go
		return err
	}
	o := opts.withDefaults()
	h := newHTTPHandler(s, o)
	err := serveHTTP(ctx, addr, h.withLegacySSE(), s.withRoutes(o), h.EndStreams, s.logger)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ShutdownTimeout)
	defer cancel()
	return errors.Join(err, h.Shutdown(dctx))
}

// An httpHandler is the Streamable HTTP transport of one Server: its
// 2025-11-25 sessions serve dispatcher Sessions.
type httpHandler struct {
	*streamable.Handler[*Session, *Message]
	srv  *Server
	opts HTTPOptions
	// legacy is the 2024-11-05 HTTP+SSE transport, when opts.LegacySSE.
	legacy *legacySSE
}

// Shutdown shuts the transport down (streamable.Handler.Shutdown: requests
// drain, then sessions end) until ctx is done; then the extensions' Shutdown
// runs (Server.Shutdown: a tasks extension drains its handlers, which ran on
// meanwhile), so what the drained requests and the ended sessions reported
// is flushed.
func (h *httpHandler) Shutdown(ctx context.Context) error {
	err := h.Handler.Shutdown(ctx)
	return errors.Join(err, h.srv.shutdownExtensions(ctx)) // extension.go
}

// httpSession is a 2025-11-25 HTTP session (runtime/internal/httpsession).
type httpSession = httpsession.Session[*Session]

// SessionPrefixEnv names the environment variable whose value starts every
// 2025-11-25 session id this process mints (visible ASCII, e.g. "r1-"): behind a
// load balancer, each replica gets its own prefix and the balancer routes a
// session to the replica that minted it (docs/deploy-replicas.md).
const SessionPrefixEnv = "MCP_SESSION_PREFIX"

// busyMessage is the error message of a request refused because too many run
// already (the stdio transport answers the same).
const busyMessage = streamable.BusyMessage

// newHTTPHandler returns the handler of s with resolved options o.
func newHTTPHandler(s *Server, o HTTPOptions) *httpHandler {
	h := &httpHandler{srv: s, opts: o}
	s.sealer.ServedOverHTTP() // replicas may share the endpoint: a random state key is worth a log line
	h.Handler = streamable.New(streamable.Config[*Session, *Message]{
		Options: streamable.Options{AllowedOrigins: o.AllowedOrigins, AllowedHosts: o.AllowedHosts,
			MaxBodyBytes: o.MaxBodyBytes, BodyTimeout: o.BodyTimeout, MaxSessions: o.MaxSessions,
			MaxSessionsPerPeer: o.MaxSessionsPerPeer, SessionIdleTimeout: o.SessionIdleTimeout,
			SessionPrefix: os.Getenv(SessionPrefixEnv), MaxStatelessRequests: o.MaxStatelessRequests,
			MaxListenStreams: o.MaxListenStreams, MaxListenStreamsPerClient: o.MaxListenStreamsPerClient,
			MaxConcurrentRequests: s.opts.MaxConcurrentRequests, SSERetry: o.SSERetry, KeepAlive: o.KeepAlive},
		Log:          s.logger,
		Admit:        h.anonymous,
		BoundTo:      boundTo,
		Caller:       func(r *http.Request) string { return principalID(PrincipalFrom(r.Context())) },
		OtherCaller:  sessionOtherCaller,
		ListenClient: h.listenClient,
		NewConn: func(id string, standalone *httpstream.Exchange) *Session {
			return s.NewSession(standalone).named(sessionHTTP, id)
		},
		EndStreams: func() {
			if h.legacy != nil {
				h.legacy.EndStreams()
			}
			s.EndSubscriptions(nil)
		},
		Parse:     parseHTTP,
		SetModern: func(m *Message) { m.Era = EraModern },
		ParamHeaders: func(tool string) ([]httpcheck.ParamHeader, bool) {
			e := s.tools.Load().Get(tool)
			if e == nil {
				return nil, false
			}
			return e.paramHeaders(), true
		},
		Handle: func(ctx context.Context, m *Message, sess *Session, out streamable.Sink) (httpstream.Reply, bool) {
			var sink Sink
			if out != nil {
				sink = out
			}
			r := s.Handle(ctx, m, sess, sink)
			return streamReply(r), r.Code == 0 && r.Body != nil
		},
		Serve: func(ctx context.Context, m *Message, sess *Session, x *httpstream.Exchange, done func(httpstream.Reply)) {
			var r replier = exchangeReplier{x}
			if done != nil {
				r = replyFunc(done)
			}
			s.handleAsync(ctx, m, sess, x, r)
		},
		Go:         handlerWorkers.Go,
		IsBatch:    isBatch,
		TakesBatch: batchSession,
		Batch: func(ctx context.Context, body []byte, sess *Session, out streamable.Sink) []byte {
			return s.serveBatch(ctx, body, sess, out)
		},
	})
	return h
}

// parseHTTP reads a POSTed message: a body that is not one gets the error
// reply ParseMessage's error owes, or a 400 without one.
func parseHTTP(body []byte) (*Message, streamable.Info, *httpstream.Reply, error) {
	m, err := ParseMessage(body)
	if err != nil {
		var bad *httpstream.Reply
		if reply := ErrorReply(err); reply.Body != nil {
			r := streamReply(reply)
			bad = &r
		}
		return nil, streamable.Info{}, bad, err
	}
	return m, streamable.Info{Kind: streamable.Kind(m.Kind), ID: m.ID, Method: m.Method, Modern: m.Era == EraModern, MetaComplete: metaComplete(m),
		Params: m.Params, Version: m.ProtocolVersion, Tool: m.Name, Arguments: m.params.Arguments}, nil, nil
}

// streamReply is r as an exchange carries it.
func streamReply(r Reply) httpstream.Reply {
	return httpstream.Reply{Body: r.Body, Status: r.HTTPStatus(), Challenge: r.Challenge, Late: r.late}
}

// An exchangeReplier hands a request's reply to its exchange, a replyFunc
// to a function; they implement replier.
type (
	exchangeReplier struct{ x *httpstream.Exchange }
	replyFunc       func(httpstream.Reply)
)

func (e exchangeReplier) answer(r Reply) { e.x.Finish(streamReply(r)) }
func (f replyFunc) answer(r Reply)       { f(streamReply(r)) }

// anonymous gives a request without a principal HTTPOptions.AnonymousPrincipal.
func (h *httpHandler) anonymous(r *http.Request) *http.Request {
	r = h.srv.withHeaders(r) // extension.go: Observe sees the headers
	if p := h.opts.AnonymousPrincipal; p != nil && PrincipalFrom(r.Context()) == nil {
		return r.WithContext(WithPrincipal(r.Context(), p))
	}
	return r
}

// listenClient names the client MaxListenStreamsPerClient counts r against:
// its principal when a middleware authenticated it, else its remote address.
func (h *httpHandler) listenClient(r *http.Request) string {
	if p := PrincipalFrom(r.Context()); p != nil && p != h.opts.AnonymousPrincipal {
		return "principal " + principalID(p)
	}
	return "peer " + httpsession.PeerOf(r)
}

// metaComplete reports whether a request's _meta has the fields whose absence
// is a -32602 (checked before headers): a string protocolVersion and an
// object clientCapabilities.
func metaComplete(m *Message) bool {
	meta := m.params.Meta
	if m.paramsErr != nil || meta == nil {
		return false
	}
	_, ok := rawString(meta.ProtocolVersion)
	return ok && isObject(meta.ClientCapabilities)
}

// CloseSSEStream closes the HTTP connection carrying the current request's SSE
// stream without ending the stream or the request: the client reconnects with
// GET and Last-Event-ID and receives the rest, including the result. This is
// the polling pattern of 2025-11-25 Streamable HTTP for long calls. It reports
// false and does nothing where that is impossible: on other transports, for
// 2026-07-28 requests (closing their stream cancels them), and for clients that
// do not accept SSE.
func CloseSSEStream(ctx context.Context) bool {
	x, ok := streamable.ExchangeFrom(ctx)
	return ok && x.RequestClose()
}
