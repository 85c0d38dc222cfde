package runtime

// extension_session.go: the session lifecycle hook of the extension API
// (Extension.SessionEnd, docs/extensions.md): told once when a session
// ends, with its id, revision, transport and duration. With no extension
// watching, a session pays one nil check when it opens and one when it
// closes (no clock read, no allocation).

import (
	"sync/atomic"
	"time"
)

// SessionInfo describes a session that ended, for Extension.SessionEnd: a
// 2025-11-25-or-older session of Streamable HTTP (ended by DELETE, by idle
// expiry, by eviction to make room, or at shutdown), a 2024-11-05 HTTP+SSE
// stream, or a stdio connection (ended by EOF or a signal).
type SessionInfo struct {
	// ID is the Mcp-Session-Id of a Streamable HTTP session; "" on the other
	// transports.
	ID string
	// Revision is the protocol revision initialize negotiated; "" when the
	// session never completed initialize (a stdio connection of a
	// 2026-07-28 client, which sends none).
	Revision string
	// Transport is "stdio", "http" (Streamable HTTP), "sse" (2024-11-05
	// HTTP+SSE), or "" for a session a program made with NewSession.
	Transport string
	// Duration is the time from the session's creation (its initialize, the
	// connection's start) to its end.
	Duration time.Duration
}

// The transports a SessionInfo names.
const (
	sessionStdio = "stdio"
	sessionHTTP  = "http"
	sessionSSE   = "sse"
)

// sessionLife is what a Session keeps for Extension.SessionEnd.
type sessionLife struct {
	id, transport string
	start         time.Time // zero: no extension watched session ends when it opened
	ended         atomic.Bool
}

// opened starts the session's clock when an extension watches session ends
// (NewSession).
func (ss *Session) opened() {
	if x := ss.srv.exts.Load(); x != nil && len(x.ends) > 0 {
		ss.life.start = time.Now()
	}
}

// named names the session's transport and id; its transport calls it before
// the session serves.
func (ss *Session) named(transport, id string) *Session {
	ss.life.transport, ss.life.id = transport, id
	return ss
}

// reportEnd tells the extensions watching session ends that ss ended, once;
// revision is what initialize negotiated. A Streamable HTTP session whose
// initialize failed never existed for its client: it is not reported.
func (ss *Session) reportEnd(revision string) {
	l := &ss.life
	if l.start.IsZero() || (l.transport == sessionHTTP && revision == "") || l.ended.Swap(true) {
		return
	}
	info := SessionInfo{ID: l.id, Revision: revision, Transport: l.transport, Duration: time.Since(l.start)}
	for _, e := range ss.srv.exts.Load().ends { // an extension set: the clock started
		ss.srv.sessionEnd(e, info)
	}
}

// sessionEnd calls e's SessionEnd; a panic is logged and dropped.
func (s *Server) sessionEnd(e *Extension, info SessionInfo) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("extension SessionEnd panicked", "extension", extName(e), "panic", r)
		}
	}()
	e.SessionEnd(info)
}
