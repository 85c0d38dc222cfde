package runtime

// http_sse_legacy.go: the HTTP+SSE transport of 2024-11-05 (internal/legacysse,
// made by internal/streamable), served beside Streamable HTTP when
// HTTPOptions.LegacySSE is set: its paths, its sessions' wiring, its mux.

import (
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/legacysse"
)

const (
	// LegacySSEPath is where the HTTP+SSE transport's event stream is served.
	LegacySSEPath = "/sse"
	// LegacyMessagePath is where its clients POST their messages.
	LegacyMessagePath = "/message"
)

// legacySSE is the HTTP+SSE transport of one httpHandler.
type legacySSE = legacysse.Transport[*Session]

// newLegacySSE returns the transport of h: its sessions are dispatcher
// Sessions, its messages are served as Streamable HTTP's are.
func newLegacySSE(h *httpHandler) *legacySSE {
	return h.LegacySSE(LegacySSEPath, LegacyMessagePath, ErrSessionClosed,
		func(out legacysse.Sink) *Session { return h.srv.NewSession(out).named(sessionSSE, "") },
		func(sess *Session) {
			sess.Close()
			h.srv.EndSubscriptions(sess)
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
