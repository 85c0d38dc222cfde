// Package stdioconn runs one stdio connection: newline-delimited messages read
// by workers that take turns, requests admitted up to a queue bound and run up
// to a concurrency bound, replies written as whole lines, and the end of the
// connection (EOF, or cancellation with a drain). What a line means and how a
// request runs are the runtime's (Config); R is its request type.
package stdioconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/deadline"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/lineio"
)

// QueueFactor times MaxConcurrent is how many requests a connection admits
// (running or waiting for a slot) before Admit refuses.
const QueueFactor = 16

// maxIdleWorkers bounds the goroutines a connection keeps parked for reuse.
const maxIdleWorkers = 64

// Takeover is how long a request may run on the reading worker before another
// worker takes the reading role over (see Conn), unless Config.Takeover says. The watch's one timer fires at
// most once per Takeover while requests keep coming: with 500 µs, runs of the
// harness's add stdio c=1 cell cost up to twice the CPU per call; from 2 ms on
// they measure as with a hand-off per request.
const Takeover = 2 * time.Millisecond

// grace bounds the wait for handlers to return after their contexts are
// cancelled at the end of a drain.
const grace = time.Second

// Config is what a connection needs of the server.
type Config[R any] struct {
	MaxConcurrent  int           // requests running at once
	MaxMessageSize int           // the longest line; a longer one is skipped
	TooLarge       error         // what Line gets as readErr for a skipped line
	DrainTimeout   time.Duration // how long a cancelled connection waits for requests
	Takeover       time.Duration // see Conn; 0 means the package's Takeover
	Logger         *slog.Logger

	// Line handles one line (readErr: TooLarge): inline, returning false, or
	// it returns a request to run, admitted with Conn.Admit, which the
	// connection runs on a worker once a slot is free.
	Line func(ctx context.Context, data []byte, readErr error) (R, bool)
	// Run runs an admitted request that holds a slot; its reply must come
	// back through Conn.Answer.
	Run func(ctx context.Context, req R)
	// Interrupted returns a channel closed when req is cancelled while it
	// waits for a slot (false: it was cancelled already); Drop forgets a
	// request that will never run.
	Interrupted func(req R) (<-chan struct{}, bool)
	Drop        func(req R)
	// EndStreams ends what would keep requests running forever (listen
	// streams); Close ends the connection's session, cancelling what runs.
	EndStreams func()
	Close      func()
}

// A Conn is one stdio connection: a line reader, a serialised line writer and
// the bounds of its requests.
//
// Its goroutines are workers that take turns reading: the reading worker
// handles notifications, responses, initialize and refusals itself (Line), and
// runs a request itself too, keeping the reading role, when a slot is free.
// If that request is still running after Takeover, a timer hands the reading
// role to an idle worker (or starts one), and the request's worker waits idle
// for its next turn once it has answered. So the way from a line to its
// handler has no hand-off, a short request costs no goroutine switch at all
// (a pipelined burst is served by one goroutine, as a single-threaded server
// serves it), and a handler that waits (for the client's answer, for
// notifications/cancelled) or computes for long blocks the connection for at
// most Takeover (plus the timer's lateness). With no free slot, the reading
// worker hands the reading role over at once and waits for one.
//
// While whole lines of input are still buffered, the writer is held: the
// replies to a pipelined burst leave with one write, when the reader has
// handled the burst (or at a takeover).
type Conn[R any] struct {
	cfg   Config[R]
	r     *lineio.Reader // read by the current reading goroutine only
	w     *lineio.Writer // the connection's output: whole lines, never interleaved
	sem   chan struct{}  // one token per running request
	queue chan struct{}  // one token per admitted request, running or waiting
	// wg counts the lines being dispatched and the admitted requests.
	wg sync.WaitGroup

	baton chan struct{} // unbuffered: passes the reading role to an idle worker
	quit  chan struct{} // closed when Serve returns: idle workers end
	idle  atomic.Int32  // parked workers

	// The request the reading worker runs itself: inline is its token (0:
	// none), gen the last token given (the reading worker's only), entry its
	// takeover deadline in watch, and hctx and readErr what a worker started
	// by a takeover gets.
	inline  atomic.Uint64
	gen     uint64
	entry   deadline.Entry[uint64]
	watch   deadline.Watch[uint64]
	hctx    context.Context
	readErr chan error

	// smu guards stopped, so that no dispatch starts once a drain waits on wg.
	smu     sync.Mutex
	stopped bool
}

