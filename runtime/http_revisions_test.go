package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// openSession initializes a Streamable HTTP session of rev, sending the version
// header after initialize as that revision's clients do (2025-03-26 sends none).
func openSession(t *testing.T, ts *httptest.Server, rev string) (*httpClient, http.Header) {
	t.Helper()
	c := &httpClient{t: t, url: ts.URL + "/mcp", schemas: testSpec}
	resp := c.post(context.Background(), nil, rpcRequest(1, "initialize", map[string]any{
		"protocolVersion": rev, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "http-rev", "version": "1"},
	}))
	ct := resp.Header.Get("Content-Type")
	msgs := c.messages(resp, rev, "initialize")
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 {
		t.Fatalf("initialize: status %d, %d messages", resp.StatusCode, len(msgs))
	}
	// initialize is answered as the session's other requests are: an event
	// stream before 2025-11-25 (some clients read nothing else), JSON on it.
	if wantCT := map[bool]string{true: "text/event-stream", false: "application/json"}[rev < revLegacy]; !strings.HasPrefix(ct, wantCT) {
		t.Errorf("initialize %s answered with %q, want %s", rev, ct, wantCT)
	}
	if v := string(rawMember(rawMember(msgs[0], "result"), "protocolVersion")); v != `"`+rev+`"` {
		t.Fatalf("initialize %s negotiated %s", rev, v)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	hdr := http.Header{}
	if rev >= "2025-06-18" {
		hdr.Set("Mcp-Protocol-Version", rev)
	}
	resp = c.post(context.Background(), hdr, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return c, hdr
}

// revisionHTTPServer serves revisionServer over Streamable HTTP (at /mcp) and
// HTTP+SSE.
func revisionHTTPServer(t *testing.T) *httptest.Server {
	h := newHTTPHandler(revisionServer(t), (&HTTPOptions{LegacySSE: true}).withDefaults())
	ts := httptest.NewServer(h.withLegacySSE())
	t.Cleanup(func() { h.EndStreams(); ts.Close() })
	return ts
}

// TestHTTPRevisions: each handshake revision's session on the one /mcp endpoint.
// Before 2025-11-25 a client that accepts SSE gets its POST answered as an event
// stream without a priming event (every event's data is a JSON-RPC message);
// 2025-11-25 keeps plain JSON. The version header must be the session's own.
func TestHTTPRevisions(t *testing.T) {
	ts := revisionHTTPServer(t)
	for _, rev := range append(append([]string(nil), olderRevs...), revLegacy) {
		t.Run(rev, func(t *testing.T) {
			c, hdr := openSession(t, ts, rev)
			resp := c.post(context.Background(), hdr, rpcRequest(2, "tools/call", map[string]any{
				"name": "shaped", "_meta": map[string]any{"progressToken": 1}}))
			ct := resp.Header.Get("Content-Type")
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if primed := strings.Contains(string(body), "data: \n") || strings.Contains(string(body), "retry:"); primed != (rev == revLegacy) {
				t.Errorf("%s stream primed = %v, want it only on 2025-11-25:\n%s", rev, primed, body)
			}
			// The exact bytes of a streamed answer: priming only on 2025-11-25.
			golden(t, filepath.Join("testdata", "revisions", "http-"+rev+".txt"), []byte("Content-Type: "+ct+"\n\n"+string(body)))
			msgs := c.messages(resp, rev, "tools/call")
			if len(msgs) != 2 { // progress, then the result
				t.Fatalf("got %d messages, want progress and result: %s", len(msgs), body)
			}
			if !strings.HasPrefix(ct, "text/event-stream") {
				t.Errorf("%s tools/call answered with %q, want an event stream", rev, ct)
			}
			// A plain call: SSE before 2025-11-25, JSON on 2025-11-25.
			resp = c.post(context.Background(), hdr, rpcRequest(3, "tools/call", map[string]any{"name": "whoami"}))
			ct = resp.Header.Get("Content-Type")
			msgs = c.messages(resp, rev, "tools/call")
			wantCT := "text/event-stream"
			if rev == revLegacy {
				wantCT = "application/json"
			}
			if !strings.HasPrefix(ct, wantCT) || len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"text":"`+rev+`"`) {
				t.Errorf("whoami: %q %s, want %s naming %s", ct, msgs, wantCT, rev)
			}
			// A header naming another revision is refused.
			other := http.Header{}
			other.Set("Mcp-Protocol-Version", map[bool]string{true: "2025-06-18", false: "2025-03-26"}[rev != "2025-06-18"])
			resp = c.post(context.Background(), other, rpcRequest(4, "ping", nil))
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("header %s on a %s session: status %d, want 400", other.Get("Mcp-Protocol-Version"), rev, resp.StatusCode)
			}
			// A batch: served on 2025-03-26 only.
			batch := []byte(`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/ping"},{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"whoami"}}]`)
			resp = c.post(context.Background(), hdr, batch)
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if rev == "2025-03-26" {
				var arr []json.RawMessage
				if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &arr) != nil || len(arr) != 2 {
					t.Fatalf("batch: %d %s, want an array of 2 responses", resp.StatusCode, body)
				}
				if err := testSpec.validate(rev, "JSONRPCBatchResponse", body); err != nil {
					t.Error(err)
				}
				c.validate(rev, "ping", arr[0])
				c.validate(rev, "tools/call", arr[1])
			} else if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "-32600") {
				t.Errorf("batch on %s: %d %s, want 400 -32600", rev, resp.StatusCode, body)
			}
		})
	}
}

// A legacyPeer is a 2024-11-05 HTTP+SSE client: one event stream, POSTs to the
// endpoint it announces.
type legacyPeer struct {
	t        *testing.T
	base     string
	endpoint string
	events   chan [2]string // event name, data
	cancel   context.CancelFunc
}

