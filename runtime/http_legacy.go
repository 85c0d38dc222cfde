package runtime

// http_legacy.go: Streamable HTTP for 2025-11-25: initialize opens a session, requests
// name it (Mcp-Session-Id), GET opens or resumes a stream, DELETE ends it.

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// serveLegacy serves a 2025-11-25 message: initialize opens a session, and
// everything else must name a live one with Mcp-Session-Id.
func (h *httpHandler) serveLegacy(w http.ResponseWriter, r *http.Request, m *Message) {
	id := strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID))
	if id == "" {
		switch {
		case m.Kind == KindRequest && m.Method == "initialize":
			h.initialize(w, r, m)
		case m.Kind == KindNotification:
			// Nothing to route it to, nothing lost by accepting it: e.g. the
			// notifications/cancelled some clients POST, headerless, after
			// closing a 2026-07-28 stream (the close already cancelled).
			h.srv.Handle(r.Context(), m, nil, nil)
			w.WriteHeader(http.StatusAccepted)
		default:
			httpError(w, http.StatusBadRequest, m.ID, CodeInvalidRequest, "missing Mcp-Session-Id header")
		}
		return
	}
	hs, ok := h.sessions.Get(id)
	if !ok {
		httpError(w, http.StatusNotFound, m.ID, CodeInvalidRequest, "unknown or terminated session")
		return
	}
	if !boundTo(hs, r) {
		httpError(w, http.StatusForbidden, m.ID, CodeInvalidRequest, sessionOtherCaller)
		return
	}
	if !sessionVersionOK(w, r, hs, m.ID) {
		return
	}
	if m.Kind != KindRequest {
		// Notifications and the client's responses to server requests.
		h.srv.Handle(r.Context(), m, hs.Conn, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.legacyRequest(w, r, hs, m)
}

// initialize answers an initialize request and, when it succeeds, opens a
// session whose id travels in the Mcp-Session-Id response header.
func (h *httpHandler) initialize(w http.ResponseWriter, r *http.Request, m *Message) {
	hs, err := h.sessions.Create(httpsession.PeerOf(r))
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, m.ID, CodeInternalError, err.Error())
		return
	}
	reply := h.srv.Handle(r.Context(), m, hs.Conn, nil)
	if reply.Code != 0 || reply.Body == nil {
		h.sessions.Release(hs)
		writeReply(w, nil, reply)
		return
	}
	hs.Caller = principalID(PrincipalFrom(r.Context()))
	h.sessions.Add(hs)
	writeReply(w, http.Header{httpcheck.HeaderSessionID: {hs.ID}}, reply)
}

// legacyRequest serves a request of a session. A disconnect does not cancel
// it (that era cancels with notifications/cancelled): the handler runs on, and
// its stream stays resumable with Last-Event-ID.
func (h *httpHandler) legacyRequest(w http.ResponseWriter, r *http.Request, hs *httpSession, m *Message) {
	if !hs.AdmitRequest(h.srv.opts.MaxConcurrentRequests) {
		httpBusy(w, m.ID)
		return
	}
	x := hs.NewStream(acceptsStream(r))
	version := hs.Conn.ProtocolVersion()
	if preferStream(r, version) {
		x.StreamNow()
	}
	ctx := context.WithValue(context.WithoutCancel(r.Context()), streamKey{}, x)
	h.background.Add(1)
	handlerWorkers.Go(func() { h.srv.handleAsync(ctx, m, hs.Conn, x, &legacyReply{x: x, hs: hs, bg: &h.background}) })
	p := &httpstream.Pump{X: x, W: w, Retry: h.opts.SSERetry, KeepAlive: h.opts.KeepAlive, NoPrime: !primes(version)}
	if !p.ServeRequest(r.Context()) {
		hs.DropStream(x)
	}
}

// A legacyReply ends a 2025-11-25 request: its reply goes to its stream, and the
// session and the handler's drain stop counting it.
type legacyReply struct {
	x  *httpstream.Exchange
	hs *httpSession
	bg *sync.WaitGroup
}

func (l *legacyReply) answer(r Reply) {
	l.x.Finish(streamReply(r))
	l.hs.LeaveRequest()
	l.bg.Done()
}

// serveGet opens a session's standalone SSE stream, or resumes a stream named
// by Last-Event-ID.
func (h *httpHandler) serveGet(w http.ResponseWriter, r *http.Request) {
	hs, ok := h.sessionFor(w, r)
	if !ok {
		return
	}
	if !acceptsStream(r) {
		httpError(w, http.StatusNotAcceptable, nil, CodeInvalidRequest, "GET needs Accept: text/event-stream")
		return
	}
	defer hs.Enter()()
	p := &httpstream.Pump{X: hs.Standalone, W: w, Retry: h.opts.SSERetry, KeepAlive: h.opts.KeepAlive,
		NoPrime: !primes(hs.Conn.ProtocolVersion())}
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
func (h *httpHandler) serveDelete(w http.ResponseWriter, r *http.Request) {
	hs, ok := h.sessionFor(w, r)
	if !ok {
		return
	}
	h.sessions.Remove(hs.ID)
	w.WriteHeader(http.StatusNoContent)
}

// sessionFor finds the session a GET or DELETE names, answering the error
// itself when there is none: 405 without Mcp-Session-Id (2026-07-28 has no
// GET or DELETE), 404 for an unknown or ended session, 400 for a version
// header of the wrong era.
func (h *httpHandler) sessionFor(w http.ResponseWriter, r *http.Request) (*httpSession, bool) {
	id := strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID))
	if id == "" {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, nil, CodeInvalidRequest, r.Method+" needs an Mcp-Session-Id")
		return nil, false
	}
	if v, ok := httpcheck.HeaderValue(r.Header, httpcheck.HeaderProtocolVersion); ok && !legacyVersion(v) {
		httpError(w, http.StatusBadRequest, nil, CodeInvalidRequest, "unsupported MCP-Protocol-Version "+v)
		return nil, false
	}
	hs, ok := h.sessions.Get(id)
	if !ok {
		httpError(w, http.StatusNotFound, nil, CodeInvalidRequest, "unknown or terminated session")
		return nil, false
	}
	if !boundTo(hs, r) {
		httpError(w, http.StatusForbidden, nil, CodeInvalidRequest, sessionOtherCaller)
		return nil, false
	}
	return hs, sessionVersionOK(w, r, hs, nil)
}

// streamKey is the context key of the exchange a 2025-11-25 request streams to.
type streamKey struct{}

// CloseSSEStream closes the HTTP connection carrying the current request's SSE
// stream without ending the stream or the request: the client reconnects with
// GET and Last-Event-ID and receives the rest, including the result. This is
// the polling pattern of 2025-11-25 Streamable HTTP for long calls. It reports
// false and does nothing where that is impossible: on other transports, for
// 2026-07-28 requests (closing their stream cancels them), and for clients that
// do not accept SSE.
func CloseSSEStream(ctx context.Context) bool {
	x, ok := ctx.Value(streamKey{}).(*httpstream.Exchange)
	return ok && x.RequestClose()
}
