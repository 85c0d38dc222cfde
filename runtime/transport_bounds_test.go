package runtime

// transport_bounds_test.go: what one client can hold open over HTTP (issue 32):
// subscriptions/listen streams, HTTP+SSE streams and 2025-11-25 sessions are
// bounded per client, so one client cannot take the server from the others.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
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
	open("alice", 10) // another client's listen
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
