package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
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
		r:     bufio.NewReaderSize(r, 64<<10),
		w:     bufio.NewWriterSize(w, 64<<10),
		sem:   make(chan struct{}, s.opts.MaxConcurrentRequests),
		queue: make(chan struct{}, queueFactor*s.opts.MaxConcurrentRequests),

		admitted: map[string]*admission{},
	}
	c.sess = s.NewSession(c)
	return c.serve(ctx)
}

// A stdioConn is one stdio connection: a line reader, a serialised line writer and the
// connection's legacy session.
type stdioConn struct {
	srv   *Server
	r     *bufio.Reader // read by the reading goroutine only
	sess  *Session
	sem   chan struct{} // one token per running request
	queue chan struct{} // one token per admitted request, running or waiting
	wg    sync.WaitGroup

	// amu guards admitted.
	amu      sync.Mutex
	admitted map[string]*admission // by raw request id

	// wmu guards w and werr, so that messages never interleave.
	wmu  sync.Mutex
	w    *bufio.Writer
	werr error
}

// A line is one read result handed from the reading goroutine to the serve loop.
type line struct {
	data []byte
	err  error // ErrMessageTooLarge (recoverable), io.EOF or a read error
}

// serve runs the serve loop until EOF or ctx is done.
func (c *stdioConn) serve(ctx context.Context) error {
	hctx, cancelAll := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAll()
	stop := make(chan struct{})
	defer close(stop)
	lines := make(chan line)
	go c.readLoop(lines, stop)
	for {
		select {
		case <-ctx.Done():
			c.drain(cancelAll)
			return nil
		case l := <-lines:
			if l.err != nil && !errors.Is(l.err, ErrMessageTooLarge) {
				return c.finish(ctx, cancelAll, l.err)
			}
			c.dispatch(hctx, l)
		}
	}
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

// dispatch handles one line: notifications, responses and initialize inline (so
// cancellations, answers and the handshake are seen in order), other requests on
// their own goroutine. It never waits for a handler.
func (c *stdioConn) dispatch(ctx context.Context, l line) {
	if l.err != nil {
		msg := fmt.Sprintf("%v: %v (limit %d bytes)", ErrInvalidRequest, l.err, MaxMessageSize)
		c.write(ErrorResponse(nil, CodeInvalidRequest, msg, nil))
		return
	}
	m, err := ParseMessage(l.data)
	switch {
	case err != nil:
		c.write(ErrorReply(err).Body)
	case m.Kind != KindRequest:
		c.srv.Handle(ctx, m, c.sess, c) // a running request is aborted here first
		if m.Method == "notifications/cancelled" {
			c.cancelAdmitted(m.params.RequestID) // also reaches requests waiting for a slot
		}
	case m.Method == "initialize":
		c.write(c.srv.Handle(ctx, m, c.sess, c).Body)
	default:
		c.start(ctx, m)
	}
}

// An admission is a request admitted on the connection, waiting or running.
type admission struct {
	cancel    context.CancelFunc
	cancelled bool // by notifications/cancelled: nothing may be written for it
}

// start runs a request on its own goroutine once a slot is free, or answers "server
// busy" when too many requests are already admitted.
func (c *stdioConn) start(ctx context.Context, m *Message) {
	select {
	case c.queue <- struct{}{}:
	default:
		c.write(ErrorResponse(m.ID, CodeInternalError, "server busy: too many requests in flight", nil))
		return
	}
	ctx, a := c.admit(ctx, m.ID)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() { <-c.queue }()
		defer c.release(m.ID, a)
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done(): // cancelled while waiting, or the drain gave up
			return
		}
		defer func() { <-c.sem }()
		if ctx.Err() != nil { // select picks at random when both were ready
			return
		}
		r := c.srv.Handle(ctx, m, c.sess, c)
		if !c.wasCancelled(a) {
			c.write(r.Body)
		}
	}()
}

// admit registers a request so that a cancellation reaches it even before it runs.
// A duplicate in-flight id is not registered (Handle rejects it).
func (c *stdioConn) admit(ctx context.Context, id json.RawMessage) (context.Context, *admission) {
	ctx, cancel := context.WithCancel(ctx)
	a := &admission{cancel: cancel}
	c.amu.Lock()
	defer c.amu.Unlock()
	if _, dup := c.admitted[string(id)]; !dup {
		c.admitted[string(id)] = a
	}
	return ctx, a
}

// release forgets a finished request.
func (c *stdioConn) release(id json.RawMessage, a *admission) {
	a.cancel()
	c.amu.Lock()
	defer c.amu.Unlock()
	if c.admitted[string(id)] == a {
		delete(c.admitted, string(id))
	}
}

// cancelAdmitted cancels an admitted request on the client's behalf.
func (c *stdioConn) cancelAdmitted(id json.RawMessage) {
	c.amu.Lock()
	a := c.admitted[string(id)]
	if a != nil {
		a.cancelled = true
	}
	c.amu.Unlock()
	if a != nil {
		a.cancel()
	}
}

// wasCancelled reports whether the client cancelled an admitted request.
func (c *stdioConn) wasCancelled(a *admission) bool {
	c.amu.Lock()
	defer c.amu.Unlock()
	return a.cancelled
}

// readLoop reads lines until EOF or a read error, handing each to the serve loop.
// Blank lines are skipped; a too-long line becomes ErrMessageTooLarge.
func (c *stdioConn) readLoop(lines chan<- line, stop <-chan struct{}) {
	for {
		data, err := c.readLine()
		if err == nil && len(trimSpace(data)) == 0 {
			continue
		}
		select {
		case lines <- line{data: data, err: err}:
		case <-stop:
			return
		}
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			return
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n". A final line without a
// newline counts; a line over MaxMessageSize is skipped and reported as
// ErrMessageTooLarge.
func (c *stdioConn) readLine() ([]byte, error) {
	var buf []byte
	tooLarge := false
	for {
		frag, err := c.r.ReadSlice('\n')
		if !tooLarge && len(buf)+len(frag) > MaxMessageSize+2 {
			tooLarge, buf = true, nil
		}
		if !tooLarge {
			buf = append(buf, frag...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case tooLarge && (err == nil || errors.Is(err, io.EOF)):
			return nil, ErrMessageTooLarge
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return trimEOL(buf), nil
		case err != nil:
			return nil, err
		}
		return trimEOL(buf), nil
	}
}

// trimEOL drops a trailing "\n" and "\r".
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// trimSpace drops JSON whitespace at both ends.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// Send writes one message as a line; it implements Sink for request-scoped and
// unsolicited messages. Safe for concurrent use.
func (c *stdioConn) Send(_ context.Context, msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	c.w.Write(msg)
	c.w.WriteByte('\n')
	if err := c.w.Flush(); err != nil {
		c.werr = fmt.Errorf("write stdout: %w", err)
		c.srv.logger.Error("stdout broken", "err", err)
		return c.werr
	}
	return nil
}

// write sends a reply body, if any.
func (c *stdioConn) write(body []byte) {
	if body != nil {
		_ = c.Send(context.Background(), body)
	}
}
