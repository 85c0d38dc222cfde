package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// progressMeta asks for progress with the given token (2026-07-28 request).
func progressMeta(token string) map[string]any {
	return modernMetaFor(map[string]any{"progressToken": token})
}

// TestHTTPModernDisconnectCancels checks that closing a 2026-07-28 response
// stream cancels the request's handler.
func TestHTTPModernDisconnectCancels(t *testing.T) {
	ts, p := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := map[string]any{"name": "wait", "_meta": progressMeta("tok")}
	resp := c.post(ctx, modernHeaders("tools/call", "wait"), rpcRequest(1, "tools/call", params))
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("got content type %q, want an SSE stream", resp.Header.Get("Content-Type"))
	}
	evs, err := readEvents(resp.Body, func(sseEvent) bool { return true })
	if err != nil || len(evs) != 1 {
		t.Fatalf("got events %+v, err %v; want the progress notification", evs, err)
	}
	if evs[0].id != "" {
		t.Errorf("2026-07-28 event has id %q; streams are not resumable", evs[0].id)
	}
	c.validate(versionModern, "tools/call", []byte(evs[0].data))
	waitFor(t, p.started, "the handler to start")
	cancel() // the client goes away
	if err := waitFor(t, p.cancelled, "the handler to end"); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler context: got %v, want context.Canceled", err)
	}
}

// TestHTTPLegacyDisconnectContinues checks that a 2025-11-25 handler survives
// its client's disconnect and that the client gets the result by resuming the
// stream with Last-Event-ID.
func TestHTTPLegacyDisconnectContinues(t *testing.T) {
	ts, p := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	c.initialize()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := map[string]any{"name": "wait", "_meta": map[string]any{"progressToken": 7}}
	resp := c.post(ctx, legacyHeaders(), rpcRequest(9, "tools/call", params))
	evs, err := readEvents(resp.Body, func(ev sseEvent) bool { return ev.data != "" })
	if err != nil || len(evs) != 2 || evs[0].data != "" || !evs[0].retry || evs[1].id == "" {
		t.Fatalf("got events %+v, err %v; want a priming event then progress, both with ids", evs, err)
	}
	c.validate(versionLegacy, "tools/call", []byte(evs[1].data))
	waitFor(t, p.started, "the handler to start")
	cancel()
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond) // let the server notice the disconnect
	select {
	case err := <-p.cancelled:
		t.Fatalf("handler ended with %v after the disconnect; 2025-11-25 must not cancel", err)
	default:
	}
	close(p.release)
	if err := waitFor(t, p.cancelled, "the handler to finish"); err != nil {
		t.Fatalf("handler context: got %v, want still live", err)
	}
	msgs := c.resume(evs[1].id)
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"released"`) || !strings.Contains(string(msgs[0]), `"id":9`) {
		t.Fatalf("resumed stream: got %s, want the result of request 9", msgs)
	}
}

// resume GETs the session's stream after lastEventID and returns its
// validated messages until the stream ends.
func (c *httpClient) resume(lastEventID string) []json.RawMessage {
	c.t.Helper()
	resp := c.do(http.MethodGet, http.Header{"Accept": {"text/event-stream"}, "Last-Event-Id": {lastEventID}, "Mcp-Protocol-Version": {versionLegacy}})
	if resp.StatusCode != 200 {
		c.t.Fatalf("GET with Last-Event-ID: got status %d", resp.StatusCode)
	}
	return c.messages(resp, versionLegacy, "tools/call")
}

// TestHTTPLegacyPolling checks CloseSSEStream: the POST stream ends after the
// priming event, and the result arrives on GET with Last-Event-ID.
func TestHTTPLegacyPolling(t *testing.T) {
	ts, p := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	c.initialize()
	resp := c.post(context.Background(), legacyHeaders(), rpcRequest(5, "tools/call", map[string]any{"name": "poll"}))
	evs, err := readEvents(resp.Body, nil) // the server closes the connection
	resp.Body.Close()
	if err != nil || len(evs) != 1 || evs[0].id == "" || !evs[0].retry {
		t.Fatalf("POST stream: got events %+v, err %v; want only a priming event", evs, err)
	}
	close(p.release)
	msgs := c.resume(evs[0].id)
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"polled"`) {
		t.Fatalf("resumed stream: got %s, want the poll result", msgs)
	}
	// A modern request cannot be detached: its stream is its lifetime.
	c2 := newHTTPClient(t, ts)
	status, msgs := c2.modernCall(6, "tools/call", map[string]any{"name": "poll"}, nil)
	if status != 200 || len(msgs) != 1 || !strings.Contains(string(msgs[0]), "not closed") {
		t.Fatalf("modern poll: got status %d, %s", status, msgs)
	}
}

