package runtime

// session.go: the 2025-11-25 session as transports and dispatch use it; its state
// (what initialize negotiated, the log level, the requests in flight, the
// server-to-client requests awaiting an answer) is internal/peer.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/peer"
)

// A Session is the state of one 2025-11-25 client: what initialize negotiated, the
// log level set by logging/setLevel, the requests in flight and the server-to-client
// requests awaiting an answer. stdio has one per connection; Streamable HTTP one per
// Mcp-Session-Id. Its methods are safe for concurrent use.
type Session struct {
	srv  *Server
	p    peer.Session[Implementation, *call]
	life sessionLife // Extension.SessionEnd (extension_session.go)
}

// NewSession returns a fresh, uninitialized session. out receives unsolicited
// messages (and server-to-client requests made without a request-scoped sink); nil
// drops them until SetSink is called.
func (s *Server) NewSession(out Sink) *Session {
	if out == nil {
		out = discardSink{}
	}
	ss := &Session{srv: s}
	ss.p.Init(out)
	ss.opened() // extension_session.go
	return ss
}

// SetSink replaces the sink for unsolicited messages (e.g. when a legacy HTTP client
// opens its GET stream).
func (ss *Session) SetSink(out Sink) {
	if out == nil {
		out = discardSink{}
	}
	ss.p.SetOut(out)
}

// Initialized reports whether initialize has been answered on this session.
func (ss *Session) Initialized() bool {
	ok, _, _, _ := ss.p.Snapshot()
	return ok
}

// ProtocolVersion returns the negotiated version, or "" before initialize.
func (ss *Session) ProtocolVersion() string {
	_, v, _, _ := ss.p.Snapshot()
	return v
}

// Cancel cancels the in-flight request with the given raw id, as
// notifications/cancelled does: its context is cancelled and nothing more is sent for
// it. It reports whether such a request was in flight.
func (ss *Session) Cancel(id json.RawMessage) bool {
	c, ok := ss.p.InFlight(string(id))
	if ok {
		c.abort()
	}
	return ok
}

// Close cancels every in-flight request and fails every pending server-to-client
// request with ErrSessionClosed. A closed session rejects new requests.
func (ss *Session) Close() {
	revision := ss.ProtocolVersion()
	calls := ss.p.Close()
	ss.srv.prims.hub.DropSession(hubConn{ss}) // no more change notifications
	for _, c := range calls {
		c.stop()
	}
	ss.reportEnd(revision) // extension_session.go
}

// The session's state as dispatch sees it (internal/peer).
func (ss *Session) initialize(version string, info Implementation, caps json.RawMessage) bool {
	return ss.p.Initialize(version, info, caps)
}
func (ss *Session) markReady()                                                { ss.p.MarkReady() }
func (ss *Session) setLogLevel(level int)                                     { ss.p.SetLogLevel(level) }
func (ss *Session) currentLogLevel() int                                      { return ss.p.LogLevel() }
func (ss *Session) track(c *call) bool                                        { return ss.p.Track(string(c.msg.ID), c) }
func (ss *Session) untrack(c *call)                                           { ss.p.Untrack(string(c.msg.ID), c) }
func (ss *Session) snapshot() (bool, string, Implementation, json.RawMessage) { return ss.p.Snapshot() }

// deliver hands a client's response to the server-to-client request it answers.
func (ss *Session) deliver(m *Message) {
	if !ss.p.Deliver(string(m.ID), m.Result, m.Error) {
		ss.srv.logger.Debug("response to an unknown request", "id", string(m.ID))
	}
}

// Notify sends a notification on the session's own stream (the connection
// on stdio, the GET stream over HTTP), not a request's: e.g. the status of
// work that outlived its request.
func (ss *Session) Notify(ctx context.Context, method string, params any) error {
	msg, err := jsonrpc.Notification(method, params)
	if err != nil {
		return err
	}
	return ss.p.Out().Send(ctx, msg)
}

// A ClientError is an error response the client sent to a server-to-client request.
type ClientError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the client's message with its code.
func (e *ClientError) Error() string {
	return fmt.Sprintf("client error %d: %s", e.Code, e.Message)
}

// Request sends a server-to-client request (e.g. elicitation/create) with a fresh id
// and waits for the client's response. out is the sink of the request that caused it
// (so HTTP can put it on that request's stream); nil uses the session's own sink.
// Cancelling ctx abandons the request and tells the client with
// notifications/cancelled.
//
// Until the client has sent notifications/initialized, Request waits for it (bounded
// by ctx and by Close, which makes it return ErrSessionClosed): the 2025-11-25
// lifecycle has the server send no requests before then. On Streamable HTTP that
// notification is a POST of its own and may arrive after the client's first call.
func (ss *Session) Request(ctx context.Context, method string, params any, out Sink) (json.RawMessage, error) {
	res, err := ss.p.Request(ctx, method, params, out) // a nil out stays nil
	if ce := (*peer.ClientError)(nil); errors.As(err, &ce) {
		return nil, &ClientError{Code: ce.Code, Message: ce.Message, Data: ce.Data}
	}
	return res, err
}
