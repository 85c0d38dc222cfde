package runtime

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sessionEnds is an extension that records the sessions that ended and,
// in the same order, its Shutdown.
type sessionEnds struct {
	mu     sync.Mutex
	events []string
	ends   chan SessionInfo
}

func watchSessionEnds(t *testing.T, s *Server) *sessionEnds {
	t.Helper()
	w := &sessionEnds{ends: make(chan SessionInfo, 16)}
	s.MustUse(&Extension{
		SessionEnd: func(info SessionInfo) {
			time.Sleep(20 * time.Millisecond) // an exporter's work: a Shutdown running alongside would come first
			w.mu.Lock()
			w.events = append(w.events, "end "+info.ID)
			w.mu.Unlock()
			w.ends <- info
		},
		Shutdown: func(context.Context) error {
			w.mu.Lock()
			w.events = append(w.events, "shutdown")
			w.mu.Unlock()
			return nil
		},
	})
	return w
}

// next returns the next ended session, failing the test after a while.
func (w *sessionEnds) next(t *testing.T, what string) SessionInfo {
	t.Helper()
	return waitFor(t, w.ends, what)
}

// none fails the test when a session end was reported.
func (w *sessionEnds) none(t *testing.T, what string) {
	t.Helper()
	select {
	case info := <-w.ends:
		t.Errorf("%s: a session end was reported: %+v", what, info)
	default:
	}
}

func checkEnded(t *testing.T, got SessionInfo, id, transport string) {
	t.Helper()
	if got.ID != id || got.Transport != transport || got.Revision != versionLegacy || got.Duration <= 0 {
		t.Errorf("session end: got %+v, want id %q, transport %q, revision %s and a duration", got, id, transport, versionLegacy)
	}
}

// TestSessionEndHTTP: a Streamable HTTP session's end is reported once, with
// its Mcp-Session-Id, revision and duration, whether a DELETE, the idle
// expiry, an eviction or the shutdown ends it; a failed initialize opens no
// session and reports none; the extensions' Shutdown runs after the
// sessions ended at shutdown were reported.
func TestSessionEndHTTP(t *testing.T) {
	rig := newSessionRig(t, &HTTPOptions{MaxSessions: 3})
	w := watchSessionEnds(t, rig.h.srv)

	deleted := rig.mustInitialize("10.0.0.1:1")
	time.Sleep(time.Millisecond)
	r := httptest.NewRequest(http.MethodDelete, "/mcp", nil)
	r.RemoteAddr, r.Host = "10.0.0.1:1", "127.0.0.1"
	r.Header.Set("Mcp-Session-Id", deleted)
	r.Header.Set("Mcp-Protocol-Version", versionLegacy)
	rec := httptest.NewRecorder()
	rig.h.ServeHTTP(rec, r)
	if rec.Code/100 != 2 {
		t.Fatalf("DELETE: status %d", rec.Code)
	}
	checkEnded(t, w.next(t, "the deleted session's end"), deleted, sessionHTTP)

	// A failed initialize: its reserved session ends unreported.
	bad := rig.serve("10.0.0.1:1", "", rpcRequest(1, "initialize", map[string]any{"protocolVersion": 7}))
	if bad.Code == http.StatusOK && bad.Header().Get("Mcp-Session-Id") != "" {
		t.Fatalf("a bad initialize opened a session")
	}
	w.none(t, "a failed initialize")

	// Eviction: the store holds 3; a fourth initialize evicts the one never used.
	evicted := rig.mustInitialize("10.0.0.2:1")
	time.Sleep(time.Millisecond)
	used := rig.mustInitialize("10.0.0.3:1")
	kept := rig.mustInitialize("10.0.0.4:1")
	if !rig.live("10.0.0.3:1", used) || !rig.live("10.0.0.4:1", kept) {
		t.Fatal("a session just opened does not answer")
	}
	rig.mustInitialize("10.0.0.5:1")
	checkEnded(t, w.next(t, "the evicted session's end"), evicted, sessionHTTP)

	// Idle expiry.
	rig.h.Sessions.SetIdle(20 * time.Millisecond)
	seen := map[string]bool{}
	for range 3 {
		info := w.next(t, "the idle sessions' ends")
		if info.Transport != sessionHTTP || info.Revision != versionLegacy || seen[info.ID] {
			t.Errorf("idle expiry: got %+v", info)
		}
		seen[info.ID] = true
	}
	if !seen[used] || !seen[kept] {
		t.Errorf("idle expiry reported %v; want %s and %s among them", seen, used, kept)
	}

	// Shutdown: the live session's end, then the extension's Shutdown.
	rig.h.Sessions.SetIdle(time.Hour)
	last := rig.mustInitialize("10.0.0.6:1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rig.h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	checkEnded(t, w.next(t, "the session ended at shutdown"), last, sessionHTTP)
	w.mu.Lock()
	events := strings.Join(w.events, "; ")
	w.mu.Unlock()
	if !strings.HasSuffix(events, "end "+last+"; shutdown") {
		t.Errorf("events: %s; want the last session's end, then the extension's Shutdown", events)
	}
	w.none(t, "after shutdown")
}

// TestSessionEndStdio: a stdio connection's end is reported when its input
// ends, with the negotiated revision and no id, before the extensions'
// Shutdown.
func TestSessionEndStdio(t *testing.T) {
	s := extServer(t, nil)
	w := watchSessionEnds(t, s)
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), io.Discard); err != nil {
		t.Fatal(err)
	}
	checkEnded(t, w.next(t, "the stdio connection's end"), "", sessionStdio)
	if got := fmt.Sprint(w.events); got != "[end  shutdown]" {
		t.Errorf("events: %s; want the connection's end, then the extension's Shutdown", got)
	}
	w.none(t, "after the connection ended")
}

