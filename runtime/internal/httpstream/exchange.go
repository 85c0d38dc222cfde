// Package httpstream carries the messages of one Streamable HTTP request (or of a
// session's standalone stream) to the HTTP responses serving it: a JSON reply, or
// an SSE stream with event ids, resumption and keep-alives.
package httpstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of Send (the runtime's ErrRequestDone and ErrNoStream).
var (
	// ErrDone reports a message sent after the reply.
	ErrDone = errors.New("request already completed")
	// ErrNoStream reports a server-to-client request for a client that does not
	// accept an SSE stream.
	ErrNoStream = errors.New("client does not accept an SSE stream")
)

// A Reply is what ends an exchange: one JSON-RPC response (nil: none) and the HTTP
// status it is answered with.
type Reply struct {
	Body   []byte
	Status int
	// Challenge, when set, is sent as WWW-Authenticate (a 403 for insufficient scope).
	Challenge string
	// Late reports a reply given at the call's deadline while its handler
	// still runs (the handler is abandoned): a response served inline
	// (Pump.ServeInline) must then end without waiting for the handler.
	Late bool
}

// An Exchange carries the messages of one stream to the HTTP response (or, for
// resumable 2025-11-25 streams, the successive responses) serving it. The
// dispatcher writes through Send and finish; a pump goroutine per attached
// response reads. A request's exchange answers with one JSON object unless a
// message is sent before the reply, which turns it into an SSE stream.
//
// Resumable exchanges number their events "<stream>_<seq>" (seq 0 is the
// priming event) and keep them, so a client that lost the connection can GET
// the rest with Last-Event-ID.
type Exchange struct {
	stream    string // event id prefix; "" for non-resumable (2026-07-28) exchanges
	Keep      int    // resumable standalone streams keep at most this many events; 0 keeps all
	streamsOK bool   // the client accepts text/event-stream

	// mu guards every field below; changed, made when someone is about to wait
	// for a change, is closed (and dropped) on every change.
	mu        sync.Mutex
	events    [][]byte // sent messages; events[i] has seq base+i+1
	base      int      // number of events trimmed from the front
	done      bool     // no more events: the reply is in, or the stream ended
	reply     Reply
	sse       bool // the response must be (or is) an SSE stream
	closeReq  bool // the handler asked to close the current connection (SSE polling)
	owner     int  // generation of the pump allowed to write; a new attach wins
	delivered int  // newest seq written to a client
	changed   chan struct{}
	// inline is the pump serving the response while the request's handler
	// runs on the response's own goroutine (Pump.ServeInline): what must reach
	// the client before the handler returns (an event, a close request, a
	// late reply) starts it on a goroutine of its own, once; nil otherwise.
	inline *Pump
	late   bool // the reply is Late
}

// New returns an exchange; stream is the event id prefix of a
// resumable exchange or "".
func New(stream string, streamsOK bool) *Exchange {
	return &Exchange{stream: stream, streamsOK: streamsOK}
}

// signal wakes the pumps; x.mu must be held.
func (x *Exchange) signal() {
	if x.changed != nil {
		close(x.changed)
		x.changed = nil
	}
}

// waitChan returns the channel the next change closes; x.mu must be held.
func (x *Exchange) waitChan() chan struct{} {
	if x.changed == nil {
		x.changed = make(chan struct{})
	}
	return x.changed
}

// maxBacklog bounds the events an exchange buffers: beyond it, notifications for a
// client that reads its stream too slowly are dropped, and delivered events are
// forgotten.
const maxBacklog = 1024

// Send queues one message for the client. It implements runtime.Sink: messages sent
// before the reply make the response an SSE stream. When the client cannot
// read streams a notification is dropped and a request fails with
// ErrNoStream; after the reply Send fails with ErrDone.
func (x *Exchange) Send(_ context.Context, msg []byte) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return ErrDone
	}
	if !x.streamsOK {
		if isRequestMessage(msg) {
			return ErrNoStream // a request nobody can answer would wait forever
		}
		return nil
	}
	if x.base+len(x.events)-x.delivered >= maxBacklog && !isRequestMessage(msg) {
		return nil // a slow reader: drop notifications rather than buffer without bound
	}
	x.events = append(x.events, msg)
	if old := min(x.delivered-x.base, len(x.events)-maxBacklog); x.Keep == 0 && old > 0 {
		// Forget delivered events beyond maxBacklog (a resumption that old is lost).
		x.events = append([][]byte(nil), x.events[old:]...)
		x.base += old
	}
	if x.Keep > 0 && len(x.events) > x.Keep {
		drop := len(x.events) - x.Keep
		x.events = append([][]byte(nil), x.events[drop:]...)
		x.base += drop
	}
	x.sse = true
	x.signal()
	x.wakeInline()
	return nil
}

