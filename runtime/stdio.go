package runtime

// stdio.go: the stdio transport: ServeStdio, and what a line means to the
// server (the connection itself, its workers, bounds and drain, is
// internal/stdioconn).

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpgen/mcpgen/runtime/internal/stdioconn"
)

// MaxMessageSize is the longest stdio line the server accepts (16 MiB); a longer one
// is skipped and answered with -32600.
const MaxMessageSize = 16 << 20

// ServeStdio serves one client over newline-delimited JSON: r is its input (normally
// os.Stdin), w its output (os.Stdout), which receives nothing but protocol messages.
// Requests run concurrently, at most Options.MaxConcurrentRequests at a time; up to
// 16 times as many wait for a slot, and further ones are answered with -32603 "server
// busy". A request runs on the goroutine that read it (a pipelined burst is answered
// without a goroutine switch per request and with one write); one still running after
// 2 ms hands reading on to another goroutine, so a handler waiting for the client's
// answer to a server-to-client request, or computing for long, holds the connection
// up for at most that long.
//
// At EOF on r, in-flight requests finish, their responses are written and ServeStdio
// returns nil. When ctx is cancelled (e.g. on SIGTERM), it stops reading, waits up to
// Options.DrainTimeout for in-flight requests, then cancels them and returns nil. The
// goroutine reading r stays blocked in Read until r is closed or the process exits.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	if err := s.Start(ctx); err != nil { // extension.go
		return err
	}
	if s.exts.Load() != nil {
		defer s.stopExtensions(ctx)
	}
	c := &stdioConn{srv: s}
	c.conn = stdioconn.New(r, w, stdioconn.Config[*call]{
		MaxConcurrent: s.opts.MaxConcurrentRequests, MaxMessageSize: MaxMessageSize, TooLarge: ErrMessageTooLarge,
		DrainTimeout: s.opts.DrainTimeout, Logger: s.logger,
		Line: c.line, Run: func(ctx context.Context, cl *call) { s.run(s.observeCall(ctx, cl), cl) },
		Interrupted: func(cl *call) (<-chan struct{}, bool) { return cl.interrupted() },
		Drop:        func(cl *call) { cl.drop() },
		EndStreams:  func() { s.EndSubscriptions(c.sess) },
		Close:       func() { c.sess.Close() },
	})
	c.sess = s.NewSession(c.conn).named(sessionStdio, "")
	return c.conn.Serve(s.stdioContext(ctx))
}

// A stdioConn is one stdio connection (internal/stdioconn) and its legacy
// session; it implements replier for the calls it admits.
type stdioConn struct {
	srv  *Server
	conn *stdioconn.Conn[*call]
	sess *Session
}

// line handles one line: notifications, responses, initialize and refused
// requests inline (so cancellations, answers and the handshake are seen in order).
// A request to run is admitted, tracked in the session (from then on
// notifications/cancelled reaches it) and returned, holding a queue slot.
func (c *stdioConn) line(ctx context.Context, data []byte, readErr error) (*call, bool) {
	if readErr != nil {
		msg := fmt.Sprintf("%v: %v (limit %d bytes)", ErrInvalidRequest, readErr, MaxMessageSize)
		c.conn.Write(ErrorResponse(nil, CodeInvalidRequest, msg, nil))
		return nil, false
	}
	if isBatch(data) && batchSession(c.sess) { // 2025-03-26 only (batch.go)
		c.conn.Go(func() { c.conn.Write(c.srv.serveBatch(ctx, data, c.sess, c.conn)) })
		return nil, false
	}
	m, err := ParseMessage(data)
	switch {
	case err != nil:
		c.conn.Write(ErrorReply(err).Body)
	case m.Kind != KindRequest:
		c.srv.Handle(ctx, m, c.sess, c.conn) // notifications/cancelled reaches waiting and running requests
	case m.Method == "initialize":
		c.conn.Write(c.srv.Handle(ctx, m, c.sess, c.conn).Body)
	default:
		if !c.conn.Admit() {
			c.conn.Write(ErrorResponse(m.ID, CodeInternalError, busyMessage, nil))
			return nil, false
		}
		cl, rerr := c.srv.prepare(m, c.sess, c.conn)
		if rerr != nil {
			c.conn.Unadmit()
			r := rerr.reply(m.ID, m.Era)
			if _, end := c.srv.observe(ctx, m, c.sess); end != nil { // extension.go
				end(outcome(nil, r, false))
			}
			c.conn.Write(r.Body)
			return nil, false
		}
		cl.async = c
		return cl, true
	}
	return nil, false
}

// answer writes a request's reply and releases its slot.
func (c *stdioConn) answer(r Reply) { c.conn.Answer(r.Body) }
