package incidents

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// uiCaps are the client capabilities of a host with MCP Apps.
var uiCaps = map[string]any{"extensions": map[string]any{
	"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}

// A session is what one client saw: the capabilities the server advertised,
// tools/list, and a call of the app-only acknowledge_alert.
type session struct {
	caps  json.RawMessage // server/discover's or initialize's capabilities
	tools json.RawMessage // tools/list's result
	ack   json.RawMessage // acknowledge_alert's result
}

// TestAppsNegotiation checks MCP Apps negotiation in every era and over both
// transports: a client that declares io.modelcontextprotocol/ui sees the
// tools' _meta.ui and the app-only tool; any other client is served plain
// tools (no _meta.ui, no app-only tool, which stays callable), and so is a
// client of a revision before 2025-06-18, whose Tool has no _meta; the server
// advertises the extension where the revision has a place for it.
func TestAppsNegotiation(t *testing.T) {
	for _, rev := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		for _, transport := range []string{"stdio", "http"} {
			if transport == "http" && rev != "2026-07-28" && rev != "2025-11-25" {
				continue // the older revisions share the 2025-11-25 HTTP path; stdio covers their shaping
			}
			for _, apps := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/apps=%v", rev, transport, apps), func(t *testing.T) {
					caps := map[string]any{}
					if apps {
						caps = uiCaps
					}
					var got session
					if transport == "stdio" {
						got = overStdio(t, rev, caps)
					} else {
						got = overHTTP(t, rev, caps)
					}
					checkSession(t, rev, apps, got)
				})
			}
		}
	}
}

// checkSession checks what one client saw.
func checkSession(t *testing.T, rev string, apps bool, got session) {
	t.Helper()
	var list struct {
		Tools []struct {
			Name string                     `json:"name"`
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"tools"`
	}
	unmarshal(t, got.tools, &list)
	ui := map[string]string{}
	for _, tool := range list.Tools {
		if tool.Name == "show_incident_board" || tool.Name == "acknowledge_alert" {
			ui[tool.Name] = string(tool.Meta["ui"])
		}
	}
	want := map[string]string{"show_incident_board": ""}
	if apps && rev >= "2025-06-18" { // older Tool objects have no _meta: plain tools
		want = map[string]string{
			"show_incident_board": `{"resourceUri":"ui://incidents/board"}`,
			"acknowledge_alert":   `{"resourceUri":"ui://incidents/board","visibility":["app"]}`,
		}
	}
	if fmt.Sprint(ui) != fmt.Sprint(want) {
		t.Errorf("tools/list: board tools' _meta.ui = %v, want %v", ui, want)
	}
	if !strings.Contains(string(got.ack), `ACK-0001`) || strings.Contains(string(got.ack), `"isError":true`) {
		t.Errorf("acknowledge_alert (callable whether listed or not) = %s, want ACK-0001", got.ack)
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	unmarshal(t, got.caps, &caps)
	adv, ok := caps.Extensions["io.modelcontextprotocol/ui"]
	if wantAdv := rev == "2026-07-28" || rev == "2025-11-25"; ok != wantAdv || (ok && string(adv) != `{"mimeTypes":["text/html;profile=mcp-app"]}`) {
		t.Errorf("capabilities advertise %s (%v), want advertised %v with the HTML view type", adv, ok, wantAdv)
	}
}

// messages are a client's requests in order: ids 1.. for discover or
// initialize, tools/list and the call.
func messages(rev string, caps map[string]any) []map[string]any {
	ack := map[string]any{"name": "acknowledge_alert", "arguments": map[string]any{
		"alert_id": "alert-payments-0001", "idempotency_key": "ack-negotiation-1"}}
	if rev == "2026-07-28" {
		meta := map[string]any{"io.modelcontextprotocol/protocolVersion": rev, "io.modelcontextprotocol/clientCapabilities": caps}
		ack["_meta"] = meta
		return []map[string]any{
			{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{"_meta": meta}},
			{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": map[string]any{"_meta": meta}},
			{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ack},
		}
	}
	return []map[string]any{
		{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": rev,
			"capabilities": caps, "clientInfo": map[string]any{"name": "apps-test", "version": "1"}}},
		{"jsonrpc": "2.0", "method": "notifications/initialized"},
		{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": map[string]any{}},
		{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": ack},
	}
}

// fromReplies picks the session out of the replies by id.
func fromReplies(t *testing.T, replies map[float64]json.RawMessage) session {
	t.Helper()
	var first struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	unmarshal(t, replies[1], &first)
	return session{caps: first.Capabilities, tools: replies[2], ack: replies[3]}
}

// overStdio runs the client's messages over stdio.
func overStdio(t *testing.T, rev string, caps map[string]any) session {
	var in bytes.Buffer
	for _, m := range messages(rev, caps) {
		b, _ := json.Marshal(m)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	if err := newServer().ServeStdio(context.Background(), &in, &out); err != nil {
		t.Fatal(err)
	}
	replies := map[float64]json.RawMessage{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		addReply(t, replies, sc.Bytes())
	}
	return fromReplies(t, replies)
}

// addReply records a response's result (or fails on its error) by id.
func addReply(t *testing.T, replies map[float64]json.RawMessage, line []byte) {
	t.Helper()
	var r struct {
		ID     *float64        `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	unmarshal(t, line, &r)
	if r.ID == nil {
		return
	}
	if r.Error != nil {
		t.Fatalf("request %v: error %s", *r.ID, r.Error)
	}
	replies[*r.ID] = r.Result
}

// overHTTP runs the client's messages over Streamable HTTP.
func overHTTP(t *testing.T, rev string, caps map[string]any) session {
	srv := httptest.NewServer(newServer().HTTPHandler(nil))
	defer srv.Close()
	replies := map[float64]json.RawMessage{}
	sessionID := ""
	for _, m := range messages(rev, caps) {
		b, _ := json.Marshal(m)
		req, err := http.NewRequest("POST", srv.URL, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", rev)
		if rev == "2026-07-28" {
			req.Header.Set("Mcp-Method", m["method"].(string))
			if p, ok := m["params"].(map[string]any); ok && p["name"] != nil {
				req.Header.Set("Mcp-Name", p["name"].(string))
			}
		}
		if sessionID != "" {
			req.Header.Set("Mcp-Session-Id", sessionID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			sessionID = id
		}
		if m["id"] == nil {
			continue
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: HTTP %d %s", m["method"], resp.StatusCode, body)
		}
		for _, line := range bytes.Split(body, []byte("\n")) { // JSON, or SSE data lines
			line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data: "))
			if len(line) > 0 && line[0] == '{' {
				addReply(t, replies, line)
			}
		}
	}
	return fromReplies(t, replies)
}
