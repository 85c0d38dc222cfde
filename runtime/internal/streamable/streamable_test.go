package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/httpsession"
	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
	"github.com/mcpgen/mcpgen/runtime/internal/legacysse"
)

// conn is a session's server side: its negotiated version.
type conn struct {
	version string
	closed  atomic.Bool
}

func (c *conn) Close()                  { c.closed.Store(true) }
func (c *conn) ProtocolVersion() string { return c.version }

// msg is a message of the toy server behind the transport.
type msg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Modern bool            `json:"modern"`   // as if its _meta said 2026-07-28
	Full   bool            `json:"complete"` // as if its _meta were complete
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
	Caller string `json:"-"`
	era    string
}

// rig is a transport in front of a toy server that echoes each request's
// method, era and session as its result; "block" waits for release.
type rig struct {
	h       *Handler[*conn, *msg]
	srv     *httptest.Server
	release chan struct{}
}

func newRig(t *testing.T, edit func(*Options)) *rig {
	t.Helper()
	rg := &rig{release: make(chan struct{})}
	o := Options{MaxBodyBytes: 1 << 10, BodyTimeout: time.Second, MaxSessions: 10, MaxSessionsPerPeer: 10,
		SessionIdleTimeout: time.Hour, SessionPrefix: "t-", MaxStatelessRequests: 10, MaxConcurrentRequests: 4,
		SSERetry: time.Second, KeepAlive: time.Minute}
	if edit != nil {
		edit(&o)
	}
	reply := func(m *msg, c *conn) httpstream.Reply {
		if string(m.ID) == "99" {
			return httpstream.Reply{Body: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`), Status: http.StatusOK}
		}
		v := "none"
		if c != nil {
			v = c.version
			if m.Method == "initialize" {
				c.version = "2025-06-18"
			}
		}
		res, _ := json.Marshal(map[string]string{"method": m.Method, "era": m.era, "session": v})
		return httpstream.Reply{Body: []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + string(res) + `}`), Status: http.StatusOK}
	}
	rg.h = New(Config[*conn, *msg]{
		Options: o,
		Log:     slog.New(slog.DiscardHandler),
		Admit:   func(r *http.Request) *http.Request { return r },
		BoundTo: func(hs *httpsession.Session[*conn], r *http.Request) bool {
			return hs.Caller == r.Header.Get("X-Caller")
		},
		Caller:       func(r *http.Request) string { return r.Header.Get("X-Caller") },
		ListenClient: func(r *http.Request) string { return r.Header.Get("X-Caller") },
		OtherCaller:  "other caller",
		NewConn:      func(string, *httpstream.Exchange) *conn { return &conn{} },
		EndStreams:   func() {},
		Parse: func(body []byte) (*msg, Info, *httpstream.Reply, error) {
			var m msg
			if err := json.Unmarshal(body, &m); err != nil {
				return nil, Info{}, nil, errors.New("not json")
			}
			kind := Request
			if m.ID == nil {
				kind = Notification
			}
			var raw struct{ Params json.RawMessage }
			_ = json.Unmarshal(body, &raw)
			return &m, Info{Kind: kind, ID: m.ID, Method: m.Method, Modern: m.Modern, MetaComplete: m.Full, Params: raw.Params,
				Version: "2026-07-28", Tool: m.Params.Name, Arguments: m.Params.Arguments}, nil, nil
		},
		SetModern: func(m *msg) { m.era = "modern" },
		ParamHeaders: func(tool string) ([]httpcheck.ParamHeader, bool) {
			if tool != "find" {
				return nil, false
			}
			return httpcheck.ParamHeaders(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","x-mcp-header":"Query"}}}`)), true
		},
		Handle: func(_ context.Context, m *msg, c *conn, _ Sink) (httpstream.Reply, bool) {
			r := reply(m, c)
			return r, string(m.ID) != "99"
		},
		Serve: func(_ context.Context, m *msg, c *conn, x *httpstream.Exchange, done func(httpstream.Reply)) {
			if done == nil {
				done = x.Finish
			}
			go func() {
				if m.Method == "block" {
					<-rg.release
				}
				done(reply(m, c))
			}()
		},
		Go:         func(f func()) { go f() },
		IsBatch:    func(body []byte) bool { return strings.HasPrefix(string(body), "[") },
		TakesBatch: func(c *conn) bool { return c.version == "2025-03-26" },
		Batch: func(context.Context, []byte, *conn, Sink) []byte {
			return []byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)
		},
	})
	rg.srv = httptest.NewServer(rg.h)
	t.Cleanup(func() {
		rg.srv.Close()
		rg.h.Sessions.CloseAll()
	})
	return rg
}

// do sends a request and returns its status, body and session id header.
func (rg *rig) do(t *testing.T, method, body string, hdr map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, rg.srv.URL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}

