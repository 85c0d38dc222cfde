package runtime

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// The HTTP+SSE transport of 2024-11-05, served beside Streamable HTTP when
// HTTPOptions.LegacySSE is set: a client GETs LegacySSEPath and receives an
// event stream whose first event, "endpoint", names the URL to POST its messages
// to (LegacyMessagePath?sessionId=ID). Every POST is answered 202 Accepted; the
// server's responses, notifications and requests travel on the stream as
// "message" events. One stream is one session: it ends when the stream closes.
// Origin and Host checks, body limits, MaxSessions, MaxConcurrentRequests and
// keep-alives are those of Streamable HTTP.

const (
	// LegacySSEPath is where the HTTP+SSE transport's event stream is served.
	LegacySSEPath = "/sse"
	// LegacyMessagePath is where its clients POST their messages.
	LegacyMessagePath = "/message"
)

// legacySSE is the HTTP+SSE transport of one httpHandler.
type legacySSE struct {
	h *httpHandler

	mu    sync.Mutex
	conns map[string]*sseConn
}

// An sseConn is one HTTP+SSE session: its event stream and its Session.
type sseConn struct {
	id     string
	caller string // principalID of the caller that opened the stream (authorize.go)
	sess   *Session
	ctx    context.Context // ends with the stream: cancels the session's handlers
	end    context.CancelFunc

	mu       sync.Mutex // serializes writes to sw
	sw       *httpstream.SSEWriter
	closed   bool
	requests int // requests running (Options.MaxConcurrentRequests)
}

// Send writes msg as a "message" event; it implements Sink for the session.
func (c *sseConn) Send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.sw == nil {
		return ErrSessionClosed
	}
	return c.sw.Named("message", msg)
}

// newLegacySSE returns the transport.
func newLegacySSE(h *httpHandler) *legacySSE {
	return &legacySSE{h: h, conns: map[string]*sseConn{}}
}

// ServeHTTP routes the stream and the message endpoint, after the same Host and
// Origin checks as Streamable HTTP.
func (l *legacySSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r = l.h.anonymous(r)
	if !httpcheck.HostAllowed(r.Host, l.h.opts.AllowedHosts) {
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, "forbidden: host not allowed")
		return
	}
	if !httpcheck.OriginAllowed(r.Header.Get("Origin"), l.h.opts.AllowedOrigins) {
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, "forbidden: origin not allowed")
		return
	}
	switch {
	case r.URL.Path == LegacySSEPath && r.Method == http.MethodGet:
		l.serveStream(w, r)
	case r.URL.Path == LegacyMessagePath && r.Method == http.MethodPost:
		l.servePost(w, r)
	case r.URL.Path == LegacySSEPath:
		w.Header().Set("Allow", "GET")
		httpError(w, http.StatusMethodNotAllowed, nil, CodeInvalidRequest, "method not allowed")
	default:
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, CodeInvalidRequest, "method not allowed")
	}
}