// TestHTTPConcurrentSessionRequests sends many requests on one 2025-11-25
// session at once; each gets its own answer.
func TestHTTPConcurrentSessionRequests(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	c.initialize()
	const n = 16
	results := collect(n, func(i int) error {
		method, params := "tools/list", map[string]any(nil)
		if i%2 == 1 {
			method, params = "tools/call", map[string]any{"name": "hello"}
		}
		resp := c.post(context.Background(), legacyHeaders(), rpcRequest(1000+i, method, params))
		msgs := c.messages(resp, versionLegacy, method)
		if resp.StatusCode != 200 || len(msgs) != 1 {
			return fmt.Errorf("request %d: got status %d, %d messages", i, resp.StatusCode, len(msgs))
		}
		if want := fmt.Sprintf(`"id":%d`, 1000+i); !strings.Contains(string(msgs[0]), want) || strings.Contains(string(msgs[0]), `"error"`) {
			return fmt.Errorf("request %d: got %s", i, msgs[0])
		}
		return nil
	})
	for _, err := range results {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestHTTPGracefulShutdown checks that cancelling ListenAndServe's context
// lets an in-flight request finish and returns nil.
func TestHTTPGracefulShutdown(t *testing.T) {
	s := NewServer(Implementation{Name: "httptest", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := newHTTPProbe()
	httpTestTools(s, p)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	opts := (&HTTPOptions{}).withDefaults()
	h := newHTTPHandler(s, opts)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, ln, h, opts, h.EndStreams, nil) }()

	c := &httpClient{t: t, url: "http://" + ln.Addr().String() + opts.Path, schemas: testSpec}
	type answer struct {
		status int
		msgs   []json.RawMessage
	}
	answers := make(chan answer, 1)
	go func() {
		status, msgs := c.modernCall(1, "tools/call", map[string]any{"name": "wait"}, nil)
		answers <- answer{status, msgs}
	}()
	waitFor(t, p.started, "the handler to start")
	cancel()
	time.Sleep(50 * time.Millisecond) // shutdown is under way
	close(p.release)
	a := waitFor(t, answers, "the in-flight answer")
	if a.status != 200 || len(a.msgs) != 1 || !strings.Contains(string(a.msgs[0]), "released") {
		t.Fatalf("in-flight request: got status %d, %s", a.status, a.msgs)
	}
	if err := waitFor(t, served, "ListenAndServe to return"); err != nil {
		t.Fatalf("serve: got %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("listener still accepts connections after shutdown")
	}
}

// TestHTTPKeepAlive checks that a quiet GET stream gets comment lines.
func TestHTTPKeepAlive(t *testing.T) {
	ts, _ := newHTTPTest(t, &HTTPOptions{KeepAlive: 20 * time.Millisecond})
	c := newHTTPClient(t, ts)
	c.initialize()
	resp := c.do(http.MethodGet, http.Header{"Accept": {"text/event-stream"}})
	defer resp.Body.Close()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), ":") {
				found <- true
				return
			}
		}
		found <- false
	}()
	if !waitFor(t, found, "a keep-alive comment") {
		t.Fatal("stream ended without a keep-alive comment")
	}
}

