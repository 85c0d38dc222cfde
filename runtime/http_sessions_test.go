package runtime

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
)

// Tests of the 2025-11-25 session store over HTTP: MaxSessions holds under
// concurrent initializes, one peer cannot lock others out, idle sessions end
// on their own, and a handler mounted in a user's mux shuts down.

// sessionRig drives an httpHandler directly, so each request can come from a
// chosen remote address.
type sessionRig struct {
	t     *testing.T
	h     *httpHandler
	probe *httpProbe
}

// newSessionRig returns a handler with the HTTP test tools and opts.
func newSessionRig(t *testing.T, opts *HTTPOptions) *sessionRig {
	t.Helper()
	s := NewServer(Implementation{Name: "sessions", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := newHTTPProbe()
	httpTestTools(s, p)
	rig := &sessionRig{t: t, h: newHTTPHandler(s, opts.withDefaults()), probe: p}
	t.Cleanup(func() {
		select {
		case <-p.release:
		default:
			close(p.release)
		}
	})
	return rig
}

// serve sends one POST from peer (host:port) with an optional session id.
func (rig *sessionRig) serve(peer, session string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(string(body)))
	r.RemoteAddr, r.Host = peer, "127.0.0.1"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		r.Header.Set("Mcp-Session-Id", session)
		r.Header.Set("Mcp-Protocol-Version", versionLegacy)
	}
	w := httptest.NewRecorder()
	rig.h.ServeHTTP(w, r)
	return w
}

// initialize opens a session from peer and returns the status and session id.
func (rig *sessionRig) initialize(peer string) (int, string) {
	w := rig.serve(peer, "", rpcRequest(1, "initialize", map[string]any{
		"protocolVersion": versionLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "rig", "version": "1"},
	}))
	return w.Code, w.Header().Get(httpcheck.HeaderSessionID)
}

// mustInitialize opens a session from peer or fails the test.
func (rig *sessionRig) mustInitialize(peer string) string {
	rig.t.Helper()
	status, id := rig.initialize(peer)
	if status != http.StatusOK || id == "" {
		rig.t.Fatalf("initialize from %s: got status %d, session %q; want 200 and a session", peer, status, id)
	}
	return id
}

// busy starts a call that waits for the probe's release on the session, and
// returns once it runs; the session is then in active use.
func (rig *sessionRig) busy(peer, session string, wg *sync.WaitGroup) {
	rig.t.Helper()
	wg.Go(func() { rig.serve(peer, session, rpcRequest(9, "tools/call", map[string]any{"name": "wait"})) })
	waitFor(rig.t, rig.probe.started, "a waiting call to start")
}

// live reports whether the session still answers a request.
func (rig *sessionRig) live(peer, session string) bool {
	return rig.serve(peer, session, rpcRequest(2, "tools/list", nil)).Code == http.StatusOK
}

// TestHTTPMaxSessions: with every session in active use, one more initialize
// gets 503 and -32603, from a peer at MaxSessionsPerPeer as from any peer once
// the store is full; a failed initialize does not use up a slot.
func TestHTTPMaxSessions(t *testing.T) {
	rig := newSessionRig(t, &HTTPOptions{MaxSessions: 3, MaxSessionsPerPeer: 2})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(rig.probe.release)
	refused := func(peer, want string) {
		t.Helper()
		w := rig.serve(peer, "", rpcRequest(7, "initialize", map[string]any{
			"protocolVersion": versionLegacy, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "rig", "version": "1"},
		}))
		if w.Code != http.StatusServiceUnavailable {
			t.Fatalf("initialize from %s: got status %d, want 503 (%s)", peer, w.Code, want)
		}
		if code, id := rpcErrorOf(t, w.Body.Bytes()); code != CodeInternalError || string(id) != "7" || !strings.Contains(w.Body.String(), want) {
			t.Fatalf("initialize from %s: got %s, want code %d, id 7 and %q", peer, w.Body, CodeInternalError, want)
		}
	}
	for range 3 {
		bad := rig.serve("10.0.0.1:1", "", rpcRequest(1, "initialize", map[string]any{"capabilities": map[string]any{}}))
		if bad.Code == http.StatusServiceUnavailable || bad.Header().Get(httpcheck.HeaderSessionID) != "" {
			t.Fatalf("malformed initialize: got status %d, session %q", bad.Code, bad.Header().Get(httpcheck.HeaderSessionID))
		}
	}
	rig.busy("10.0.0.1:1", rig.mustInitialize("10.0.0.1:1"), &wg)
	rig.busy("10.0.0.1:2", rig.mustInitialize("10.0.0.1:2"), &wg)
	refused("10.0.0.1:3", "too many sessions from this client")
	rig.busy("10.0.0.2:1", rig.mustInitialize("10.0.0.2:1"), &wg)
	refused("10.0.0.3:1", "too many sessions")
}

