// Package legacysse is the HTTP+SSE transport of 2024-11-05: a client GETs the
// stream path and receives an event stream whose first event, "endpoint",
// names the URL to POST its messages to (message path?sessionId=ID). Every POST
// is answered 202 Accepted; the server's responses, notifications and requests
// travel on the stream as "message" events. One stream is one session: it ends
// when the stream closes, or when no message came for IdleTimeout while nothing
// ran. What a session is and how a message is served are the runtime's
// (Config); this package keeps the streams, their sessions and their bounds
// (in all, per remote address, and idle).
//
// Every POST is a request of its own: it carries its own credentials, and its
// message is served as the POST's caller (its principal, scopes and expiry, in
// the POST's context), never as the caller of the GET that opened the stream.
// The POST's caller must be the stream's (Caller: the same subject and client),
// or it gets OtherCaller (403).
package legacysse

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// A Sink receives the messages of one session (runtime.Sink).
type Sink interface {
	Send(ctx context.Context, msg []byte) error
}

// Config is what the transport needs of the server; S is its session type.
type Config[S any] struct {
	StreamPath, MessagePath string
	MaxSessions             int // open streams, beside Streamable HTTP's sessions
	MaxSessionsPerPeer      int // open streams of one remote address (<= 0: MaxSessions)
	MaxConcurrentRequests   int // per session
	// IdleTimeout ends a stream no message was POSTed to for this long while
	// none of its requests ran (<= 0: never).
	IdleTimeout time.Duration
	KeepAlive   time.Duration
	Closed      error  // what a session's Send returns once its stream is gone
	OtherCaller string // the refusal of a message from another caller than the stream's

	// Admit checks a request before it is routed (Host, Origin; it may add
	// the anonymous principal); it answers a refusal itself.
	Admit func(w http.ResponseWriter, r *http.Request) (*http.Request, bool)
	// Caller identifies who sends r: a session's messages must come from
	// the caller that opened its stream.
	Caller func(r *http.Request) string
	// PeerOf names the remote address MaxSessionsPerPeer counts r against.
	PeerOf func(r *http.Request) string
	// ReadBody reads a POST body within the handler's limits, answering a
	// refusal itself.
	ReadBody func(w http.ResponseWriter, r *http.Request) ([]byte, bool)
	// Refuse answers a request with an HTTP status and a JSON-RPC error (id
	// may be nil); Busy answers one beyond MaxConcurrentRequests.
	Refuse func(w http.ResponseWriter, status int, id []byte, msg string)
	Busy   func(w http.ResponseWriter, id []byte)
	// NewSession opens the session whose messages go to out; EndSession ends
	// it when its stream closes.
	NewSession func(out Sink) S
	EndSession func(S)
	// Post serves one POSTed body of session s, whose messages go to out and
	// whose handlers run under ctx: the POST's context (its principal), ended
	// when the stream ends. It answers what it serves inline (a
	// notification, a malformed message) itself, and hands a request to run,
	// which answers 202 and runs f in the background, or answers busy (id is
	// the request's).
	Post func(w http.ResponseWriter, ctx context.Context, s S, body []byte, out Sink, run func(id []byte, f func()))
}

// A Transport serves the stream and message paths of one handler.
type Transport[S any] struct {
	cfg Config[S]

	mu    sync.Mutex
	conns map[string]*conn[S]
	peers map[string]int // open streams per remote address
}

// Reasons a stream is refused (503).
const (
	tooManySessions     = "too many sessions"
	tooManyPeerSessions = "too many sessions from this client"
)

// New returns the transport.
func New[S any](cfg Config[S]) *Transport[S] {
	if cfg.MaxSessionsPerPeer <= 0 || cfg.MaxSessionsPerPeer > cfg.MaxSessions {
		cfg.MaxSessionsPerPeer = cfg.MaxSessions
	}
	return &Transport[S]{cfg: cfg, conns: map[string]*conn[S]{}, peers: map[string]int{}}
}

// A conn is one HTTP+SSE session: its event stream and its session.
type conn[S any] struct {
	t      *Transport[S]
	id     string
	caller string // Caller of the request that opened the stream
	peer   string // PeerOf that request
	sess   S
	ctx    context.Context // ends with the stream: cancels the session's handlers
	end    context.CancelFunc

	mu       sync.Mutex // serializes writes to sw
	sw       *httpstream.SSEWriter
	closed   bool
	requests int       // requests running (MaxConcurrentRequests)
	lastUsed time.Time // when the last POST came or the last request ended
}

// Send writes msg as a "message" event; it implements Sink for the session.
func (c *conn[S]) Send(_ context.Context, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.sw == nil {
		return c.t.cfg.Closed
	}
	return c.sw.Named("message", msg)
}

// ServeHTTP routes the stream and the message endpoint, after Admit.
func (t *Transport[S]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := t.cfg.Admit(w, r)
	if !ok {
		return
	}
	switch {
	case r.URL.Path == t.cfg.StreamPath && r.Method == http.MethodGet:
		t.serveStream(w, r)
	case r.URL.Path == t.cfg.MessagePath && r.Method == http.MethodPost:
		t.servePost(w, r)
	case r.URL.Path == t.cfg.StreamPath:
		w.Header().Set("Allow", "GET")
		t.cfg.Refuse(w, http.StatusMethodNotAllowed, nil, "method not allowed")
	default:
		w.Header().Set("Allow", "POST")
		t.cfg.Refuse(w, http.StatusMethodNotAllowed, nil, "method not allowed")
	}
}