// New returns a connection reading r and writing w; Serve serves it.
func New[R any](r io.Reader, w io.Writer, cfg Config[R]) *Conn[R] {
	if cfg.Takeover <= 0 {
		cfg.Takeover = Takeover
	}
	return &Conn[R]{
		cfg:   cfg,
		r:     lineio.NewReader(r, cfg.MaxMessageSize, cfg.TooLarge),
		w:     lineio.NewWriter(w, func(err error) { cfg.Logger.Error("stdout broken", "err", err) }),
		sem:   make(chan struct{}, cfg.MaxConcurrent),
		queue: make(chan struct{}, QueueFactor*cfg.MaxConcurrent),
	}
}

// Serve reads until EOF or ctx is cancelled. At EOF, in-flight requests
// finish, their replies are written and Serve returns nil (or the read error).
// When ctx is cancelled, it stops reading, waits up to DrainTimeout for
// in-flight requests, then cancels them and returns nil.
func (c *Conn[R]) Serve(ctx context.Context) error {
	hctx, cancelAll := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAll()
	c.baton, c.quit = make(chan struct{}), make(chan struct{})
	defer close(c.quit)
	readErr := make(chan error, 1) // from the reader that meets EOF or a read error
	c.hctx, c.readErr = hctx, readErr
	c.watch.Expire = c.takeOver
	go c.worker(hctx, readErr)
	select {
	case <-ctx.Done():
		c.stop()
		c.drain(cancelAll)
		return nil
	case err := <-readErr:
		return c.finish(ctx, cancelAll, err)
	}
}

// Send writes one message as a line: safe for concurrent use. A message is
// flushed at once unless another one is already waiting to be written: the
// last of a burst flushes them all with one write.
func (c *Conn[R]) Send(_ context.Context, msg []byte) error {
	return c.w.Write(msg)
}

// Write sends a reply body, if any.
func (c *Conn[R]) Write(body []byte) {
	if body != nil {
		_ = c.w.Write(body)
	}
}

// Admit takes a queue slot for a request Line is about to return; false when
// the queue is full (the request is then refused as busy).
func (c *Conn[R]) Admit() bool {
	select {
	case c.queue <- struct{}{}:
		return true
	default:
		return false
	}
}

// Unadmit gives back the slot of a request Line admitted and then refused.
func (c *Conn[R]) Unadmit() { <-c.queue }

// Go runs f in the background, counted among the in-flight work the end of
// the connection waits for.
func (c *Conn[R]) Go(f func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f()
	}()
}

// Answer writes a request's reply and releases its slot.
func (c *Conn[R]) Answer(body []byte) {
	c.Write(body)
	<-c.sem
	c.release()
}

// enter registers a line about to be dispatched; it reports false once the
// connection is stopping (the line is then dropped).
func (c *Conn[R]) enter() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	return true
}

// stop makes the reader drop every further line.
func (c *Conn[R]) stop() {
	c.smu.Lock()
	defer c.smu.Unlock()
	c.stopped = true
}

// finish ends the connection at EOF or a read error: in-flight requests complete
// (bounded by a drain if ctx is cancelled meanwhile).
func (c *Conn[R]) finish(ctx context.Context, cancelAll context.CancelFunc, readErr error) error {
	c.cfg.EndStreams() // an open subscriptions/listen never finishes by itself
	done := c.waitChan()
	select {
	case <-done:
	case <-ctx.Done():
		c.drain(cancelAll)
	}
	c.cfg.Close()
	if errors.Is(readErr, io.EOF) {
		return nil
	}
	return fmt.Errorf("read stdin: %w", readErr)
}

// drain waits up to the drain timeout for in-flight requests, then cancels them and
// waits a short grace period for their handlers to return.
func (c *Conn[R]) drain(cancelAll context.CancelFunc) {
	c.cfg.EndStreams()
	done := c.waitChan()
	timer := time.NewTimer(c.cfg.DrainTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	c.cfg.Logger.Warn("drain timeout: cancelling in-flight requests")
	cancelAll()
	c.cfg.Close()
	select {
	case <-done:
	case <-time.After(grace):
		c.cfg.Logger.Warn("handlers still running after cancellation")
	}
}

// waitChan returns a channel closed when every in-flight request has finished.
func (c *Conn[R]) waitChan() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	return done
}

