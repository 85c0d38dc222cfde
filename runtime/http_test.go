package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHTTPModernHeaderMismatch checks that 2026-07-28 headers which disagree
// with the body are rejected with HTTP 400 and -32020, and that conforming
// variants (case, whitespace, Base64) are accepted.
func TestHTTPModernHeaderMismatch(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	region := func(args map[string]any) map[string]any {
		return map[string]any{"name": "region", "arguments": args}
	}
	tests := []struct {
		name   string
		method string
		params map[string]any
		edit   func(http.Header)
		ok     bool
	}{
		{"conforming", "tools/list", nil, nil, true},
		{"missing Mcp-Method", "tools/list", nil, func(h http.Header) { h.Del("Mcp-Method") }, false},
		{"wrong Mcp-Method", "tools/list", nil, func(h http.Header) { h.Set("Mcp-Method", "prompts/list") }, false},
		{"Mcp-Method value case", "tools/list", nil, func(h http.Header) { h.Set("Mcp-Method", "TOOLS/LIST") }, false},
		{"header name case", "tools/list", nil, func(h http.Header) { h.Del("Mcp-Method"); h["mcp-method"] = []string{"tools/list"} }, true},
		{"missing version header", "tools/list", nil, func(h http.Header) { h.Del("Mcp-Protocol-Version") }, false},
		{"missing Mcp-Name", "tools/call", map[string]any{"name": "hello"}, func(h http.Header) { h.Del("Mcp-Name") }, false},
		{"wrong Mcp-Name", "tools/call", map[string]any{"name": "hello"}, func(h http.Header) { h.Set("Mcp-Name", "other") }, false},
		{"Mcp-Name with spaces", "tools/call", map[string]any{"name": "hello"}, func(h http.Header) { h["Mcp-Name"] = []string{"  hello  "} }, true},
		{"Mcp-Name base64", "tools/call", map[string]any{"name": "hello"}, func(h http.Header) { h.Set("Mcp-Name", "=?base64?aGVsbG8=?=") }, true},
		{"param header", "tools/call", region(map[string]any{"region": "us-west1", "count": 42}), func(h http.Header) {
			h.Set("Mcp-Param-Region", "us-west1")
			h.Set("Mcp-Param-Count", "42.0")
		}, true},
		{"param header base64", "tools/call", region(map[string]any{"region": "Hello"}), func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVsbG8=?=") }, true},
		{"param header literal", "tools/call", region(map[string]any{"region": "=?base64?SGVsbG8="}), func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVsbG8=") }, true},
		{"param header absent, value null", "tools/call", region(map[string]any{"region": nil}), nil, true},
		{"param header missing", "tools/call", region(map[string]any{"region": "us-west1"}), nil, false},
		{"param header mismatch", "tools/call", region(map[string]any{"region": "us-west1"}), func(h http.Header) { h.Set("Mcp-Param-Region", "eu") }, false},
		{"param header bad padding", "tools/call", region(map[string]any{"region": "Hello"}), func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVsbG8?=") }, false},
		{"param header bad chars", "tools/call", region(map[string]any{"region": "Hello"}), func(h http.Header) { h.Set("Mcp-Param-Region", "=?base64?SGVs!!!bG8=?=") }, false},
		{"integer param mismatch", "tools/call", region(map[string]any{"count": 42}), func(h http.Header) { h.Set("Mcp-Param-Count", "43") }, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			status, msgs := c.modernCall(100+i, tt.method, tt.params, tt.edit)
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want 1", len(msgs))
			}
			if tt.ok {
				if status != http.StatusOK || strings.Contains(string(msgs[0]), `"error":{"code":-`) { // a JSON-RPC error (a tool error's code is a string)
					t.Fatalf("got status %d, body %s; want 200 with a result", status, msgs[0])
				}
				return
			}
			code, id := rpcErrorOf(t, msgs[0])
			if status != http.StatusBadRequest || code != CodeHeaderMismatch || string(id) != jsonInt(100+i) {
				t.Fatalf("got status %d, code %d, id %s; want 400, %d, %d", status, code, id, CodeHeaderMismatch, 100+i)
			}
		})
	}
}

// jsonInt formats an integer id as its JSON token.
func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestHTTPModernStatuses checks the HTTP statuses of 2026-07-28 errors: missing
// _meta 400/-32602 (before header checks), unsupported version 400/-32022,
// unknown or removed method 404/-32601, unknown tool 200/-32602.
func TestHTTPModernStatuses(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	tests := []struct {
		name   string
		method string
		params map[string]any
		edit   func(http.Header)
		status int
		code   int
	}{
		{"missing _meta", "server/discover", map[string]any{"_meta": map[string]any{}}, nil, 400, CodeInvalidParams},
		{"missing _meta, no Mcp-Method", "tools/list", map[string]any{"_meta": map[string]any{"io.modelcontextprotocol/clientCapabilities": map[string]any{}}}, func(h http.Header) { h.Del("Mcp-Method") }, 400, CodeInvalidParams},
		{"header and _meta version differ", "server/discover", map[string]any{"_meta": modernMetaFor(map[string]any{"io.modelcontextprotocol/protocolVersion": "v999"})}, nil, 400, CodeHeaderMismatch},
		{"unsupported version", "server/discover", map[string]any{"_meta": modernMetaFor(map[string]any{"io.modelcontextprotocol/protocolVersion": "v999"})}, func(h http.Header) { h.Set("Mcp-Protocol-Version", "v999") }, 400, CodeUnsupportedVersion},
		{"unknown method", "unknown/method", nil, nil, 404, CodeMethodNotFound},
		{"removed method", "ping", nil, nil, 404, CodeMethodNotFound},
		{"unknown tool", "tools/call", map[string]any{"name": "nope"}, nil, 200, CodeInvalidParams},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			status, msgs := c.modernCall(200+i, tt.method, tt.params, tt.edit)
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want 1", len(msgs))
			}
			code, id := rpcErrorOf(t, msgs[0])
			if status != tt.status || code != tt.code || string(id) != jsonInt(200+i) {
				t.Fatalf("got status %d, code %d, id %s; want %d, %d, %d", status, code, id, tt.status, tt.code, 200+i)
			}
		})
	}
}