// serveStream opens a session and serves its event stream until the client
// goes away or the server shuts down.
func (l *legacySSE) serveStream(w http.ResponseWriter, r *http.Request) {
	if !acceptsStream(r) {
		httpError(w, http.StatusNotAcceptable, nil, CodeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	c := &sseConn{id: httpsession.NewID(), caller: principalID(PrincipalFrom(r.Context()))}
	c.ctx, c.end = context.WithCancel(context.WithoutCancel(r.Context()))
	defer c.end()
	c.sess = l.h.srv.NewSession(c)
	if !l.add(c) {
		httpError(w, http.StatusServiceUnavailable, nil, CodeInternalError, "too many sessions")
		return
	}
	defer l.remove(c)
	c.mu.Lock()
	c.sw = httpstream.StartSSE(w, nil)
	err := c.sw.Named("endpoint", []byte(LegacyMessagePath+"?sessionId="+c.id))
	c.mu.Unlock()
	if err != nil {
		return
	}
	var tick <-chan time.Time
	if l.h.opts.KeepAlive > 0 {
		t := time.NewTicker(l.h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done(): // endStreams
			return
		case <-tick:
			c.mu.Lock()
			err := c.sw.Comment()
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// add registers a session unless MaxSessions are open.
func (l *legacySSE) add(c *sseConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.h.opts.MaxSessions { // its own bound, beside Streamable HTTP's
		return false
	}
	l.conns[c.id] = c
	return true
}

// remove ends a session whose stream closed: nothing more is written to it, its
// requests are cancelled and its subscriptions end.
func (l *legacySSE) remove(c *sseConn) {
	l.mu.Lock()
	delete(l.conns, c.id)
	l.mu.Unlock()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.end()
	c.sess.Close()
	l.h.srv.EndSubscriptions(c.sess)
}

// endStreams ends every stream (graceful shutdown).
func (l *legacySSE) endStreams() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.end()
	}
}

// servePost accepts one message (or, on a 2025-03-26 session, a batch) for the
// session named by ?sessionId= and answers 202; what the message is owed goes to
// the stream.
func (l *legacySSE) servePost(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	l.mu.Lock()
	c := l.conns[id]
	l.mu.Unlock()
	if c == nil {
		httpError(w, http.StatusNotFound, nil, CodeInvalidRequest, "unknown or terminated session")
		return
	}
	if c.caller != principalID(PrincipalFrom(r.Context())) {
		// The stream's handlers run as the caller that opened it: another
		// caller may not post into it (confused deputy).
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, sessionOtherCaller)
		return
	}
	body, ok := l.h.readBody(w, r)
	if !ok {
		return
	}
	srv := l.h.srv
	if isBatch(body) && batchSession(c.sess) {
		if !c.enter(srv.opts.MaxConcurrentRequests) {
			httpBusy(w, nil)
			return
		}
		acceptPost(w)
		go func() {
			defer c.leave()
			if out := srv.serveBatch(c.ctx, body, c.sess, c); out != nil {
				_ = c.Send(c.ctx, out)
			}
		}()
		return
	}
	m, err := ParseMessage(body)
	if err != nil {
		reply := ErrorReply(err)
		if reply.Body == nil {
			httpError(w, http.StatusBadRequest, nil, CodeInvalidRequest, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(reply.Body)
		return
	}
	if m.Kind != KindRequest {
		srv.Handle(c.ctx, m, c.sess, c)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !c.enter(srv.opts.MaxConcurrentRequests) {
		httpBusy(w, m.ID)
		return
	}
	acceptPost(w)
	go func() {
		defer c.leave()
		if reply := srv.Handle(c.ctx, m, c.sess, c); reply.Body != nil {
			_ = c.Send(c.ctx, reply.Body)
		}
	}()
}

// enter admits a request unless limit are running.
func (c *sseConn) enter(limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests >= limit || c.closed {
		return false
	}
	c.requests++
	return true
}

// leave ends a request.
func (c *sseConn) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests--
}

// withLegacySSE returns a mux serving Streamable HTTP at opts.Path and, when
// opts.LegacySSE is set, the HTTP+SSE transport at LegacySSEPath and
// LegacyMessagePath.
func (h *httpHandler) withLegacySSE() http.Handler {
	if !h.opts.LegacySSE {
		return h
	}
	h.legacy = newLegacySSE(h)
	mux := http.NewServeMux()
	mux.Handle(h.opts.Path, h)
	mux.Handle(LegacySSEPath, h.legacy)
	mux.Handle(LegacyMessagePath, h.legacy)
	return mux
}

// LegacySSEHandler returns an http.Handler serving only the 2024-11-05 HTTP+SSE
// transport, for your own mux: mount it at LegacySSEPath and LegacyMessagePath
// (the endpoint event names LegacyMessagePath). Its sessions are its own; the
// options' Host and Origin checks, limits and keep-alives apply. opts may be nil.
func (s *Server) LegacySSEHandler(opts *HTTPOptions) http.Handler {
	h := newHTTPHandler(s, opts.withDefaults())
	h.legacy = newLegacySSE(h)
	return h.legacy
}

// acceptPost answers a POST 202 and flushes it before the request runs, so the
// client has its POST's answer before any message the request sends on the
// stream (a client that cancels the call on its first progress notification
// must not find its POST still open).
func acceptPost(w http.ResponseWriter) {
	w.WriteHeader(http.StatusAccepted)
	_ = http.NewResponseController(w).Flush()
}