func TestGuardsAndMethods(t *testing.T) {
	rg := newRig(t, func(o *Options) { o.AllowedOrigins = []string{"https://ok.example"} })
	for _, c := range []struct {
		method string
		hdr    map[string]string
		status int
		want   string
	}{
		{"POST", map[string]string{"Origin": "https://evil.example"}, 403, "origin not allowed"},
		{"POST", map[string]string{"Origin": "https://ok.example", "Mcp-Session-Id": "nope"}, 404, "unknown or terminated session"},
		{"PUT", nil, 405, "method not allowed"},
		{"GET", nil, 405, "GET needs an Mcp-Session-Id"},
		{"DELETE", map[string]string{"Mcp-Session-Id": "x", "MCP-Protocol-Version": "2026-07-28"}, 400, "unsupported MCP-Protocol-Version"},
	} {
		status, body, _ := rg.do(t, c.method, `{"id":1,"method":"m"}`, c.hdr)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s %v: %d %s, want %d %q", c.method, c.hdr, status, body, c.status, c.want)
		}
	}
	req, _ := http.NewRequest("POST", rg.srv.URL, strings.NewReader(`{}`))
	req.Host = "evil.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("foreign Host: %d, want 403", resp.StatusCode)
	}
	if status, body, _ := rg.do(t, "POST", `not json`, nil); status != 400 || !strings.Contains(body, "not json") {
		t.Errorf("bad body: %d %s", status, body)
	}
}

func TestModern(t *testing.T) {
	rg := newRig(t, func(o *Options) { o.MaxStatelessRequests = 1 })
	if status, body, _ := rg.do(t, "POST", `{"id":1,"method":"tools/list","modern":true}`, nil); status != 200 || !strings.Contains(body, `"era":"modern"`) || !strings.Contains(body, `"session":"none"`) {
		t.Errorf("modern by _meta: %d %s", status, body)
	}
	if status, body, _ := rg.do(t, "POST", `{"id":2,"method":"tools/list"}`, map[string]string{"MCP-Protocol-Version": "2026-07-28"}); status != 200 || !strings.Contains(body, `"era":"modern"`) {
		t.Errorf("modern by header: %d %s", status, body)
	}
	call := `{"id":3,"method":"tools/call","modern":true,"complete":true,"params":{"name":"find","arguments":{"q":"x"}}}`
	std := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "find"}
	for _, c := range []struct {
		body   string
		hdr    map[string]string
		status int
	}{
		{call, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "find", "Mcp-Param-Query": "x"}, 200},
		{call, std, 400}, // Mcp-Param-Query missing
		{call, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "find", "Mcp-Param-Query": "x"}, 400},
		{strings.Replace(call, `"find"`, `"nope"`, 1), map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "nope"}, 200},
		{strings.Replace(call, `"complete":true`, `"complete":false`, 1), nil, 200}, // incomplete _meta: the server's -32602 comes first
	} {
		status, body, _ := rg.do(t, "POST", c.body, c.hdr)
		if status != c.status || (status == 400) != strings.Contains(body, "-32020") {
			t.Errorf("%s %v: %d %s, want %d", c.body, c.hdr, status, body, c.status)
		}
	}
	if status, _, _ := rg.do(t, "POST", `{"method":"notifications/x","modern":true}`, nil); status != 202 {
		t.Errorf("notification: %d", status)
	}
	done := make(chan int)
	go func() {
		status, _, _ := rg.do(t, "POST", `{"id":4,"method":"block","modern":true}`, nil)
		done <- status
	}()
	for rg.h.stateless.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if status, body, _ := rg.do(t, "POST", `{"id":5,"method":"m","modern":true}`, nil); status != 503 || !strings.Contains(body, BusyMessage) {
		t.Errorf("beyond the bound: %d %s", status, body)
	}
	close(rg.release)
	if status := <-done; status != 200 {
		t.Errorf("blocked request: %d", status)
	}
}

