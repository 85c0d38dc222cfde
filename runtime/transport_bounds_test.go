package runtime

// transport_bounds_test.go: what one client can hold open over HTTP (issue 32):
// subscriptions/listen streams, HTTP+SSE streams and 2025-11-25 sessions are
// bounded per client, so one client cannot take the server from the others.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// asSubject is a stand-in for runtime/auth's middleware: the caller is named
// by the X-Test-Subject header (none: no principal).
func asSubject(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sub := r.Header.Get("X-Test-Subject"); sub != "" {
			r = r.WithContext(WithPrincipal(r.Context(), &Principal{Subject: sub, ClientID: "agent"}))
		}
		next.ServeHTTP(w, r)
	})
}

// TestHTTPListenStreamsBoundPerClient: open subscriptions/listen streams have
// bounds of their own: one client's streams beyond MaxListenStreamsPerClient
// are refused with a clear 503, while another client's listen and every other
// 2026-07-28 request are still served, however few MaxStatelessRequests are.
func TestHTTPListenStreamsBoundPerClient(t *testing.T) {
	s := primitivesServer(t)
	h := s.HTTPHandler(&HTTPOptions{MaxStatelessRequests: 2, MaxListenStreamsPerClient: 3})
	ts := httptest.NewServer(asSubject(h))
	t.Cleanup(func() { _ = h.Shutdown(context.Background()); ts.Close() })
	c := newHTTPClient(t, ts)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	listen := func(sub string, id int) *http.Response {
		hdr := modernHeaders("subscriptions/listen", "")
		hdr.Set("X-Test-Subject", sub)
		return c.post(ctx, hdr, rpcRequest(id, "subscriptions/listen", map[string]any{"_meta": modernMetaFor(nil),
			"notifications": map[string]any{"toolsListChanged": true}}))
	}
	open := func(sub string, id int) {
		t.Helper()
		resp := listen(sub, id)
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Fatalf("listen %d of %s: %d %s, want an open stream", id, sub, resp.StatusCode, b)
		}
		waitFor(t, streamEvents(resp), "the acknowledgement")
	}
	for id := range 3 {
		open("mallory", id)
	}
	resp := listen("mallory", 9)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "too many subscriptions/listen streams from this client") {
		t.Errorf("listen beyond the client's bound: %d %s, want 503 naming the bound", resp.StatusCode, b)
	}
	open("alice", 10)             // another client's listen
	for id := 20; id < 24; id++ { // and requests beside the open streams
		hdr := modernHeaders("resources/read", "notes://home/2")
		hdr.Set("X-Test-Subject", "alice")
		resp := c.post(ctx, hdr, rpcRequest(id, "resources/read", map[string]any{"_meta": modernMetaFor(nil), "uri": "notes://home/2"}))
		msgs := c.messages(resp, versionModern, "resources/read")
		if resp.StatusCode != http.StatusOK || len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"text":"home/2"`) {
			t.Fatalf("resources/read beside 4 listen streams: %d %s", resp.StatusCode, msgs)
		}
	}
}

// TestHTTPFullStoreSparesOtherClients: a client opening sessions from four
// addresses (each within MaxSessionsPerPeer, together filling MaxSessions)
// recycles its own idle sessions, and never ends another client's: a full
// store evicts only from clients beyond their fair share.
func TestHTTPFullStoreSparesOtherClients(t *testing.T) {
	rig := newSessionRig(t, &HTTPOptions{MaxSessions: 20, MaxSessionsPerPeer: 5})
	victim := []string{rig.mustInitialize("10.0.0.9:1"), rig.mustInitialize("10.0.0.9:2")}
	for _, id := range victim {
		if !rig.live("10.0.0.9:1", id) { // used after initialize, then idle
			t.Fatal("the victim's session does not answer")
		}
	}
	for i := range 80 {
		peer := "10.0.0." + strconv.Itoa(1+i%4) + ":4000"
		status, id := rig.initialize(peer)
		if status != http.StatusOK {
			t.Fatalf("initialize %d from %s: %d; the flooding client recycles its own sessions", i, peer, status)
		}
		rig.live(peer, id) // used, so not abandoned: more recent than the victim's
		time.Sleep(time.Millisecond)
	}
	for _, id := range victim {
		if !rig.live("10.0.0.9:1", id) {
			t.Error("another client's flood from four addresses ended an idle session of a client within its share")
		}
	}
	// The victim, within its share, still gets sessions, at the flood's expense.
	if !rig.live("10.0.0.9:3", rig.mustInitialize("10.0.0.9:3")) {
		t.Error("the victim's new session does not answer")
	}
}

// TestLegacySSEBoundedPerPeerAndIdle: HTTP+SSE streams are bounded per remote
// address (MaxSessionsPerPeer: one more gets 503 naming the bound), and a
// stream no message was POSTed to for SessionIdleTimeout ends, its session
// with it, while one that keeps being used stays open.
func TestLegacySSEBoundedPerPeerAndIdle(t *testing.T) {
	s := revisionServer(t)
	h := s.LegacySSEHandler(&HTTPOptions{MaxSessionsPerPeer: 2, SessionIdleTimeout: 400 * time.Millisecond})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	busy, idle := dialSSE(t, ts.URL), dialSSE(t, ts.URL)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // an open stream would never end
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	if resp.StatusCode != http.StatusOK {
		b, _ = io.ReadAll(resp.Body)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "too many sessions from this client") {
		t.Fatalf("third stream from one address: %d %s, want 503 naming the bound", resp.StatusCode, b)
	}
	// busy keeps POSTing; idle does not.
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		busy.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		select {
		case _, open := <-idle.events:
			if open {
				continue
			}
		case <-time.After(100 * time.Millisecond):
			continue
		case <-deadline:
			t.Fatal("an idle HTTP+SSE stream is still open after 10 s with SessionIdleTimeout 400ms")
		}
		if i < 3 {
			t.Fatalf("the idle stream ended after %d posts to the other, before its timeout", i)
		}
		break
	}
	busy.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`) // still open
	// With the idle stream gone, the address may open another.
	dialSSE(t, ts.URL)
}