// dialSSE opens the event stream and reads the endpoint event.
func dialSSE(t *testing.T, base string) *legacyPeer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("GET /sse: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := &legacyPeer{t: t, base: base, events: make(chan [2]string, 64), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(p.events)
		sc := bufio.NewScanner(resp.Body)
		var name, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data != "" {
					p.events <- [2]string{name, data}
				}
				name, data = "", ""
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	t.Cleanup(cancel)
	ev := p.next()
	if ev[0] != "endpoint" || !strings.HasPrefix(ev[1], "/message?sessionId=") {
		t.Fatalf("first event %q, want the endpoint", ev)
	}
	p.endpoint = ev[1]
	return p
}

// next returns the next event.
func (p *legacyPeer) next() [2]string {
	p.t.Helper()
	ev, ok := <-p.events
	if !ok {
		p.t.Fatal("the event stream ended")
	}
	return ev
}

// post sends one message and expects 202.
func (p *legacyPeer) post(body string) {
	p.t.Helper()
	resp, err := http.Post(p.base+p.endpoint, "application/json", strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		p.t.Fatalf("POST %s: %d, want 202", body, resp.StatusCode)
	}
}

// TestLegacySSE: the 2024-11-05 HTTP+SSE transport at /sse beside /mcp. Every
// message on the stream is a "message" event valid against the 2024-11-05 schema.
func TestLegacySSE(t *testing.T) {
	ts := revisionHTTPServer(t)
	p := dialSSE(t, ts.URL)
	c := &httpClient{t: t, schemas: testSpec}
	rev := "2024-11-05"
	call := func(id int, method, params string) string {
		t.Helper()
		if params != "" {
			params = `,"params":` + params
		}
		p.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q%s}`, id, method, params))
		for {
			ev := p.next()
			if ev[0] != "message" {
				t.Fatalf("event %q, want message", ev[0])
			}
			c.validate(rev, method, []byte(ev[1]))
			if string(rawMember([]byte(ev[1]), "id")) == fmt.Sprint(id) && rawMember([]byte(ev[1]), "method") == nil {
				return ev[1]
			}
		}
	}
	init := call(1, "initialize", `{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"sse","version":"1"}}`)
	if !strings.Contains(init, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize: %s", init)
	}
	p.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call(2, "tools/list", "")
	if r := call(3, "tools/call", `{"name":"whoami"}`); !strings.Contains(r, `"text":"2024-11-05"`) {
		t.Errorf("whoami: %s", r)
	}
	call(4, "tools/call", `{"name":"rich"}`)
	call(5, "prompts/get", `{"name":"greet","arguments":{"who":"x"}}`)
	// An unknown session is 404; GET on the message endpoint is 405.
	resp, err := http.Post(ts.URL+"/message?sessionId=nope", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", resp.StatusCode)
	}
	// The same Origin check as Streamable HTTP.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: %d, want 403", resp.StatusCode)
	}
}

// BenchmarkPostMediaType measures what answering a POST as an event stream costs
// against plain JSON: one tools/call on a 2025-11-25 session (JSON) and on a
// 2025-06-18 one (SSE), through a real loopback HTTP connection.
func BenchmarkPostMediaType(b *testing.B) {
	for _, rev := range []string{"2025-11-25", "2025-06-18"} {
		b.Run(rev, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "1"}, &Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			s.AddTool(&Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`),
				Handler: func(context.Context, *ToolRequest) (*ToolResult, error) {
					return &ToolResult{Content: []Content{Text("hello")}}, nil
				}})
			h := newHTTPHandler(s, (&HTTPOptions{}).withDefaults())
			ts := httptest.NewServer(h)
			defer ts.Close()
			post := func(session, body string) *http.Response {
				req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session != "" {
					req.Header.Set("Mcp-Session-Id", session)
					req.Header.Set("Mcp-Protocol-Version", rev)
				}
				resp, err := ts.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				return resp
			}
			resp := post("", string(rpcRequest(1, "initialize", map[string]any{"protocolVersion": rev, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "b", "version": "1"}})))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			session := resp.Header.Get("Mcp-Session-Id")
			body := string(rpcRequest(2, "tools/call", map[string]any{"name": "hello"}))
			wantCT := map[string]string{"2025-11-25": "application/json", "2025-06-18": "text/event-stream"}[rev]
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp := post(session, body)
				if !strings.HasPrefix(resp.Header.Get("Content-Type"), wantCT) {
					b.Fatalf("content type %q, want %s", resp.Header.Get("Content-Type"), wantCT)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// TestLegacySSEBoundToCaller: the stream's handlers run as the caller that
// opened it, so a POST to its message endpoint by another caller is refused
// (403) and never reaches the session; the opener's own POST is served.
func TestLegacySSEBoundToCaller(t *testing.T) {
	h := newHTTPHandler(revisionServer(t), (&HTTPOptions{LegacySSE: true}).withDefaults())
	routed := h.withLegacySSE()
	// A stand-in for runtime/auth's middleware: the caller is named by a header.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sub := r.Header.Get("X-Test-Subject"); sub != "" {
			r = r.WithContext(WithPrincipal(r.Context(), &Principal{Subject: sub}))
		}
		routed.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { h.EndStreams(); ts.Close() })
	p := dialSSE(t, ts.URL) // opened anonymously
	post := func(sub string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+p.endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if sub != "" {
			req.Header.Set("X-Test-Subject", sub)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post("mallory"); got != http.StatusForbidden {
		t.Errorf("POST by another caller: %d, want 403", got)
	}
	if got := post(""); got != http.StatusAccepted {
		t.Errorf("POST by the opener: %d, want 202", got)
	}
}
