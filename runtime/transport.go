package runtime

// transport.go: the seam between transports and dispatch: Handle, HandleRaw,
// Sink and Reply, and the worker pool transports start handlers on.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/workpool"
)

// A transport (stdio.go, the Streamable HTTP files) moves bytes and never
// interprets MCP methods; the contract it relies on (parsing, Handle, sessions,
// cancellation) is DESIGN.md's "Runtime transport seam".

// A Reply is what Handle returns for one incoming message.
type Reply struct {
	// Body is one encoded JSON-RPC response, or nil when nothing must be sent.
	Body []byte
	// Code is the JSON-RPC error code of Body, or 0 for a result (or no Body).
	Code int
	// MetaError reports that Code is a -32602 caused by missing or malformed required
	// params._meta fields (HTTP 400), not an application-level -32602 (HTTP 200).
	MetaError bool
	// Era is the era the message was served under.
	Era Era
	// Challenge, when set, is the WWW-Authenticate value of a request refused for
	// insufficient scope: HTTP answers 403 with it (authorize.go).
	Challenge string
	// late reports a reply given at a tools/call's deadline while its handler
	// still runs (call.deliver): an HTTP response serving the handler on its
	// own goroutine ends without waiting for it.
	late bool
}

// HTTPStatus returns the HTTP status a Streamable HTTP transport answers r with: 400
// for parse errors, invalid requests, missing _meta fields, -32020, -32021 and -32022;
// 404 for -32601 under 2026-07-28; 200 otherwise (application errors included).
func (r Reply) HTTPStatus() int {
	switch {
	case r.Challenge != "":
		return 403
	case r.MetaError:
		return 400
	case r.Code == CodeMethodNotFound && r.Era == EraModern:
		return 404
	}
	switch r.Code {
	case CodeParseError, CodeInvalidRequest, CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedVersion:
		return 400
	}
	return 200
}

// A Sink delivers messages the server sends outside a response: request-scoped
// notifications (progress, log) and, in legacy sessions, server-to-client requests
// and unsolicited notifications.
type Sink interface {
	// Send writes one complete JSON-RPC message (compact JSON, no trailing newline).
	// It must be safe for concurrent use. ctx bounds how long Send may block.
	Send(ctx context.Context, msg []byte) error
}

// SinkFunc adapts a function to the Sink interface.
type SinkFunc func(ctx context.Context, msg []byte) error

// Send calls f(ctx, msg).
func (f SinkFunc) Send(ctx context.Context, msg []byte) error { return f(ctx, msg) }

// handlerWorkers runs the handlers that transports start on a goroutine of their
// own (HTTP requests whose response cannot be served inline, calls with a
// deadline on a synchronous path) on reused goroutines (internal/workpool).
var handlerWorkers = workpool.New(200 * time.Millisecond)

// discardSink drops every message.
type discardSink struct{}

func (discardSink) Send(context.Context, []byte) error { return nil }

// Handle dispatches one message. sess is the legacy session the message belongs to, or
// nil (HTTP modern requests, or HTTP requests without a session); out receives the
// request-scoped messages described on Sink and may be nil. ctx is the handler's
// parent context: cancelling it cancels the request. Handle blocks until the request is
// answered; call it concurrently for concurrent requests. Responses (a legacy client
// answering a server-to-client request) are delivered to sess and get no reply.
func (s *Server) Handle(ctx context.Context, m *Message, sess *Session, out Sink) Reply {
	if out == nil {
		out = discardSink{}
	}
	switch m.Kind {
	case KindResponse:
		if sess != nil {
			sess.deliver(m)
		}
		return Reply{}
	case KindNotification:
		ctx, end := s.observe(ctx, m, sess) // extension.go
		s.notify(ctx, m, sess)
		if end != nil {
			end(Outcome{})
		}
		return Reply{}
	}
	return s.request(ctx, m, sess, out)
}

// HandleRaw parses raw and dispatches it like Handle; a message that fails to parse
// gets the reply ErrorReply gives.
func (s *Server) HandleRaw(ctx context.Context, raw []byte, sess *Session, out Sink) Reply {
	m, err := ParseMessage(raw)
	if err != nil {
		s.logger.Debug("rejected message", "err", err)
		return ErrorReply(err)
	}
	return s.Handle(ctx, m, sess, out)
}

// Modern reports whether raw is a 2026-07-28 message: its params._meta carries
// io.modelcontextprotocol/protocolVersion or …/clientCapabilities. Unparseable
// messages are not modern.
func Modern(raw json.RawMessage) bool {
	m, err := ParseMessage(raw)
	return err == nil && m.Era == EraModern
}
