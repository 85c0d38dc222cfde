// Package peer holds the state of one 2025-11-25 client session: what initialize
// negotiated (revision, client info, capabilities), the log level, the requests in
// flight, and the server-to-client requests awaiting an answer (fresh ids, the
// wait for notifications/initialized, routing the client's responses, giving up
// with notifications/cancelled). Info is the runtime's client Implementation and
// Call its in-flight request; what they mean is the runtime's.
package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// ErrClosed reports a server-to-client request on a closed session.
var ErrClosed = errors.New("session closed")

// A Sink delivers one complete JSON-RPC message (the runtime's Sink).
type Sink interface {
	Send(ctx context.Context, msg []byte) error
}

// A ClientError is an error response the client sent to a server-to-client request.
type ClientError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *ClientError) Error() string { return fmt.Sprintf("client error %d: %s", e.Code, e.Message) }

// An answer is the client's response to a server-to-client request.
type answer struct{ result, err json.RawMessage }

// A Session is one client's state; Init makes the zero value ready. Its methods
// are safe for concurrent use.
type Session[Info any, Call comparable] struct {
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
	info        Info
	caps        json.RawMessage
	logLevel    int // -1 until logging/setLevel
	nextID      int64
	pending     map[string]chan answer
	inflight    map[string]Call
	closed      bool
}

// Init prepares s with out as its sink for unsolicited messages.
func (s *Session[Info, Call]) Init(out Sink) {
	s.out, s.logLevel = out, -1
	s.readyCh, s.closedCh = make(chan struct{}), make(chan struct{})
	s.pending, s.inflight = map[string]chan answer{}, map[string]Call{}
}

// SetOut replaces the sink for unsolicited messages.
func (s *Session[Info, Call]) SetOut(out Sink) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = out
}

// Out returns the sink for unsolicited messages.
func (s *Session[Info, Call]) Out() Sink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// Done is closed by Close.
func (s *Session[Info, Call]) Done() <-chan struct{} { return s.closedCh }

// Closed reports whether Close was called.
func (s *Session[Info, Call]) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Initialize records what the initialize handshake negotiated. It reports false,
// changing nothing, when the session was initialized before.
func (s *Session[Info, Call]) Initialize(version string, info Info, caps json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return false
	}
	s.initialized, s.version, s.info, s.caps = true, version, info, caps
	return true
}

// Snapshot returns what initialize negotiated (initialized false before it).
func (s *Session[Info, Call]) Snapshot() (initialized bool, version string, info Info, caps json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.initialized, s.version, s.info, s.caps
}

// MarkReady records notifications/initialized.
func (s *Session[Info, Call]) MarkReady() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		s.ready = true
		close(s.readyCh)
	}
}

// SetLogLevel records logging/setLevel.
func (s *Session[Info, Call]) SetLogLevel(level int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = level
}

// LogLevel returns the level set by SetLogLevel, or -1.
func (s *Session[Info, Call]) LogLevel() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logLevel
}

// Track registers an in-flight request under its raw id; it reports false when
// the id is already in flight (ids must not be reused while in flight) or the
// session is closed.
func (s *Session[Info, Call]) Track(id string, c Call) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id]; dup || s.closed {
		return false
	}
	s.inflight[id] = c
	return true
}

// Untrack removes c, a finished request, unless another took its id.
func (s *Session[Info, Call]) Untrack(id string, c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight[id] == c {
		delete(s.inflight, id)
	}
}

// InFlight returns the request in flight under id, if any.
func (s *Session[Info, Call]) InFlight(id string) (Call, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.inflight[id]
	return c, ok
}

// Close closes the session: it fails every pending server-to-client request
// with ErrClosed and returns the requests in flight (for the caller to stop).
func (s *Session[Info, Call]) Close() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		close(s.closedCh)
	}
	s.closed = true
	calls := make([]Call, 0, len(s.inflight))
	for _, c := range s.inflight {
		calls = append(calls, c)
	}
	for id, ch := range s.pending {
		close(ch)
		delete(s.pending, id)
	}
	return calls
}

// Deliver hands a client's response (its raw id, result and error members) to
// the request it answers; it reports false when no request awaits it.
func (s *Session[Info, Call]) Deliver(id string, result, errObj json.RawMessage) bool {
	s.mu.Lock()
	ch := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- answer{result, errObj}
	return true
}

// Request sends a server-to-client request with a fresh id on out (nil: the
// session's sink) once the client is ready, and waits for its answer: the
// result, a *ClientError, ErrClosed (wrapped) or ctx's error. Giving up on
// ctx tells the client with notifications/cancelled.
func (s *Session[Info, Call]) Request(ctx context.Context, method string, params any, out Sink) (json.RawMessage, error) {
	select {
	case <-s.readyCh:
	case <-s.closedCh:
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: the client has not sent notifications/initialized: %w", method, ctx.Err())
	}
	id, ch, out, err := s.newPending(out)
	if err != nil {
		return nil, err
	}
	msg, err := EncodeRequest(id, method, params)
	if err == nil {
		if err = out.Send(ctx, msg); err != nil {
			err = fmt.Errorf("send %s: %w", method, err)
		}
	}
	if err != nil {
		s.dropPending(id)
		return nil, err
	}
	select {
	case a, ok := <-ch:
		return result(method, a, ok)
	case <-ctx.Done():
		s.dropPending(id)
		notifyCancelled(out, id)
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// newPending allocates a fresh id and registers a pending request under it.
func (s *Session[Info, Call]) newPending(out Sink) (string, chan answer, Sink, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", nil, nil, ErrClosed
	}
	if out == nil {
		out = s.out
	}
	s.nextID++
	id := strconv.FormatInt(s.nextID, 10)
	ch := make(chan answer, 1)
	s.pending[id] = ch
	return id, ch, out, nil
}

// dropPending forgets a pending request.
func (s *Session[Info, Call]) dropPending(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
}

// notifyCancelled tells the client, best effort, that the server gave up on a request.
func notifyCancelled(out Sink, id string) {
	msg, err := jsonrpc.Notification("notifications/cancelled", map[string]any{"requestId": json.RawMessage(id)})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = out.Send(ctx, msg)
}

// EncodeRequest encodes a server-to-client request; params encoding to null is
// left out (params, when present, must be an object).
func EncodeRequest(id, method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	if string(p) == "null" {
		p = nil
	}
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
	}{"2.0", json.RawMessage(id), method, p})
}

// result turns the client's answer into a result or a *ClientError.
func result(method string, a answer, ok bool) (json.RawMessage, error) {
	if !ok {
		return nil, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	if a.err != nil {
		ce := &ClientError{}
		if err := json.Unmarshal(a.err, ce); err != nil {
			return nil, fmt.Errorf("%s: malformed error response: %w", method, err)
		}
		return nil, ce
	}
	return a.result, nil
}
