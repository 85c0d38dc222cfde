package runtime

// batch.go: the JSON-RPC batches of 2025-03-26 sessions (2025-06-18 removed them
// again: elsewhere ParseMessage refuses a batch with -32600); the fan-out is
// internal/revision.

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/revision"
)

// isBatch reports whether raw is a JSON array (leading white space allowed).
func isBatch(raw []byte) bool {
	t := jsonwire.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

// batchSession reports whether sess serves batches: it negotiated 2025-03-26.
func batchSession(sess *Session) bool {
	return sess != nil && sess.ProtocolVersion() == revision.V20250326
}

// serveBatch serves a batch for a 2025-03-26 session (revision.Batch): every element is handled as
// if it came alone, the requests concurrently (at most
// Options.MaxConcurrentRequests at a time), and their responses return in one
// array, in the order of the requests. It returns nil when nothing is owed (only
// notifications and responses). Malformed elements get their error responses;
// an empty array or invalid JSON get one error response, not an array, as
// JSON-RPC 2.0 says. initialize must not be batched (2025-03-26 lifecycle).
func (s *Server) serveBatch(ctx context.Context, raw []byte, sess *Session, out Sink) []byte {
	return revision.Batch(raw, s.opts.MaxConcurrentRequests, func(el json.RawMessage) ([]byte, func() []byte) {
		m, err := ParseMessage(el)
		switch {
		case err != nil:
			return ErrorReply(err).Body, nil
		case m.Kind == KindRequest && m.Method == "initialize":
			return ErrorResponse(m.ID, CodeInvalidRequest, "invalid request: initialize must not be part of a JSON-RPC batch", nil), nil
		case m.Kind != KindRequest:
			s.Handle(ctx, m, sess, out)
			return nil, nil
		}
		return nil, func() []byte { return s.Handle(ctx, m, sess, out).Body }
	}, func(code int, msg string) []byte { return ErrorResponse(nil, code, msg, nil) })
}
