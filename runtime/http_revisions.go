package runtime

// http_revisions.go: what Streamable HTTP does differently for the revisions
// before 2025-11-25.

import (
	"net/http"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
)

// This file holds what Streamable HTTP does differently for the handshake
// revisions before 2025-11-25 (revisions.go): the MCP-Protocol-Version header
// rules, the POST response media type, and no priming event.

// sessionVersionOK checks a session request's MCP-Protocol-Version header against
// the revision the session negotiated, answering 400 itself when they differ.
// 2025-03-26 clients send no header, and a 2025-06-18 server receiving none
// assumes 2025-03-26: a missing header is accepted on every session (the session
// knows its revision). A header naming another revision is refused.
func sessionVersionOK(w http.ResponseWriter, r *http.Request, hs *httpSession, id []byte) bool {
	v, ok := httpcheck.HeaderValue(r.Header, httpcheck.HeaderProtocolVersion)
	if !ok {
		return true
	}
	if negotiated := hs.Conn.ProtocolVersion(); negotiated != "" && v != negotiated {
		httpError(w, http.StatusBadRequest, id, CodeInvalidRequest,
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
// JSON, which every client of that revision reads.
func preferStream(r *http.Request, version string) bool {
	if !olderRevision(version) {
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

// primes reports whether resumable streams of a session of this revision start
// with the priming event (an id and empty data): 2025-11-25 introduced it, and
// earlier clients' SSE readers try to decode its empty data as JSON-RPC.
func primes(version string) bool { return !olderRevision(version) }

// serveBatch serves a POSTed JSON-RPC batch when the Mcp-Session-Id names a
// 2025-03-26 session: one JSON array of responses, or 202 when none is owed.
// Messages the batch's requests send on their own go to the session's standalone
// stream. It reports false, writing nothing, for any other POST, which is then
// refused as a single message would be.
func (h *httpHandler) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) bool {
	hs, ok := h.sessions.Get(strings.TrimSpace(r.Header.Get(httpcheck.HeaderSessionID)))
	if !ok || !batchSession(hs.Conn) {
		return false
	}
	if !sessionVersionOK(w, r, hs, nil) {
		return true
	}
	if !hs.AdmitRequest(h.srv.opts.MaxConcurrentRequests) {
		httpBusy(w, nil)
		return true
	}
	defer hs.LeaveRequest()
	out := h.srv.serveBatch(r.Context(), body, hs.Conn, hs.Standalone)
	writeReply(w, nil, Reply{Body: out})
	return true
}
