package runtime

// stdio.go: the stdio transport: newline-delimited JSON on stdin/stdout, requests
// served concurrently up to a bound, drained at the end.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/lineio"
)

// MaxMessageSize is the longest stdio line the server accepts (16 MiB); a longer one
// is skipped and answered with -32600.
const MaxMessageSize = 16 << 20

// queueFactor times Options.MaxConcurrentRequests is how many requests a stdio
// connection admits (running or waiting for a slot) before answering "server busy".
const queueFactor = 16

// stdioGrace bounds the wait for handlers to return after their contexts are
// cancelled at the end of a drain.
const stdioGrace = time.Second

// ServeStdio serves one client over newline-delimited JSON: r is its input (normally
// os.Stdin), w its output (os.Stdout), which receives nothing but protocol messages.
// Requests run concurrently, at most Options.MaxConcurrentRequests at a time; up to
// 16 times as many wait for a slot, and further ones are answered with -32603 "server
// busy". The reader never waits for handlers, so a handler waiting for the client's
// answer to a server-to-client request cannot block the connection.
//
// At EOF on r, in-flight requests finish, their responses are written and ServeStdio
// returns nil. When ctx is cancelled (e.g. on SIGTERM), it stops reading, waits up to
// Options.DrainTimeout for in-flight requests, then cancels them and returns nil. The
// goroutine reading r stays blocked in Read until r is closed or the process exits.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	c := &stdioConn{
		srv:   s,
		r:     lineio.NewReader(r, MaxMessageSize, ErrMessageTooLarge),
		w:     lineio.NewWriter(w, func(err error) { s.logger.Error("stdout broken", "err", err) }),
		sem:   make(chan struct{}, s.opts.MaxConcurrentRequests),
		queue: make(chan struct{}, queueFactor*s.opts.MaxConcurrentRequests),
	}
	c.sess = s.NewSession(c)
	return c.serve(s.stdioContext(ctx))
}

// maxIdleWorkers bounds the goroutines a stdio connection keeps parked for reuse.
const maxIdleWorkers = 64

// A stdioConn is one stdio connection: a line reader, a serialised line writer and the
// connection's legacy session.
//
// Its goroutines are workers that take turns reading: the reading worker handles
// notifications, responses, initialize and refusals itself; for a request to run,
// it hands the reading role to an idle worker (or starts one) and runs the
// request's handler itself, then waits idle for its next turn. So the way from a
// line to its handler has no hand-off, a request costs at most one goroutine
// start (none while idle workers are available, whose stacks have already grown),
// and no handler ever runs on the reading goroutine: a handler waiting for the
// client's answer cannot block the connection.
type stdioConn struct {
	srv   *Server
	r     *lineio.Reader // read by the current reading goroutine only
	w     *lineio.Writer // the connection's output: whole lines, never interleaved
	sess  *Session
	sem   chan struct{} // one token per running request
	queue chan struct{} // one token per admitted request, running or waiting
	// wg counts the lines being dispatched and the admitted requests.
	wg sync.WaitGroup

	baton chan struct{} // unbuffered: passes the reading role to an idle worker
	quit  chan struct{} // closed when serve returns: idle workers end
	idle  atomic.Int32  // parked workers

	// smu guards stopped, so that no dispatch starts once a drain waits on wg.
	smu     sync.Mutex
	stopped bool
}

// serve starts the reader and waits for EOF or ctx.
func (c *stdioConn) serve(ctx context.Context) error {
	hctx, cancelAll := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAll()
	c.baton, c.quit = make(chan struct{}), make(chan struct{})
	defer close(c.quit)
	readErr := make(chan error, 1) // from the reader that meets EOF or a read error
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

// enter registers a line about to be dispatched; it reports false once the
// connection is stopping (the line is then dropped).
func (c *stdioConn) enter() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.stopped {
		return false
	}
	c.wg.Add(1)
	return true
}

// stop makes the reader drop every further line.
func (c *stdioConn) stop() {
	c.smu.Lock()
	defer c.smu.Unlock()
	c.stopped = true
}

// finish ends the connection at EOF or a read error: in-flight requests complete
// (bounded by a drain if ctx is cancelled meanwhile).
func (c *stdioConn) finish(ctx context.Context, cancelAll context.CancelFunc, readErr error) error {
	c.srv.EndSubscriptions(c.sess) // an open subscriptions/listen never finishes by itself
	done := c.waitChan()
	select {
	case <-done:
	case <-ctx.Done():
		c.drain(cancelAll)
	}
	c.sess.Close()
	if errors.Is(readErr, io.EOF) {
		return nil
	}
	return fmt.Errorf("read stdin: %w", readErr)
}