// TestHTTPSessionsOnePeerCannotLockOut: one peer initializing far more
// sessions than the store holds does not lock a fresh peer out, and sessions
// in active use are never evicted to make room.
func TestHTTPSessionsOnePeerCannotLockOut(t *testing.T) {
	rig := newSessionRig(t, &HTTPOptions{MaxSessions: 4})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(rig.probe.release)
	busy := rig.mustInitialize("10.0.0.1:1")
	rig.busy("10.0.0.1:1", busy, &wg)
	for range 20 {
		if status, _ := rig.initialize("10.0.0.66:4000"); status != http.StatusOK {
			t.Fatalf("flooding peer: got status %d; the store should recycle its abandoned sessions", status)
		}
	}
	fresh := rig.mustInitialize("10.0.0.2:1")
	if !rig.live("10.0.0.2:1", fresh) {
		t.Error("the fresh peer's session does not answer")
	}
	if !rig.live("10.0.0.1:1", busy) {
		t.Error("a session in active use was evicted")
	}
}

// TestHTTPIdleSessionEndsAlone: a session idle beyond SessionIdleTimeout ends
// without any other traffic, freeing what its GET stream buffered, and its id
// then gets 404.
func TestHTTPIdleSessionEndsAlone(t *testing.T) {
	rig := newSessionRig(t, nil)
	st := rig.h.Sessions
	defer st.CloseAll()
	id := rig.mustInitialize("10.0.0.1:1")
	hs := st.All()[0]
	for range 10 {
		if err := hs.Standalone.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)); err != nil {
			t.Fatal(err)
		}
	}
	// The session is set up: now let it time out soon, from the timer its
	// store armed when it was added.
	if !st.Sweeping() {
		t.Fatal("no idle sweep is armed while a session lives")
	}
	st.SetIdle(20 * time.Millisecond)
	waitFor(t, hs.Conn.p.Done(), "the idle session to end by itself")
	// Closing the session ends its dispatcher side first, then frees its
	// streams: wait for the second step too.
	for deadline := time.Now().Add(10 * time.Second); hs.Standalone.Buffered() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ended session still buffers %d events", hs.Standalone.Buffered())
		}
	}
	if n := len(rig.h.Sessions.All()); n != 0 {
		t.Errorf("the store still holds %d sessions", n)
	}
	if w := rig.serve("10.0.0.1:1", id, rpcRequest(2, "tools/list", nil)); w.Code != http.StatusNotFound {
		t.Errorf("request on the ended session: got status %d, want 404", w.Code)
	}
}

