package runtime

// http_modern.go: Streamable HTTP for 2026-07-28: stateless requests, their headers
// checked against the body (internal/httpcheck).

import (
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// serveModern serves a 2026-07-28 message: stateless, no session, headers
// checked against the body, and the request cancelled when the client closes
// the response.
func (h *httpHandler) serveModern(w http.ResponseWriter, r *http.Request, m *Message) {
	if m.Kind == KindNotification {
		h.srv.Handle(r.Context(), m, nil, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The spec orders the checks: _meta fields (-32602, the dispatcher's),
	// then headers (-32020), then version (-32022) and method (-32601).
	if metaComplete(m) {
		if err := h.checkHeaders(r.Header, m); err != nil {
			writeReply(w, nil, Reply{Body: ErrorResponse(m.ID, CodeHeaderMismatch, err.Error(), nil),
				Code: CodeHeaderMismatch, Era: EraModern})
			return
		}
	}
	if h.stateless.Add(1) > int64(h.opts.MaxStatelessRequests) {
		h.stateless.Add(-1)
		httpBusy(w, m.ID)
		return
	}
	defer h.stateless.Add(-1)
	x := httpstream.New("", acceptsStream(r))
	ctx := r.Context()
	handlerWorkers.Go(func() { h.srv.handleAsync(ctx, m, nil, x, exchangeReplier{x}) })
	p := &httpstream.Pump{X: x, W: w, KeepAlive: h.opts.KeepAlive}
	p.ServeRequest(r.Context())
	x.Wait() // after a disconnect the handler is cancelled; wait for its reply
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

// checkHeaders validates the standard headers and, for tools/call, the
// Mcp-Param-* headers the tool's inputSchema declares with x-mcp-header.
func (h *httpHandler) checkHeaders(hdr http.Header, m *Message) error {
	if err := httpcheck.CheckStandard(hdr, m.Method, m.Params, m.ProtocolVersion); err != nil {
		return err
	}
	if m.Method != "tools/call" {
		return nil
	}
	e, ok := h.srv.tools.Load().byName[m.Name]
	if !ok {
		return nil // unknown tool: the dispatcher answers -32602
	}
	return httpcheck.CheckParams(hdr, e.paramHeaders(), m.params.Arguments)
}
