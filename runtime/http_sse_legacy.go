package runtime

// http_sse_legacy.go: the HTTP+SSE transport of 2024-11-05 (internal/legacysse),
// served beside Streamable HTTP when HTTPOptions.LegacySSE is set, wired to the
// server: its sessions are dispatcher Sessions, its messages are served as
// Streamable HTTP's are. Origin and Host checks, body limits, MaxSessions,
// MaxConcurrentRequests and keep-alives are those of Streamable HTTP.

import (
	"context"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/legacysse"
	"github.com/mcpgen/mcpgen/runtime/internal/streamable"
)

const (
	// LegacySSEPath is where the HTTP+SSE transport's event stream is served.
	LegacySSEPath = "/sse"
	// LegacyMessagePath is where its clients POST their messages.
	LegacyMessagePath = "/message"
)

// legacySSE is the HTTP+SSE transport of one httpHandler.
type legacySSE = legacysse.Transport[*Session]

// newLegacySSE returns the transport of h.
func newLegacySSE(h *httpHandler) *legacySSE {
	return legacysse.New(legacysse.Config[*Session]{
		StreamPath: LegacySSEPath, MessagePath: LegacyMessagePath,
		MaxSessions: h.opts.MaxSessions, MaxConcurrentRequests: h.srv.opts.MaxConcurrentRequests,
		KeepAlive: h.opts.KeepAlive, Closed: ErrSessionClosed, OtherCaller: sessionOtherCaller,
		Admit:    h.Admit,
		Caller:   func(r *http.Request) string { return principalID(PrincipalFrom(r.Context())) },
		ReadBody: h.ReadBody,
		Refuse: func(w http.ResponseWriter, status int, id []byte, msg string) {
			code := CodeInvalidRequest
			if status == http.StatusServiceUnavailable {
				code = CodeInternalError
			}
			streamable.Refuse(w, status, id, code, msg)
		},
		Busy:       streamable.Busy,
		NewSession: func(out legacysse.Sink) *Session { return h.srv.NewSession(out) },
		EndSession: func(sess *Session) {
			sess.Close()
			h.srv.EndSubscriptions(sess)
		},
		Post: h.ssePost,
	})
}

// ssePost serves one message (or, on a 2025-03-26 session, a batch) POSTed to
// an HTTP+SSE session: what it is owed goes to the stream, out.
func (h *httpHandler) ssePost(w http.ResponseWriter, ctx context.Context, sess *Session, body []byte, out legacysse.Sink, run func(id []byte, f func())) {
	srv := h.srv
	if isBatch(body) && batchSession(sess) {
		run(nil, func() {
			if b := srv.serveBatch(ctx, body, sess, out); b != nil {
				_ = out.Send(ctx, b)
			}
		})
		return
	}
	m, err := ParseMessage(body)
	if err != nil {
		reply := ErrorReply(err)
		if reply.Body == nil {
			streamable.Refuse(w, http.StatusBadRequest, nil, CodeInvalidRequest, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(reply.Body)
		return
	}
	if m.Kind != KindRequest {
		srv.Handle(ctx, m, sess, out)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	run(m.ID, func() {
		if reply := srv.Handle(ctx, m, sess, out); reply.Body != nil {
			_ = out.Send(ctx, reply.Body)
		}
	})
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
