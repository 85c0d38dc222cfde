package auth

// transport_test.go: the binding of every HTTP transport to the caller, with
// real tokens through the resource server's middleware (issue 32): a
// 2025-03-26 batch is bound to its session's caller as a single message is,
// and every HTTP+SSE POST is authorized as itself.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// transportRig is create_incident behind a ResourceServer on every HTTP
// transport: Streamable HTTP at /mcp, HTTP+SSE at /sse and /message.
type transportRig struct {
	is   *testIssuer
	ts   *httptest.Server
	aud  string
	runs atomic.Int32
	last atomic.Value // the subject of the last run
}

func newTransportRig(t *testing.T) *transportRig {
	rig := &transportRig{is: newTestIssuer(t)}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "transport-test", Version: "1"}, nil)
	s.AddTool(&mcpruntime.Tool{Name: "create_incident", Description: "Opens an incident.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"severity":{"type":"string","enum":["p1","p2"]}},"required":["severity"]}`),
		Scopes:      []string{"incident:create:{severity}"},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			rig.runs.Add(1)
			rig.last.Store(mcpruntime.PrincipalFrom(ctx).Subject)
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("opened by " + mcpruntime.PrincipalFrom(ctx).Subject)}}, nil
		}})
	rig.ts = httptest.NewServer(nil)
	rig.aud = rig.ts.URL + "/mcp"
	rs, err := New(s, Config{Issuer: rig.is.URL(), Audience: rig.aud, Logger: slogTo(io.Discard)})
	if err != nil {
		t.Fatal(err)
	}
	h := s.HTTPHandler(nil)
	sse := s.LegacySSEHandler(nil)
	routed := http.NewServeMux()
	routed.Handle("/mcp", h)
	routed.Handle("/sse", sse)
	routed.Handle("/message", sse)
	mux := http.NewServeMux()
	rs.Mount(mux, "/", routed) // as ListenAndServe mounts a routed mux
	rig.ts.Config.Handler = mux
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		rig.ts.CloseClientConnections()
		rig.ts.Close()
	})
	return rig
}

// token mints a token of sub (client "agent") with scopes, valid for an hour
// (or expired already).
func (rig *transportRig) token(sub, scopes string, expired bool) string {
	c := rig.is.claims(rig.aud, scopes)
	c["sub"] = sub
	if expired {
		c["exp"] = time.Now().Add(-time.Hour).Unix()
	}
	return rig.is.mint(c, rig.is.kid, rig.is.key, "RS256")
}

// post POSTs body to path with the token (none when ""), and the session.
func (rig *transportRig) post(t *testing.T, path, token, session, body string) (int, http.Header, string) {
	t.Helper()
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		hdr.Set("Mcp-Session-Id", session)
	}
	return send(t, rig.ts.URL+path, body, hdr)
}