// drain waits up to the drain timeout for in-flight requests, then cancels them and
// waits a short grace period for their handlers to return.
func (c *stdioConn) drain(cancelAll context.CancelFunc) {
	c.srv.EndSubscriptions(c.sess)
	done := c.waitChan()
	timer := time.NewTimer(c.srv.opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	c.srv.logger.Warn("drain timeout: cancelling in-flight requests")
	cancelAll()
	c.sess.Close()
	select {
	case <-done:
	case <-time.After(stdioGrace):
		c.srv.logger.Warn("handlers still running after cancellation")
	}
}

// waitChan returns a channel closed when every in-flight request has finished.
func (c *stdioConn) waitChan() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	return done
}

// worker reads when it holds the reading role, runs the request it read, and
// waits idle for its next turn.
func (c *stdioConn) worker(ctx context.Context, readErr chan<- error) {
	for {
		cl := c.readLoop(ctx, readErr)
		if cl == nil {
			return
		}
		select {
		case c.baton <- struct{}{}: // an idle worker reads on
		default:
			go c.worker(ctx, readErr)
		}
		c.runRequest(ctx, cl)
		if !c.rest() {
			return
		}
	}
}

// rest parks an idle worker until it gets the reading role; it reports false when
// the connection ended or enough workers are idle.
func (c *stdioConn) rest() bool {
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
// returns, or EOF, a read error or a stop (then nil). Blank lines are skipped; a
// too-long line is answered with -32600.
func (c *stdioConn) readLoop(ctx context.Context, readErr chan<- error) *call {
	for {
		data, err := c.r.ReadLine()
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			readErr <- err
			return nil
		}
		if err == nil && len(jsonwire.TrimSpace(data)) == 0 {
			continue
		}
		if !c.enter() {
			return nil
		}
		if cl := c.dispatch(ctx, data, err); cl != nil {
			return cl
		}
		c.wg.Done()
	}
}

// dispatch handles one line: notifications, responses, initialize and refused
// requests inline (so cancellations, answers and the handshake are seen in order).
// A request to run is admitted, tracked in the session (from then on
// notifications/cancelled reaches it) and returned, holding a queue token.
func (c *stdioConn) dispatch(ctx context.Context, data []byte, readErr error) *call {
	if readErr != nil {
		msg := fmt.Sprintf("%v: %v (limit %d bytes)", ErrInvalidRequest, readErr, MaxMessageSize)
		c.write(ErrorResponse(nil, CodeInvalidRequest, msg, nil))
		return nil
	}
	if isBatch(data) && batchSession(c.sess) { // 2025-03-26 only (batch.go)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if body := c.srv.serveBatch(ctx, data, c.sess, c); body != nil {
				c.write(body)
			}
		}()
		return nil
	}
	m, err := ParseMessage(data)
	switch {
	case err != nil:
		c.write(ErrorReply(err).Body)
	case m.Kind != KindRequest:
		c.srv.Handle(ctx, m, c.sess, c) // notifications/cancelled reaches waiting and running requests
	case m.Method == "initialize":
		c.write(c.srv.Handle(ctx, m, c.sess, c).Body)
	default:
		select {
		case c.queue <- struct{}{}:
		default:
			c.write(ErrorResponse(m.ID, CodeInternalError, "server busy: too many requests in flight", nil))
			return nil
		}
		cl, rerr := c.srv.prepare(m, c.sess, c)
		if rerr != nil {
			<-c.queue
			c.write(rerr.reply(m.ID, m.Era).Body)
			return nil
		}
		cl.async = c
		return cl
	}
	return nil
}

// runRequest runs an admitted request once a slot is free; its reply comes back
// through answer, which releases the slot. A request cancelled while it waits, or
// still waiting when the drain gives up, never runs and is not answered.
func (c *stdioConn) runRequest(ctx context.Context, cl *call) {
	if !c.acquire(ctx, cl) {
		cl.drop()
		c.release()
		return
	}
	c.srv.run(ctx, cl)
}

// acquire takes a slot for cl, waiting while all are taken; it reports false when
// cl was cancelled meanwhile or ctx is done.
func (c *stdioConn) acquire(ctx context.Context, cl *call) bool {
	select {
	case c.sem <- struct{}{}:
	default:
		wake, ok := cl.interrupted()
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

// answer writes a request's reply and releases its slot; it implements replier for
// the calls dispatch admits.
func (c *stdioConn) answer(r Reply) {
	c.write(r.Body)
	<-c.sem
	c.release()
}

// release forgets an admitted request.
func (c *stdioConn) release() {
	<-c.queue
	c.wg.Done()
}

// Send writes one message as a line; it implements Sink for request-scoped and
// unsolicited messages. Safe for concurrent use. A message is flushed at once
// unless another one is already waiting to be written: the last of a burst
// flushes them all with one write.
func (c *stdioConn) Send(_ context.Context, msg []byte) error {
	return c.w.Write(msg)
}

// write sends a reply body, if any.
func (c *stdioConn) write(body []byte) {
	if body != nil {
		_ = c.Send(context.Background(), body)
	}
}