// TestSessionEndUnwatched: without an extension watching session ends, a
// session reads no clock and is not reported.
func TestSessionEndUnwatched(t *testing.T) {
	s := extServer(t, nil)
	sess, _ := legacySession(t, s, `{}`)
	if !sess.life.start.IsZero() {
		t.Error("a session started its clock with no extension watching")
	}
	w := watchSessionEnds(t, s)
	sess.Close()
	w.none(t, "a session opened before the extension was registered")
}

// TestSessionEndLegacySSE: a 2024-11-05 HTTP+SSE session ends with its
// stream (the client disconnecting) and is reported with its revision.
func TestSessionEndLegacySSE(t *testing.T) {
	s := revisionServer(t)
	w := watchSessionEnds(t, s)
	h := newHTTPHandler(s, (&HTTPOptions{LegacySSE: true}).withDefaults())
	ts := httptest.NewServer(h.withLegacySSE())
	t.Cleanup(func() { h.EndStreams(); ts.Close() })
	p := dialSSE(t, ts.URL)
	p.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"sse","version":"1"}}}`)
	if ev := p.next(); !strings.Contains(ev[1], `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize: %v", ev)
	}
	w.none(t, "a live stream")
	p.cancel()
	got := w.next(t, "the stream's session end")
	if got.Transport != sessionSSE || got.Revision != "2024-11-05" || got.ID != "" || got.Duration <= 0 {
		t.Errorf("session end: got %+v, want transport sse, revision 2024-11-05", got)
	}
}

// TestSessionEndAllocs: a session's open and end allocate nothing for the
// hook, with no extension registered and with one watching session ends.
func TestSessionEndAllocs(t *testing.T) {
	s := extServer(t, nil)
	ss := s.NewSession(nil)
	allocs := func(label string) {
		t.Helper()
		if n := testing.AllocsPerRun(100, func() {
			ss.opened()
			ss.life.ended.Store(false)
			ss.reportEnd(versionLegacy)
		}); n != 0 {
			t.Errorf("%s: %v allocations per session open and end, want 0", label, n)
		}
	}
	allocs("no extension")
	var ends int
	s.MustUse(&Extension{SessionEnd: func(SessionInfo) { ends++ }})
	allocs("watched")
	if ends == 0 {
		t.Error("the watching extension saw no session end")
	}
}