// TestHTTPOrigin checks the DNS-rebinding defences: a foreign Origin or Host
// gets 403, loopback and configured ones pass.
func TestHTTPOrigin(t *testing.T) {
	ts, _ := newHTTPTest(t, &HTTPOptions{AllowedOrigins: []string{"https://app.example"}, AllowedHosts: []string{"mcp.example"}})
	c := newHTTPClient(t, ts)
	tests := []struct {
		name, origin, host string
		status             int
	}{
		{"no origin", "", "", 200},
		{"loopback origin", "http://localhost:1234", "", 200},
		{"ipv6 loopback origin", "http://[::1]:80", "", 200},
		{"allowed origin", "https://app.example", "", 200},
		{"foreign origin", "http://evil.example.com", "", 403},
		{"null origin", "null", "", 403},
		{"foreign host", "", "evil.example.com", 403},
		{"foreign host and origin", "http://evil.example.com", "evil.example.com:80", 403},
		{"allowed host", "", "mcp.example:443", 200},
		{"loopback host", "", "localhost:9", 200},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			status, msgs := c.modernCall(300+i, "tools/list", nil, func(h http.Header) {
				if tt.origin != "" {
					h.Set("Origin", tt.origin)
				}
				if tt.host != "" {
					h.Set("Host", tt.host)
				}
			})
			if status != tt.status || len(msgs) != 1 {
				t.Fatalf("got status %d with %d messages, want %d with 1", status, len(msgs), tt.status)
			}
			if tt.status == 403 {
				if code, id := rpcErrorOf(t, msgs[0]); id != nil || code != CodeInvalidRequest {
					t.Fatalf("got code %d, id %s; want %d without id", code, id, CodeInvalidRequest)
				}
			}
		})
	}
}

