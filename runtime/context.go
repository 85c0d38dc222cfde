package runtime

// context.go: a call's life (begin, abort, stop, finish) and what a handler gets from
// its context: RequestFrom, Progress, Log.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/deadline"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// RequestInfo describes the request a handler is serving.
type RequestInfo struct {
	// ProtocolVersion is the request's version: from its _meta (2026-07-28) or as
	// negotiated by initialize (2025-11-25).
	ProtocolVersion string
	// Modern reports a 2026-07-28 request.
	Modern bool
	// ClientInfo is the client's self-description (may be empty).
	ClientInfo Implementation
	// ClientCapabilities are the capabilities the client declared for this request
	// (2026-07-28) or in initialize (2025-11-25).
	ClientCapabilities json.RawMessage
}

// callKey is the context key of the running call.
type callKey struct{}

// A call is one request being served. Its lifecycle: prepare (admission and
// tracking in the session, on the transport's reading goroutine), begin (the
// request's context, once it may run), the method's handler, conclude (the reply).
type call struct {
	srv    *Server
	msg    *Message
	sess   *Session
	out    Sink
	info   RequestInfo
	handle func(s *Server, ctx context.Context, c *call) ([]byte, *rpcError)

	// ctx is the context handlers see (&c.ctx): it carries the call and its round
	// as values without a context.WithValue of its own.
	ctx    callCtx
	cancel context.CancelCauseFunc // set by begin; the cause is nil but at the deadline
	tool   *toolEntry              // tools/call: the called tool
	framed bool                    // the method's result starts with the response's frame (startResult)

	// Storage for what most calls need once, allocated with the call.
	round    round       // the request's input round once openRound opened it (number > 0)
	toolReq  ToolRequest // tools/call's request
	asideRes *ToolResult // invokeAside's outcome
	asideErr error
	claimed  chan struct{} // invokeAside: closed by whichever claims the call (state)
	fx       *callEffects  // writes and audited calls (effects.go); nil otherwise
	observed func(Outcome) // the extensions observing the call (extension.go); nil: none

	// async, when set, receives the reply instead of the caller of run, and lets
	// a tools/call handler that overruns its deadline be abandoned without a
	// goroutine of its own (invokeInline): the deadline claims the call
	// (state) and answers it, the handler's late result is dropped.
	async replier
	state atomic.Int32 // callRunning, then callReturned, callOverdue or callTimedOut

	// The deadline's watch (deadline.go): the call's place in the server's
	// watch (watch.When: the deadline of a tools/call under
	// Options.CallTimeout, zero otherwise), and the two flags through which the
	// deadline and the handler's start meet (expire, startHandler).
	watch             deadline.Entry[*call]
	expired, invoking atomic.Bool

	progressToken json.RawMessage // nil when the client did not ask for progress
	logLevel      int             // modern: from _meta; -1 none
	clientInfo    json.RawMessage // modern: decoded into info on first RequestFrom
	infoOnce      sync.Once

	// mu guards the fields below.
	mu           sync.Mutex
	done         bool // answered or aborted: nothing more may be sent
	aborted      bool // cancelled by the client: no reply at all
	stopped      bool // cancelled (session closed) before it began
	wake         chan struct{}
	denied       *scopeDenial // RequireScope refused with a challenge (authorize.go)
	lastProgress float64
	sentProgress bool
}

// States of call.state.
const (
	callRunning  int32 = iota // the handler has not returned
	callReturned              // the handler returned before the deadline
	callOverdue               // the deadline answered the call; the handler is abandoned
	callTimedOut              // the deadline ended a synchronous call's wait; the handler is abandoned
)

// A replier receives the reply of an asynchronous call (call.async), exactly
// once, possibly from a timer's goroutine while the handler still runs.
type replier interface {
	answer(Reply)
}

// A callCtx is a call's context: the request's cancellation and deadline, plus
// the call and its round as values. The deadline of a tools/call is the call's
// (deadline.go), not a timer's: Deadline reports it, and once it cancelled the
// context Err reports context.DeadlineExceeded. (A context derived from this
// one and cancelled with it reports context.Canceled, with DeadlineExceeded as
// its context.Cause.)
type callCtx struct {
	context.Context
	c *call
}

// Deadline returns the call's deadline, if it has one.
func (x *callCtx) Deadline() (time.Time, bool) {
	if d := x.c.watch.When; !d.IsZero() {
		return d, true
	}
	return x.Context.Deadline()
}