// Finish records the reply and ends the exchange. On a stream the reply
// becomes its last event.
func (x *Exchange) Finish(r Reply) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return
	}
	x.done, x.reply = true, r
	if x.sse && r.Body != nil {
		x.events = append(x.events, r.Body)
	}
	x.signal()
	if r.Late {
		x.late = true
		x.wakeInline()
	}
}

// Wait returns once the exchange is finished.
func (x *Exchange) Wait() {
	for {
		x.mu.Lock()
		done, changed := x.done, x.waitChan()
		x.mu.Unlock()
		if done {
			return
		}
		<-changed
	}
}

// End ends a stream that has no reply (a session's standalone stream).
func (x *Exchange) End() { x.Finish(Reply{}) }

// Discard ends the exchange and frees the events it kept for resumption: its
// session ended, so nobody can resume it.
func (x *Exchange) Discard() {
	x.Finish(Reply{})
	x.mu.Lock()
	defer x.mu.Unlock()
	x.events, x.base = nil, x.base+len(x.events)
}

// RequestClose asks the pump to close the current connection while the
// stream goes on; it reports false for non-resumable exchanges, which cannot.
func (x *Exchange) RequestClose() bool {
	if x.stream == "" || !x.streamsOK {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return false
	}
	x.sse, x.closeReq = true, true
	x.signal()
	x.wakeInline()
	return true
}

// eventID returns the SSE id of event seq, or "" for non-resumable exchanges.
func (x *Exchange) eventID(seq int) string {
	if x.stream == "" {
		return ""
	}
	return x.stream + "_" + strconv.Itoa(seq)
}

// pumpState is what a pump sees of the exchange at one moment.
type pumpState struct {
	events   [][]byte
	first    int // seq of events[0]
	done     bool
	reply    Reply
	sse      bool
	closeReq bool
	owned    bool
	changed  <-chan struct{}
}

// state returns the events after seq and the rest of the state, and consumes
// a pending close request.
func (x *Exchange) state(after, gen int) pumpState {
	x.mu.Lock()
	defer x.mu.Unlock()
	i := max(after-x.base, 0)
	st := pumpState{events: x.events[min(i, len(x.events)):], first: x.base + min(i, len(x.events)) + 1,
		done: x.done, reply: x.reply, sse: x.sse, closeReq: x.closeReq, owned: x.owner == gen}
	if !st.done { // the pump may wait for the next change
		st.changed = x.waitChan()
	}
	if st.owned {
		x.closeReq = false
	}
	return st
}

// attach makes the caller the only pump allowed to write and returns its
// generation; an older pump still running stops at its next wake-up.
func (x *Exchange) attach() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.owner++
	x.signal()
	return x.owner
}

// markDelivered records that events up to seq reached a client.
func (x *Exchange) markDelivered(seq int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.delivered = max(x.delivered, seq)
}

// DeliveredSeq returns the newest event that reached a client: where a
// standalone stream opened without Last-Event-ID resumes.
func (x *Exchange) DeliveredSeq() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.delivered
}

// A Pump writes an exchange to one HTTP response.
type Pump struct {
	X     *Exchange
	W     http.ResponseWriter
	Hdr   http.Header   // extra response headers (e.g. Mcp-Session-Id)
	Retry time.Duration // announced in the priming event of resumable streams
	// KeepAlive is the quiet time after which an SSE stream gets a comment
	// line, so intermediaries and clients do not time it out; 0 disables.
	KeepAlive time.Duration
	NoPrime   bool // no priming event: a session of a revision before 2025-11-25
	sw        *sseWriter

	// ServeInline's: the request, the pump started while its handler runs
	// (aside; what it reported) and who ends the response (inlineState).
	req           *http.Request
	aside         sync.WaitGroup
	asideDetached bool
	inlineState   atomic.Int32
}