// TestHTTPLegacySession walks a 2025-11-25 session: missing and unknown ids,
// initialize, a request, GET, DELETE, and the ended session.
func TestHTTPLegacySession(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)

	resp := c.post(context.Background(), legacyHeaders(), rpcRequest(1, "tools/list", nil))
	if msgs := c.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != 400 || len(msgs) != 1 {
		t.Fatalf("no session: got status %d, %d messages; want 400 with an error", resp.StatusCode, len(msgs))
	}
	c.session = "not-a-session"
	resp = c.post(context.Background(), legacyHeaders(), rpcRequest(2, "tools/list", nil))
	if msgs := c.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != 404 || len(msgs) != 1 {
		t.Fatalf("unknown session: got status %d, %d messages; want 404 with an error", resp.StatusCode, len(msgs))
	}
	c.session = ""

	c.initialize()
	if !regexp.MustCompile(`^[\x21-\x7e]{16,}$`).MatchString(c.session) {
		t.Fatalf("session id %q: want at least 16 visible ASCII characters", c.session)
	}
	resp = c.post(context.Background(), legacyHeaders(), rpcRequest(3, "tools/list", nil))
	if msgs := c.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != 200 || len(msgs) != 1 || strings.Contains(string(msgs[0]), `"error"`) {
		t.Fatalf("tools/list: got status %d, messages %s", resp.StatusCode, msgs)
	}
	resp = c.post(context.Background(), http.Header{"Mcp-Protocol-Version": {"2099-01-01"}, "Mcp-Method": {"tools/list"}}, rpcRequest(4, "tools/list", nil))
	if msgs := c.messages(resp, versionModern, "tools/list"); resp.StatusCode != 400 || len(msgs) != 1 {
		t.Fatalf("wrong version header: got status %d, want 400", resp.StatusCode)
	}

	get := c.do(http.MethodGet, http.Header{"Accept": {"text/event-stream"}})
	if get.StatusCode != 200 || !strings.HasPrefix(get.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET: got status %d, content type %q; want an SSE stream", get.StatusCode, get.Header.Get("Content-Type"))
	}
	evs, err := readEvents(get.Body, func(sseEvent) bool { return true })
	if err != nil || len(evs) != 1 || evs[0].id == "" || evs[0].data != "" || !evs[0].retry {
		t.Fatalf("GET: got events %+v, err %v; want one priming event with id and retry", evs, err)
	}

	del := c.do(http.MethodDelete, nil)
	if msgs := c.messages(del, versionLegacy, ""); del.StatusCode/100 != 2 || len(msgs) != 0 {
		t.Fatalf("DELETE: got status %d, want 2xx", del.StatusCode)
	}
	if _, err := readEvents(get.Body, nil); err != nil {
		t.Fatalf("GET stream after DELETE: %v", err)
	}
	get.Body.Close()
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp := c.do(method, nil)
		if msgs := c.messages(resp, versionLegacy, ""); resp.StatusCode != 404 || len(msgs) != 1 {
			t.Fatalf("%s on ended session: got status %d, want 404", method, resp.StatusCode)
		}
	}
	resp = c.post(context.Background(), legacyHeaders(), rpcRequest(5, "tools/list", nil))
	if msgs := c.messages(resp, versionLegacy, "tools/list"); resp.StatusCode != 404 || len(msgs) != 1 {
		t.Fatalf("ended session: got status %d, want 404", resp.StatusCode)
	}
}