// TestHTTPServerToClientRequest checks a 2025-11-25 server-to-client request:
// it travels on the call's SSE stream, the client POSTs its response (202),
// and the handler gets it. A client that accepts no SSE gets a prompt error.
func TestHTTPServerToClientRequest(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	c.initialize()
	resp := c.post(context.Background(), legacyHeaders(), rpcRequest(3, "tools/call", map[string]any{"name": "ask"}))
	defer resp.Body.Close()
	evs, err := readEvents(resp.Body, func(ev sseEvent) bool { return ev.data != "" })
	if err != nil || len(evs) == 0 {
		t.Fatalf("got events %+v, err %v; want the server's request", evs, err)
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	last := []byte(evs[len(evs)-1].data)
	c.validate(versionLegacy, "", last)
	if err := json.Unmarshal(last, &req); err != nil || req.Method != "ping" || req.ID == nil {
		t.Fatalf("got %s, want a ping request", last)
	}
	answer := c.post(context.Background(), legacyHeaders(), []byte(`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`))
	answer.Body.Close()
	if answer.StatusCode != http.StatusAccepted {
		t.Fatalf("client response: got status %d, want 202", answer.StatusCode)
	}
	evs, err = readEvents(resp.Body, nil)
	if err != nil || len(evs) != 1 || !strings.Contains(evs[0].data, "client said {}") {
		t.Fatalf("got events %+v, err %v; want the result quoting the client's answer", evs, err)
	}
	c.validate(versionLegacy, "tools/call", []byte(evs[0].data))

	ctx, cancel := context.WithTimeout(context.Background(), httpWait)
	defer cancel()
	resp = c.post(ctx, http.Header{"Accept": {"application/json"}, "Mcp-Protocol-Version": {versionLegacy}},
		rpcRequest(4, "tools/call", map[string]any{"name": "ask"}))
	msgs := c.messages(resp, versionLegacy, "tools/call")
	if resp.StatusCode != 200 || len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"isError":true`) {
		t.Fatalf("JSON-only client: got status %d, %s; want an isError result", resp.StatusCode, msgs)
	}
}

// TestHTTPShutdownEndsListen checks that a graceful shutdown ends an open
// 2026-07-28 subscriptions/listen stream at once instead of waiting out the
// shutdown timeout.
func TestHTTPShutdownEndsListen(t *testing.T) {
	s := NewServer(Implementation{Name: "httptest", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	httpTestTools(s, newHTTPProbe())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	// A shutdown timeout far beyond waitFor's: a listen stream that held the
	// shutdown up would end only then, so the test fails without timing
	// anything itself.
	opts := (&HTTPOptions{ShutdownTimeout: time.Hour}).withDefaults()
	h := newHTTPHandler(s, opts)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, ln, h, opts, h.EndStreams, nil) }()

	c := &httpClient{t: t, url: "http://" + ln.Addr().String() + opts.Path, schemas: testSpec}
	params := map[string]any{"_meta": modernMetaFor(nil), "notifications": map[string]any{"toolsListChanged": true}}
	resp := c.post(context.Background(), modernHeaders("subscriptions/listen", ""), rpcRequest(1, "subscriptions/listen", params))
	defer resp.Body.Close()
	evs, err := readEvents(resp.Body, func(sseEvent) bool { return true })
	if err != nil || len(evs) != 1 || !strings.Contains(evs[0].data, "notifications/subscriptions/acknowledged") {
		t.Fatalf("got events %+v, err %v; want the acknowledgement", evs, err)
	}
	c.validate(versionModern, "subscriptions/listen", []byte(evs[0].data))
	cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := readEvents(resp.Body, nil)
		ended <- err
	}()
	if err := waitFor(t, ended, "the listen stream to end at shutdown"); err != nil {
		t.Fatalf("listen stream after shutdown: %v", err)
	}
	if err := waitFor(t, served, "the server to stop"); err != nil {
		t.Fatalf("serve: got %v, want nil", err)
	}
}

// TestHTTPSessionIdle checks that idle sessions end, and that a session with
// a request still running does not.
func TestHTTPSessionIdle(t *testing.T) {
	ts, p := newHTTPTest(t, &HTTPOptions{SessionIdleTimeout: 100 * time.Millisecond})
	busy, idle := newHTTPClient(t, ts), newHTTPClient(t, ts)
	busy.initialize()
	idle.initialize()
	done := make(chan int, 1)
	go func() {
		resp := busy.post(context.Background(), legacyHeaders(), rpcRequest(2, "tools/call", map[string]any{"name": "wait"}))
		busy.messages(resp, versionLegacy, "tools/call")
		done <- resp.StatusCode
	}()
	waitFor(t, p.started, "the busy session's call to start")
	time.Sleep(300 * time.Millisecond)
	newHTTPClient(t, ts).initialize() // opening a session sweeps idle ones

	resp := idle.post(context.Background(), legacyHeaders(), rpcRequest(3, "tools/list", nil))
	if msgs := idle.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != http.StatusNotFound || len(msgs) != 1 {
		t.Errorf("idle session: got status %d, want 404", resp.StatusCode)
	}
	resp = busy.post(context.Background(), legacyHeaders(), rpcRequest(4, "tools/list", nil))
	if msgs := busy.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != http.StatusOK || len(msgs) != 1 {
		t.Errorf("busy session: got status %d, want 200", resp.StatusCode)
	}
	close(p.release)
	if status := waitFor(t, done, "the busy call"); status != http.StatusOK {
		t.Errorf("busy call: got status %d, want 200", status)
	}
}