const (
	initialize0326 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`
	initialized    = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// incident is a tools/call of create_incident.
func incident(id int, severity string) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"create_incident","arguments":{"severity":"` + severity + `"}}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestBatchBoundToSessionCaller: a JSON-RPC batch on a 2025-03-26 session is
// refused (403) to another principal holding the session id, exactly as a
// single message is, and none of it runs: it can neither call tools as the
// session nor answer the session's pending server-to-client requests. The
// session's own caller is served.
func TestBatchBoundToSessionCaller(t *testing.T) {
	rig := newTransportRig(t)
	alice := rig.token("alice", "incident:create", false)
	bob := rig.token("bob", "incident:create", false)
	status, hdr, body := rig.post(t, "/mcp", alice, "", initialize0326)
	session := hdr.Get("Mcp-Session-Id")
	if status != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	if status, _, body = rig.post(t, "/mcp", alice, session, initialized); status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", status, body)
	}
	// A single message and a batch from bob with alice's session id.
	if status, _, body = rig.post(t, "/mcp", bob, session, incident(2, "p1")); status != http.StatusForbidden {
		t.Errorf("single message by another principal: %d %s, want 403", status, body)
	}
	batch := `[` + incident(3, "p1") + `,{"jsonrpc":"2.0","id":0,"result":{"roots":[]}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}]`
	status, _, body = rig.post(t, "/mcp", bob, session, batch)
	if status != http.StatusForbidden || !strings.Contains(body, "another caller") {
		t.Errorf("batch by another principal: %d %s, want 403", status, body)
	}
	if n := rig.runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times for another principal", n)
	}
	// Alice's own batch is served.
	status, _, body = rig.post(t, "/mcp", alice, session, `[`+incident(4, "p1")+`]`)
	if status != http.StatusOK || !strings.Contains(body, "opened by alice") {
		t.Errorf("the session's own batch: %d %s", status, body)
	}
}

// A legacyStream is an HTTP+SSE event stream: its message endpoint and its events.
type legacyStream struct {
	endpoint string
	events   chan string // the data of each "message" event
}

// openLegacy GETs /sse with token and reads the endpoint event.
func (rig *transportRig) openLegacy(t *testing.T, token string) *legacyStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rig.ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET /sse: %d", resp.StatusCode)
	}
	st := &legacyStream{events: make(chan string, 16)}
	endpoint := make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		defer close(st.events)
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && name == "endpoint":
				endpoint <- strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, "data: "):
				st.events <- strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	select {
	case st.endpoint = <-endpoint:
	case <-time.After(10 * time.Second):
		t.Fatal("no endpoint event")
	}
	return st
}

// next returns the next message on the stream.
func (st *legacyStream) next(t *testing.T) string {
	t.Helper()
	select {
	case m, ok := <-st.events:
		if !ok {
			t.Fatal("the stream ended")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message on the stream")
	}
	return ""
}

// TestLegacySSEPostAuthorizedAsItself: on the HTTP+SSE transport every POST
// is authenticated and authorized as itself, not as the GET that opened the
// stream: a POST whose token lacks the tool's scope is refused although the
// stream's token holds it; a POST without a token, or with an expired one,
// gets 401; a POST of another principal gets 403.
func TestLegacySSEPostAuthorizedAsItself(t *testing.T) {
	rig := newTransportRig(t)
	broad := rig.token("alice", "incident:create", false)
	narrow := rig.token("alice", "incident:create:p2", false)
	st := rig.openLegacy(t, broad)
	postSSE := func(token, body string) int {
		t.Helper()
		status, _, _ := rig.post(t, st.endpoint, token, "", body)
		return status
	}
	if got := postSSE(narrow, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); got != http.StatusAccepted {
		t.Fatalf("initialize: %d", got)
	}
	if m := st.next(t); !strings.Contains(m, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize: %s", m)
	}
	postSSE(narrow, initialized)
	// A P1 incident with a token that holds only incident:create:p2.
	if got := postSSE(narrow, incident(2, "p1")); got != http.StatusAccepted {
		t.Fatalf("tools/call: %d", got)
	}
	if m := st.next(t); !strings.Contains(m, `"id":2`) || !strings.Contains(m, `"error"`) || !strings.Contains(m, "-32003") {
		t.Errorf("p1 with a p2 token answered %s, want the -32003 scope error", m)
	}
	if n := rig.runs.Load(); n != 0 {
		t.Fatalf("the tool ran %d times with a POST token lacking its scope", n)
	}
	// What the narrow token does hold is served, as alice.
	postSSE(narrow, incident(3, "p2"))
	if m := st.next(t); !strings.Contains(m, "opened by alice") {
		t.Errorf("p2 with a p2 token: %s", m)
	}
	// No token, an expired token: 401; another principal: 403.
	if got := postSSE("", incident(4, "p2")); got != http.StatusUnauthorized {
		t.Errorf("POST without a token: %d, want 401", got)
	}
	if got := postSSE(rig.token("alice", "incident:create", true), incident(5, "p2")); got != http.StatusUnauthorized {
		t.Errorf("POST with an expired token: %d, want 401", got)
	}
	if got := postSSE(rig.token("bob", "incident:create", false), incident(6, "p2")); got != http.StatusForbidden {
		t.Errorf("POST of another principal: %d, want 403", got)
	}
	if n := rig.runs.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}