// Err reports context.DeadlineExceeded once the call's deadline cancelled it.
func (x *callCtx) Err() error {
	err := x.Context.Err()
	if err != nil && !x.c.watch.When.IsZero() && context.Cause(x.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// Value returns the call for callKey and its round for roundKey.
func (x *callCtx) Value(key any) any {
	switch key.(type) {
	case callKey:
		return x.c
	case roundKey:
		if x.c.round.Opened() {
			return &x.c.round
		}
	}
	return x.Context.Value(key)
}

// RequestFrom returns the request ctx belongs to, or nil outside a request handler.
func RequestFrom(ctx context.Context) *RequestInfo {
	c := callFrom(ctx)
	if c == nil {
		return nil
	}
	c.infoOnce.Do(func() {
		if c.clientInfo != nil { // display only: ignore a bad one
			_ = json.Unmarshal(c.clientInfo, &c.info.ClientInfo)
		}
	})
	return &c.info
}

// callFrom returns the call ctx belongs to, or nil.
func callFrom(ctx context.Context) *call {
	if x, ok := ctx.(*callCtx); ok {
		return x.c
	}
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// begin makes the call's context, a child of parent: with the tools/call deadline
// when Options.CallTimeout applies. It reports false when the client cancelled the
// call before it began; a call stopped by its session's Close begins cancelled.
func (c *call) begin(parent context.Context) bool {
	ctx, cancel := context.WithCancelCause(parent)
	c.mu.Lock()
	aborted, stopped := c.aborted, c.stopped
	c.ctx, c.cancel = callCtx{ctx, c}, cancel
	c.mu.Unlock()
	if aborted || stopped {
		cancel(nil)
	}
	if d := c.srv.opts.CallTimeout; d >= 0 && c.msg.Method == "tools/call" {
		c.watchDeadline(d) // deadline.go
	}
	return !aborted
}

// abort cancels the call on the client's behalf: no reply, no more notifications.
// A call still waiting to begin never runs.
func (c *call) abort() {
	c.mu.Lock()
	if c.aborted {
		c.mu.Unlock()
		return
	}
	c.done, c.aborted = true, true
	cancel, wake := c.takeInterrupt()
	c.mu.Unlock()
	interrupt(cancel, wake)
}

// stop cancels the call (its session is closing); it is still answered.
func (c *call) stop() {
	c.mu.Lock()
	c.stopped = true
	cancel, wake := c.takeInterrupt()
	c.mu.Unlock()
	interrupt(cancel, wake)
}

// takeInterrupt returns what interrupts the call: its context's cancel (nil before
// it begins) and the channel that wakes it while it waits to begin, which it
// takes (nil when none). The caller holds c.mu, and calls interrupt after
// unlocking it.
func (c *call) takeInterrupt() (context.CancelCauseFunc, chan struct{}) {
	wake := c.wake
	c.wake = nil
	return c.cancel, wake
}

// interrupt cancels a call's context and wakes it (see takeInterrupt); either may
// be nil.
func interrupt(cancel context.CancelCauseFunc, wake chan struct{}) {
	if cancel != nil {
		cancel(nil)
	}
	if wake != nil {
		close(wake)
	}
}

// interrupted returns a channel closed when the call is aborted or stopped before
// it begins (a transport waiting for a slot selects on it), or nil when it already
// was.
func (c *call) interrupted() (<-chan struct{}, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.aborted || c.stopped {
		return nil, false
	}
	if c.wake == nil {
		c.wake = make(chan struct{})
	}
	return c.wake, true
}

// finish marks the call answered and reports whether the client aborted it.
func (c *call) finish() (aborted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	return c.aborted
}

// send writes a request-scoped notification unless the call is over.
func (c *call) send(ctx context.Context, method string, params any) error {
	msg, err := jsonrpc.Notification(method, params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	done := c.done
	c.mu.Unlock()
	if done {
		return fmt.Errorf("%s: %w", method, ErrRequestDone)
	}
	if err := c.out.Send(ctx, msg); err != nil {
		return fmt.Errorf("send %s: %w", method, err)
	}
	return nil
}

// Progress reports progress of the current request if the client asked for it (with a
// progressToken); otherwise it does nothing. progress must increase with every call;
// total is omitted when 0 (unknown), message when empty.
func Progress(ctx context.Context, progress, total float64, message string) error {
	if h := hooksFrom(ctx); h != nil && h.Progress != nil && h.Progress(ctx, progress, total, message) {
		return nil // an extension took it (callhooks.go)
	}
	c := callFrom(ctx)
	if c == nil || c.progressToken == nil {
		return nil
	}
	if err := c.advance(progress); err != nil {
		return err
	}
	return c.send(ctx, "notifications/progress", jsonrpc.ProgressParams{ProgressToken: c.progressToken, Progress: progress, Total: total, Message: message})
}

// advance records a new progress value, which must exceed the previous one.
func (c *call) advance(progress float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sentProgress && progress <= c.lastProgress {
		return fmt.Errorf("%w: %v after %v", ErrNoProgress, progress, c.lastProgress)
	}
	c.lastProgress, c.sentProgress = progress, true
	return nil
}

// Log sends a log message to the client if it asked for messages at this level: in
// 2026-07-28 through the request's _meta logLevel, in 2025-11-25 through
// logging/setLevel. Otherwise it does nothing. level is a protocol level ("debug",
// "info", "notice", "warning", "error", "critical", "alert", "emergency"); logger may
// be empty. Never log secrets or personal data: the client may show them.
func Log(ctx context.Context, level, logger string, data any) error {
	sev := jsonrpc.LogLevel(level)
	if sev < 0 {
		return fmt.Errorf("%w: %q", ErrInvalidLogLevel, level)
	}
	c := callFrom(ctx)
	if c == nil {
		return nil
	}
	if h := hooksFrom(ctx); h != nil && h.Quiet != nil && h.Quiet(ctx) { // callhooks.go
		return nil
	}
	min := c.logLevel
	if !c.info.Modern && c.sess != nil {
		min = c.sess.currentLogLevel()
	}
	if min < 0 || sev < min {
		return nil
	}
	return c.send(ctx, "notifications/message", jsonrpc.LogParams{Level: level, Logger: logger, Data: data})
}