// TestHTTPModernGetDelete checks that GET and DELETE without a session (the
// 2026-07-28 shape) get 405.
func TestHTTPModernGetDelete(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp := c.do(method, http.Header{"Mcp-Protocol-Version": {versionModern}})
		msgs := c.messages(resp, versionModern, "")
		if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" || len(msgs) != 1 {
			t.Fatalf("%s: got status %d, Allow %q; want 405 with Allow", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

// TestHTTPOversizedBody checks that a body over MaxBodyBytes gets 413 with a
// JSON-RPC error.
func TestHTTPOversizedBody(t *testing.T) {
	ts, _ := newHTTPTest(t, &HTTPOptions{MaxBodyBytes: 1024})
	c := newHTTPClient(t, ts)
	params := map[string]any{"_meta": modernMetaFor(nil), "pad": strings.Repeat("x", 2048)}
	resp := c.post(context.Background(), modernHeaders("tools/list", ""), rpcRequest(1, "tools/list", params))
	msgs := c.messages(resp, versionModern, "tools/list")
	if resp.StatusCode != http.StatusRequestEntityTooLarge || len(msgs) != 1 {
		t.Fatalf("got status %d with %d messages, want 413 with one error", resp.StatusCode, len(msgs))
	}
	if code, _ := rpcErrorOf(t, msgs[0]); code != CodeInvalidRequest {
		t.Fatalf("got code %d, want %d", code, CodeInvalidRequest)
	}
}

// TestHTTPSlowBody checks that a client which stops sending its body is cut
// off after BodyTimeout with a 400, instead of holding the handler.
func TestHTTPSlowBody(t *testing.T) {
	ts, _ := newHTTPTest(t, &HTTPOptions{BodyTimeout: 200 * time.Millisecond})
	pr, pw := io.Pipe()
	defer pw.Close()
	req, err := http.NewRequest(http.MethodPost, ts.URL, pr)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	go func() { _, _ = pw.Write([]byte(`{"jsonrpc":"2.0",`)) }() // and nothing more
	done := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("POST: %v", err)
			done <- nil
			return
		}
		done <- resp
	}()
	resp := waitFor(t, done, "the server to give up on the body")
	if resp == nil {
		return
	}
	if msgs := newHTTPClient(t, ts).messages(resp, versionModern, ""); resp.StatusCode != http.StatusBadRequest || len(msgs) != 1 {
		t.Fatalf("got status %d, want 400", resp.StatusCode)
	}
}

// TestHTTPMalformed checks bodies and methods no era accepts, and that a
// modern request ignores a stale Mcp-Session-Id.
func TestHTTPMalformed(t *testing.T) {
	ts, _ := newHTTPTest(t, nil)
	c := newHTTPClient(t, ts)
	tests := []struct {
		name   string
		body   string
		hdr    http.Header
		status int
		code   int
	}{
		{"not JSON", `{"jsonrpc":`, nil, 400, CodeParseError},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, CodeInvalidRequest},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil, 400, CodeInvalidRequest},
		{"wrong content type", `{}`, http.Header{"Content-Type": {"text/plain"}}, 415, CodeInvalidRequest},
		{"legacy response without session", `{"jsonrpc":"2.0","id":1,"result":{}}`, nil, 400, CodeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			resp := c.post(context.Background(), tt.hdr, []byte(tt.body))
			msgs := c.messages(resp, versionModern, "")
			if resp.StatusCode != tt.status || len(msgs) != 1 {
				t.Fatalf("got status %d with %d messages, want %d with one error", resp.StatusCode, len(msgs), tt.status)
			}
			if code, _ := rpcErrorOf(t, msgs[0]); code != tt.code {
				t.Fatalf("got code %d, want %d", code, tt.code)
			}
		})
	}
	c.t = t
	resp := c.do(http.MethodPut, nil)
	if msgs := c.messages(resp, versionModern, ""); resp.StatusCode != http.StatusMethodNotAllowed || len(msgs) != 1 {
		t.Fatalf("PUT: got status %d, want 405", resp.StatusCode)
	}
	resp = c.post(context.Background(), nil, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
	if msgs := c.messages(resp, versionLegacy, ""); resp.StatusCode != http.StatusAccepted || len(msgs) != 0 {
		t.Fatalf("notification without session or headers: got status %d, want 202", resp.StatusCode)
	}
	c.session = "stale-session"
	status, msgs := c.modernCall(7, "tools/list", nil, nil)
	if status != 200 || len(msgs) != 1 || strings.Contains(string(msgs[0]), `"error"`) {
		t.Fatalf("modern request with a stale Mcp-Session-Id: got status %d, %s; want a result", status, msgs)
	}
}