// worker reads when it holds the reading role, runs the request it read, and
// waits idle for its next turn.
func (c *Conn[R]) worker(ctx context.Context, readErr chan<- error) {
	for {
		req, ok := c.readLoop(ctx, readErr)
		if !ok {
			return
		}
		if c.freeSlot(ctx) {
			if c.runInline(ctx, req) {
				continue // still the reading worker
			}
		} else {
			c.passReading(ctx, readErr)
			c.runRequest(ctx, req)
		}
		if !c.rest() {
			return
		}
	}
}

// passReading gives the reading role to an idle worker, or to a new one.
func (c *Conn[R]) passReading(ctx context.Context, readErr chan<- error) {
	select {
	case c.baton <- struct{}{}: // an idle worker reads on
	default:
		go c.worker(ctx, readErr)
	}
}

// freeSlot takes a slot for a request the reading worker is about to run
// itself, if one is free at once.
func (c *Conn[R]) freeSlot(ctx context.Context) bool {
	select {
	case c.sem <- struct{}{}:
	default:
		return false
	}
	if ctx.Err() != nil { // runRequest drops it
		<-c.sem
		return false
	}
	return true
}

// runInline runs req, which holds a slot, on the reading worker; it reports
// whether this worker still holds the reading role (false: a takeover passed
// it on while req ran).
func (c *Conn[R]) runInline(ctx context.Context, req R) bool {
	c.gen++
	tok := c.gen
	c.inline.Store(tok)
	c.watch.Add(&c.entry, tok, c.cfg.Takeover)
	c.cfg.Run(ctx, req)
	if !c.inline.CompareAndSwap(tok, 0) {
		return false // the entry is the new reading worker's now
	}
	c.watch.Remove(&c.entry)
	return true
}

// takeOver passes the reading role on from a request that has run on the
// reading worker for Takeover, and writes out the replies held meanwhile.
func (c *Conn[R]) takeOver(tok uint64) {
	if c.inline.CompareAndSwap(tok, 0) {
		c.passReading(c.hctx, c.readErr)
		c.w.Flush()
	}
}

// rest parks an idle worker until it gets the reading role; it reports false when
// the connection ended or enough workers are idle.
func (c *Conn[R]) rest() bool {
	defer c.idle.Add(-1)
	if c.idle.Add(1) > maxIdleWorkers {
		return false
	}
	select {
	case <-c.baton:
		return true
	case <-c.quit:
		return false
	}
}

// readLoop reads and dispatches lines until it meets a request to run, which it
// returns, or EOF, a read error or a stop (then false). Blank lines are skipped; a
// too-long line goes to Line with TooLarge.
func (c *Conn[R]) readLoop(ctx context.Context, readErr chan<- error) (R, bool) {
	for {
		if !c.r.HasLine() {
			c.w.Release() // about to wait for input: what was held goes out
		}
		data, err := c.r.ReadLine()
		if c.r.HasLine() {
			c.w.Hold() // more to handle before the replies go out
		}
		if err != nil && !errors.Is(err, c.cfg.TooLarge) {
			readErr <- err
			var zero R
			return zero, false
		}
		if err == nil && len(jsonwire.TrimSpace(data)) == 0 {
			continue
		}
		if !c.enter() {
			c.w.Release()
			var zero R
			return zero, false
		}
		if req, ok := c.cfg.Line(ctx, data, err); ok {
			return req, true
		}
		c.wg.Done()
	}
}

// runRequest runs an admitted request once a slot is free; its reply comes back
// through Answer, which releases the slot. A request cancelled while it waits, or
// still waiting when the drain gives up, never runs and is not answered.
func (c *Conn[R]) runRequest(ctx context.Context, req R) {
	if !c.acquire(ctx, req) {
		c.cfg.Drop(req)
		c.release()
		return
	}
	c.cfg.Run(ctx, req)
}

// acquire takes a slot for req, waiting while all are taken; it reports false when
// req was cancelled meanwhile or ctx is done.
func (c *Conn[R]) acquire(ctx context.Context, req R) bool {
	select {
	case c.sem <- struct{}{}:
	default:
		wake, ok := c.cfg.Interrupted(req)
		if !ok {
			return false
		}
		select {
		case c.sem <- struct{}{}:
		case <-wake:
			return false
		case <-ctx.Done():
			return false
		}
	}
	if ctx.Err() != nil { // select picks at random when both were ready
		<-c.sem
		return false
	}
	return true
}

// release forgets an admitted request.
func (c *Conn[R]) release() {
	<-c.queue
	c.wg.Done()
}