// serveStream opens a session and serves its event stream until the client
// goes away or the server shuts down.
func (t *Transport[S]) serveStream(w http.ResponseWriter, r *http.Request) {
	if !httpstream.AcceptsStream(r) {
		t.cfg.Refuse(w, http.StatusNotAcceptable, nil, "GET needs Accept: text/event-stream")
		return
	}
	c := &conn[S]{t: t, id: rand.Text(), caller: t.cfg.Caller(r), peer: t.cfg.PeerOf(r), lastUsed: time.Now()}
	c.ctx, c.end = context.WithCancel(context.WithoutCancel(r.Context()))
	defer c.end()
	if refusal := t.add(c); refusal != "" {
		t.cfg.Refuse(w, http.StatusServiceUnavailable, nil, refusal)
		return
	}
	c.sess = t.cfg.NewSession(c)
	defer t.remove(c)
	c.mu.Lock()
	c.sw = httpstream.StartSSE(w, nil)
	err := c.sw.Named("endpoint", []byte(t.cfg.MessagePath+"?sessionId="+c.id))
	c.mu.Unlock()
	if err != nil {
		return
	}
	var tick, idle <-chan time.Time // nil: never
	if t.cfg.KeepAlive > 0 {
		tk := time.NewTicker(t.cfg.KeepAlive)
		defer tk.Stop()
		tick = tk.C
	}
	var idleTimer *time.Timer
	if t.cfg.IdleTimeout > 0 {
		idleTimer = time.NewTimer(t.cfg.IdleTimeout)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-c.ctx.Done(): // EndStreams
			return
		case <-idle:
			wait := c.idleLeft(t.cfg.IdleTimeout, time.Now())
			if wait <= 0 {
				return // idle: the session ends with its stream
			}
			idleTimer.Reset(wait)
		case <-tick:
			c.mu.Lock()
			err := c.sw.Comment()
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}
}

// idleLeft returns how long the stream may stay open without a message: at
// most 0 once it has been idle for timeout at now; a running request keeps it
// open for another timeout.
func (c *conn[S]) idleLeft(timeout time.Duration, now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests > 0 {
		return timeout
	}
	return c.lastUsed.Add(timeout).Sub(now)
}

// add registers an open stream unless MaxSessions are open, or
// MaxSessionsPerPeer of its remote address; it returns the refusal otherwise.
func (t *Transport[S]) add(c *conn[S]) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.conns) >= t.cfg.MaxSessions {
		return tooManySessions
	}
	if t.peers[c.peer] >= t.cfg.MaxSessionsPerPeer {
		return tooManyPeerSessions
	}
	t.conns[c.id] = c
	t.peers[c.peer]++
	return ""
}

// remove ends a session whose stream closed: its handlers are cancelled and
// nothing more is sent.
func (t *Transport[S]) remove(c *conn[S]) {
	t.mu.Lock()
	delete(t.conns, c.id)
	if t.peers[c.peer] <= 1 {
		delete(t.peers, c.peer)
	} else {
		t.peers[c.peer]--
	}
	t.mu.Unlock()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.end()
	t.cfg.EndSession(c.sess)
}

// EndStreams ends every open stream (shutdown).
func (t *Transport[S]) EndStreams() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.conns {
		c.end()
	}
}

// servePost hands one message of a session to Post, after checking that it
// comes from the stream's caller.
func (t *Transport[S]) servePost(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	t.mu.Lock()
	c := t.conns[id]
	t.mu.Unlock()
	if c == nil {
		t.cfg.Refuse(w, http.StatusNotFound, nil, "unknown or terminated session")
		return
	}
	if c.caller != t.cfg.Caller(r) {
		t.cfg.Refuse(w, http.StatusForbidden, nil, t.cfg.OtherCaller)
		return
	}
	c.touch()
	body, ok := t.cfg.ReadBody(w, r)
	if !ok {
		return
	}
	// The message runs as this POST's caller (its context's principal), and
	// is cancelled when the stream ends.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(c.ctx, cancel)
	background := false
	t.cfg.Post(w, ctx, c.sess, body, c, func(id []byte, f func()) {
		if !c.enter(t.cfg.MaxConcurrentRequests) {
			t.cfg.Busy(w, id)
			return
		}
		background = true
		// The 202 is flushed before the request runs, so a client that
		// cancels on the first progress notification never finds its POST
		// still open.
		w.WriteHeader(http.StatusAccepted)
		_ = http.NewResponseController(w).Flush()
		go func() {
			defer c.leave()
			defer cancel()
			defer stop()
			f()
		}()
	})
	if !background {
		stop()
		cancel()
	}
}

// enter counts a running request unless limit run already or the stream is
// gone; leave ends it.
func (c *conn[S]) enter(limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests >= limit || c.closed {
		return false
	}
	c.requests++
	return true
}

// leave ends what enter counted.
func (c *conn[S]) leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests--
	c.lastUsed = time.Now()
}

// touch records a message POSTed now (IdleTimeout).
func (c *conn[S]) touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastUsed = time.Now()
}