// ServeRequest answers the POST that carried the exchange's request: a JSON
// reply if nothing streamed before it, else an SSE stream. It returns when the
// reply is written, ctx is done (the client went away) or the handler asked
// to close the connection; detached reports the last two cases.
func (p *Pump) ServeRequest(ctx context.Context) (detached bool) {
	detached, _ = p.serveRequest(ctx)
	return detached
}

// serveRequest is ServeRequest; cut reports that it returned while the client
// is still connected and the stream goes on: the handler asked to close the
// connection, or another response (a GET with Last-Event-ID) took the stream.
func (p *Pump) serveRequest(ctx context.Context) (detached, cut bool) {
	gen := p.X.attach()
	after := 0
	for {
		st := p.X.state(after, gen)
		if p.sw == nil && st.done && !st.sse {
			WriteReply(p.W, p.Hdr, st.reply)
			return false, false
		}
		if p.sw == nil && st.sse {
			if err := p.start(after); err != nil {
				return true, false
			}
		}
		end, err := p.drain(ctx, st, &after)
		if end || err != nil {
			return err != nil || !st.done, err == nil && !st.done
		}
	}
}

// ServeStream serves an SSE stream from seq after on: a GET resuming a
// request's stream, or a session's standalone stream. It returns when the
// stream ends, ctx is done, another pump took over or the handler asked to
// close the connection; complete reports that the whole stream was written.
func (p *Pump) ServeStream(ctx context.Context, after int) (complete bool) {
	gen := p.X.attach()
	if err := p.start(after); err != nil {
		return false
	}
	for {
		st := p.X.state(after, gen)
		end, err := p.drain(ctx, st, &after)
		if end || err != nil {
			return err == nil && st.owned && st.done
		}
	}
}

// start begins the SSE response, priming resumable streams with the id of
// the last event the client has (after) and the retry delay, so a reconnect
// replays nothing twice.
func (p *Pump) start(after int) error {
	p.sw = startSSE(p.W, p.Hdr)
	if p.X.stream == "" || p.NoPrime {
		return nil
	}
	return p.sw.prime(p.X.eventID(after), p.Retry)
}

// drain writes the events of st, advances *after, and waits for the next
// change. end reports that the pump must stop.
func (p *Pump) drain(ctx context.Context, st pumpState, after *int) (end bool, err error) {
	if !st.owned {
		return true, nil
	}
	for i, ev := range st.events {
		if err := p.sw.event(p.X.eventID(st.first+i), ev); err != nil {
			return true, fmt.Errorf("write event: %w", err)
		}
		*after = st.first + i
	}
	p.X.markDelivered(*after)
	if st.done || st.closeReq {
		return true, nil
	}
	return p.wait(ctx, st.changed)
}

// wait blocks until the exchange changes or ctx is done, writing keep-alive
// comments on a started stream while it is quiet.
func (p *Pump) wait(ctx context.Context, changed <-chan struct{}) (end bool, err error) {
	var tick <-chan time.Time
	if p.sw != nil && p.KeepAlive > 0 {
		t := time.NewTicker(p.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-changed:
			return false, nil
		case <-ctx.Done():
			return true, ctx.Err()
		case <-tick:
			if err := p.sw.comment(); err != nil {
				return true, err
			}
		}
	}
}

// WriteReply writes a JSON reply, or 202 Accepted when there is nothing to say.
func WriteReply(w http.ResponseWriter, hdr http.Header, r Reply) {
	for k, vs := range hdr {
		w.Header()[k] = vs
	}
	if r.Body == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if r.Challenge != "" {
		w.Header().Set("WWW-Authenticate", r.Challenge)
	}
	w.WriteHeader(r.Status)
	_, _ = w.Write(r.Body)
}

// isRequestMessage reports whether msg is a JSON-RPC request (method and id).
func isRequestMessage(msg []byte) bool {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(msg, &env) == nil && env.Method != "" && env.ID != nil
}

// Stream returns the event id prefix of a resumable exchange, "" for others.
func (x *Exchange) Stream() string { return x.stream }

// StreamNow makes the exchange answer as an SSE stream from the start.
func (x *Exchange) StreamNow() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.streamsOK {
		x.sse = true
	}
}

// Buffered returns how many events the exchange keeps (for resumption or
// delivery).
func (x *Exchange) Buffered() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.events)
}