func TestLegacySessions(t *testing.T) {
	rg := newRig(t, nil)
	alice := map[string]string{"X-Caller": "alice"}
	if status, body, _ := rg.do(t, "POST", `{"id":1,"method":"tools/list"}`, alice); status != 400 || !strings.Contains(body, "missing Mcp-Session-Id") {
		t.Errorf("no session: %d %s", status, body)
	}
	if status, _, id := rg.do(t, "POST", `{"id":99,"method":"initialize"}`, alice); status != 200 || id != "" || len(rg.h.Sessions.All()) != 0 {
		t.Errorf("failed initialize: %d, session %q", status, id)
	}
	status, _, id := rg.do(t, "POST", `{"id":1,"method":"initialize"}`, alice)
	if status != 200 || !strings.HasPrefix(id, "t-") {
		t.Fatalf("initialize: %d, session %q", status, id)
	}
	in := map[string]string{"X-Caller": "alice", "Mcp-Session-Id": id, "Accept": "application/json"}
	if status, body, _ := rg.do(t, "POST", `{"id":2,"method":"tools/list"}`, in); status != 200 || !strings.Contains(body, `"session":"2025-06-18"`) {
		t.Errorf("request of the session: %d %s", status, body)
	}
	in["Accept"] = "application/json, text/event-stream" // a 2025-06-18 session gets SSE, without a priming event
	if status, body, _ := rg.do(t, "POST", `{"id":3,"method":"tools/list"}`, in); status != 200 || !strings.HasPrefix(body, "id: ") || strings.Contains(body, "retry:") {
		t.Errorf("2025-06-18 request accepting SSE: %d %q", status, body)
	}
	if status, body, _ := rg.do(t, "POST", `{"id":4,"method":"tools/list"}`, map[string]string{"X-Caller": "bob", "Mcp-Session-Id": id}); status != 403 || !strings.Contains(body, "other caller") {
		t.Errorf("another caller: %d %s", status, body)
	}
	in["MCP-Protocol-Version"] = "2025-11-25"
	if status, body, _ := rg.do(t, "POST", `{"id":5,"method":"tools/list"}`, in); status != 400 || !strings.Contains(body, "does not match") {
		t.Errorf("wrong version header: %d %s", status, body)
	}
	delete(in, "MCP-Protocol-Version")
	if status, _, _ := rg.do(t, "POST", `{"method":"notifications/initialized"}`, in); status != 202 {
		t.Errorf("notification: %d", status)
	}
	if status, _, _ := rg.do(t, "POST", `[{"id":1,"method":"m"}]`, in); status != 400 {
		t.Errorf("batch on a 2025-06-18 session: %d, want 400", status)
	}
	if status, _, _ := rg.do(t, "DELETE", "", in); status != 204 {
		t.Errorf("DELETE: %d", status)
	}
	if status, _, _ := rg.do(t, "POST", `{"id":6,"method":"tools/list"}`, in); status != 404 {
		t.Errorf("after DELETE: %d", status)
	}
}

func TestBatchAndShutdown(t *testing.T) {
	rg := newRig(t, nil)
	_, _, id := rg.do(t, "POST", `{"id":1,"method":"initialize"}`, nil)
	hs, _ := rg.h.Sessions.Get(id)
	hs.Conn.version = "2025-03-26"
	if status, body, _ := rg.do(t, "POST", `[{"id":1,"method":"m"}]`, map[string]string{"Mcp-Session-Id": id}); status != 200 || !strings.HasPrefix(body, "[") {
		t.Errorf("batch of a 2025-03-26 session: %d %s", status, body)
	}
	if err := rg.h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !hs.Conn.closed.Load() {
		t.Error("a session outlived Shutdown")
	}
	if status, body, _ := rg.do(t, "POST", `{"id":2,"method":"m","modern":true}`, nil); status != 503 || !strings.Contains(body, "shutting down") {
		t.Errorf("after Shutdown: %d %s", status, body)
	}
}

// TestLegacySSEPost: messages POSTed to an HTTP+SSE session are served with
// the transport's Parse and Handle, their replies going to the stream; a
// malformed one gets 400; a notification 202 and nothing on the stream.
func TestLegacySSEPost(t *testing.T) {
	rg := newRig(t, nil)
	var c *conn
	sse := rg.h.LegacySSE("/sse", "/message", errors.New("closed"), func(legacysse.Sink) *conn { c = &conn{version: "2024-11-05"}; return c }, func(*conn) {})
	ts := httptest.NewServer(sse)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	next := func() string { // the next event, whole
		var ev string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if line == "\n" && ev != "" {
				return ev
			}
			ev += line
		}
	}
	_, endpoint, ok := strings.Cut(next(), "data: ")
	if !ok {
		t.Fatal("no endpoint event")
	}
	endpoint = strings.TrimSpace(endpoint)
	post := func(body string) int {
		r, err := http.Post(ts.URL+endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if code := post(`{"id":7,"method":"tools/list"}`); code != http.StatusAccepted {
		t.Fatalf("request: %d", code)
	}
	if got := next(); !strings.Contains(got, "event: message") || !strings.Contains(got, `"id":7`) || !strings.Contains(got, `"session":"2024-11-05"`) {
		t.Errorf("reply on the stream: %q", got)
	}
	if code := post(`nope`); code != http.StatusBadRequest {
		t.Errorf("malformed: %d", code)
	}
	if code := post(`{"method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Errorf("notification: %d", code)
	}
	c.version = "2025-03-26"
	if code := post(`[{"id":1,"method":"m"}]`); code != http.StatusAccepted {
		t.Errorf("batch: %d", code)
	}
	if got := next(); !strings.Contains(got, `data: [{"jsonrpc":"2.0","id":1,"result":{}}]`) {
		t.Errorf("batch reply on the stream: %q", got)
	}
}