// TestHTTPBodyTimeoutUnenforceable: behind middleware whose ResponseWriter
// wrapper hides SetReadDeadline (no Unwrap), BodyTimeout cannot be enforced;
// the handler says so in the log, once, instead of silently doing nothing.
func TestHTTPBodyTimeoutUnenforceable(t *testing.T) {
	logs := &lockedBuffer{}
	s := NewServer(Implementation{Name: "wrapped", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	httpTestTools(s, newHTTPProbe())
	h := s.HTTPHandler(nil)
	type plainWriter struct{ http.ResponseWriter } // no Unwrap, no SetReadDeadline
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(plainWriter{w}, r)
	}))
	defer ts.Close()
	c := newHTTPClient(t, ts)
	for i := range 3 {
		if status, msgs := c.modernCall(i+1, "tools/list", nil, nil); status != http.StatusOK || len(msgs) != 1 {
			t.Fatalf("tools/list behind the wrapper: got status %d, %d messages", status, len(msgs))
		}
	}
	if n := strings.Count(logs.String(), "BodyTimeout"); n != 1 {
		t.Fatalf("got %d log lines about BodyTimeout, want 1:\n%s", n, logs.String())
	}
}

// TestHTTPHandlerShutdownCustomMux runs the docs/runtime.md custom-mux
// sample's shutdown: with a 2025-11-25 GET stream open and a call of that
// session running, HTTPHandler.Shutdown ends the stream at once, waits for the
// call, and ends the session, so the http.Server's own Shutdown then returns
// nil instead of waiting for its deadline on the stream.
func TestHTTPHandlerShutdownCustomMux(t *testing.T) {
	s := NewServer(Implementation{Name: "books", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := newHTTPProbe()
	httpTestTools(s, p)
	mcp := s.HTTPHandler(nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	c := &httpClient{t: t, url: "http://" + ln.Addr().String() + "/mcp", schemas: testSpec}
	c.initialize()
	stream := c.do(http.MethodGet, http.Header{"Accept": {"text/event-stream"}, "Mcp-Protocol-Version": {versionLegacy}})
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: got status %d", stream.StatusCode)
	}
	call := make(chan string, 1)
	go func() {
		resp := c.post(context.Background(), legacyHeaders(), rpcRequest(2, "tools/call", map[string]any{"name": "wait"}))
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		call <- string(b)
	}()
	waitFor(t, p.started, "the call to start")

	shutdown, cancel := context.WithTimeout(context.Background(), httpWait)
	defer cancel()
	mcpDone := make(chan error, 1)
	go func() { mcpDone <- mcp.Shutdown(shutdown) }()
	streamEnded := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream.Body); streamEnded <- err }()
	if err := waitFor(t, streamEnded, "the GET stream to end"); err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	close(p.release) // the running call may finish: Shutdown waits for it
	if err := waitFor(t, mcpDone, "HTTPHandler.Shutdown"); err != nil {
		t.Fatalf("HTTPHandler.Shutdown: %v", err)
	}
	if got := waitFor(t, call, "the call's answer"); !strings.Contains(got, "released") {
		t.Errorf("the running call: got %s, want its result", got)
	}
	if n := len(mcp.h.Sessions.All()); n != 0 {
		t.Errorf("%d sessions left after Shutdown", n)
	}
	if mcp.h.Sessions.Sweeping() {
		t.Error("the idle sweep still runs after Shutdown")
	}
	if err := srv.Shutdown(shutdown); err != nil {
		t.Fatalf("http.Server.Shutdown: %v", err)
	}
	if err := waitFor(t, served, "Serve to return"); !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve: %v", err)
	}
}

// TestHTTPExpiredSessionUnusable: a session idle beyond SessionIdleTimeout is
// gone for its client at once, even before the idle sweep runs.
func TestHTTPExpiredSessionUnusable(t *testing.T) {
	rig := newSessionRig(t, nil)
	defer rig.h.Sessions.CloseAll()
	id := rig.mustInitialize("10.0.0.1:1")
	hs := rig.h.Sessions.All()[0]
	hs.Touch(time.Now().Add(-DefaultSessionIdleTimeout - time.Second))
	if w := rig.serve("10.0.0.1:1", id, rpcRequest(2, "tools/list", nil)); w.Code != http.StatusNotFound {
		t.Fatalf("request on an expired session: got status %d, want 404", w.Code)
	}
	select {
	case <-hs.Conn.p.Done():
	default:
		t.Error("the expired session was not ended")
	}
}
