package runtime

// session.go: the 2025-11-25 session: what initialize negotiated, the requests in
// flight, the server-to-client requests awaiting an answer.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// A Session is the state of one 2025-11-25 client: what initialize negotiated, the
// log level set by logging/setLevel, the requests in flight and the server-to-client
// requests awaiting an answer. stdio has one per connection; Streamable HTTP one per
// Mcp-Session-Id. Its methods are safe for concurrent use.
type Session struct {
	srv *Server
	// readyCh is closed when notifications/initialized arrives: server-to-client
	// requests wait for it (2025-11-25 lifecycle: none before it but pings and logs).
	readyCh chan struct{}
	// closedCh is closed by Close: a request still waiting for readyCh gives up.
	closedCh chan struct{}

	// mu guards every field below.
	mu          sync.Mutex
	out         Sink
	initialized bool // initialize was answered
	ready       bool // notifications/initialized arrived
	version     string
	clientInfo  Implementation
	clientCaps  json.RawMessage
	logLevel    int // index in logLevels; -1 until logging/setLevel
	nextID      int64
	pending     map[string]chan *Message
	inflight    map[string]*call
	closed      bool
}

// NewSession returns a fresh, uninitialized session. out receives unsolicited
// messages (and server-to-client requests made without a request-scoped sink); nil
// drops them until SetSink is called.
func (s *Server) NewSession(out Sink) *Session {
	if out == nil {
		out = discardSink{}
	}
	return &Session{srv: s, out: out, logLevel: -1, readyCh: make(chan struct{}),
		closedCh: make(chan struct{}), pending: map[string]chan *Message{}, inflight: map[string]*call{}}
}

// SetSink replaces the sink for unsolicited messages (e.g. when a legacy HTTP client
// opens its GET stream).
func (ss *Session) SetSink(out Sink) {
	if out == nil {
		out = discardSink{}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.out = out
}

// Initialized reports whether initialize has been answered on this session.
func (ss *Session) Initialized() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

// ProtocolVersion returns the negotiated version, or "" before initialize.
func (ss *Session) ProtocolVersion() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// Cancel cancels the in-flight request with the given raw id, as
// notifications/cancelled does: its context is cancelled and nothing more is sent for
// it. It reports whether such a request was in flight.
func (ss *Session) Cancel(id json.RawMessage) bool {
	ss.mu.Lock()
	c := ss.inflight[string(id)]
	ss.mu.Unlock()
	if c == nil {
		return false
	}
	c.abort()
	return true
}

// Close cancels every in-flight request and fails every pending server-to-client
// request with ErrSessionClosed. A closed session rejects new requests.
func (ss *Session) Close() {
	ss.mu.Lock()
	if !ss.closed {
		close(ss.closedCh)
	}
	ss.closed = true
	calls := make([]*call, 0, len(ss.inflight))
	for _, c := range ss.inflight {
		calls = append(calls, c)
	}
	for id, ch := range ss.pending {
		close(ch)
		delete(ss.pending, id)
	}
	ss.mu.Unlock()
	ss.srv.prims.hub.DropSession(hubConn{ss}) // no more change notifications
	for _, c := range calls {
		c.stop()
	}
}

// initialize records what the initialize handshake negotiated. It reports false,
// changing nothing, when the session was initialized before: the handshake happens
// once per session.
func (ss *Session) initialize(version string, info Implementation, caps json.RawMessage) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.initialized {
		return false
	}
	ss.initialized, ss.version, ss.clientInfo, ss.clientCaps = true, version, info, caps
	return true
}

// markReady records notifications/initialized.
func (ss *Session) markReady() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.ready {
		ss.ready = true
		close(ss.readyCh)
	}
}

// snapshot returns what a legacy request needs to know about its session.
func (ss *Session) snapshot() (initialized bool, version string, info Implementation, caps json.RawMessage) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized, ss.version, ss.clientInfo, ss.clientCaps
}

// setLogLevel records logging/setLevel.
func (ss *Session) setLogLevel(level int) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.logLevel = level
}

// currentLogLevel returns the level set by logging/setLevel, or -1.
func (ss *Session) currentLogLevel() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.logLevel
}

// track registers an in-flight request; it reports false when the id is already in
// flight (ids must not be reused while in flight) or the session is closed.
func (ss *Session) track(c *call) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	key := string(c.msg.ID)
	if _, dup := ss.inflight[key]; dup || ss.closed {
		return false
	}
	ss.inflight[key] = c
	return true
}

// untrack removes a finished request.
func (ss *Session) untrack(c *call) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.inflight[string(c.msg.ID)] == c {
		delete(ss.inflight, string(c.msg.ID))
	}
}

// deliver hands a client's response to the server-to-client request it answers.
func (ss *Session) deliver(m *Message) {
	ss.mu.Lock()
	ch := ss.pending[string(m.ID)]
	delete(ss.pending, string(m.ID))
	ss.mu.Unlock()
	if ch == nil {
		ss.srv.logger.Debug("response to an unknown request", "id", string(m.ID))
		return
	}
	ch <- m
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
// by ctx and by Close, which makes it return ErrSessionClosed): the 2025-11-25 lifecycle has the server send no requests before then. On
// Streamable HTTP that notification is a POST of its own and may arrive after the
// client's first call.
func (ss *Session) Request(ctx context.Context, method string, params any, out Sink) (json.RawMessage, error) {
	select {
	case <-ss.readyCh:
	case <-ss.closedCh:
		return nil, fmt.Errorf("%s: %w", method, ErrSessionClosed)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: the client has not sent notifications/initialized: %w", method, ctx.Err())
	}
	id, ch, out, err := ss.newPending(out)
	if err != nil {
		return nil, err
	}
	msg, err := encodeRequest(id, method, params)
	if err != nil {
		ss.dropPending(id)
		return nil, err
	}
	if err := out.Send(ctx, msg); err != nil {
		ss.dropPending(id)
		return nil, fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		return responseResult(method, m, ok)
	case <-ctx.Done():
		ss.dropPending(id)
		ss.notifyCancelled(out, id)
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// newPending allocates a fresh id and registers a pending request under it.
func (ss *Session) newPending(out Sink) (string, chan *Message, Sink, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return "", nil, nil, ErrSessionClosed
	}
	if out == nil {
		out = ss.out
	}
	ss.nextID++
	id := strconv.FormatInt(ss.nextID, 10)
	ch := make(chan *Message, 1)
	ss.pending[id] = ch
	return id, ch, out, nil
}

// dropPending forgets a pending request.
func (ss *Session) dropPending(id string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.pending, id)
}

// notifyCancelled tells the client, best effort, that the server gave up on a request.
func (ss *Session) notifyCancelled(out Sink, id string) {
	msg, err := jsonrpc.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(id)})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = out.Send(ctx, msg)
}

// encodeRequest encodes a server-to-client request.
func encodeRequest(id, method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	if string(p) == "null" {
		p = nil // params, when present, must be an object
	}
	return mustMarshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", json.RawMessage(id), method, p}), nil
}

// responseResult turns the client's response into a result or a *ClientError.
func responseResult(method string, m *Message, ok bool) (json.RawMessage, error) {
	if !ok {
		return nil, fmt.Errorf("%s: %w", method, ErrSessionClosed)
	}
	if m.Error != nil {
		ce := &ClientError{}
		if err := json.Unmarshal(m.Error, ce); err != nil {
			return nil, fmt.Errorf("%s: malformed error response: %w", method, err)
		}
		return nil, ce
	}
	return m.Result, nil
}
