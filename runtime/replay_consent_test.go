package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// replayServer has a keyed write with a consent question; runs counts its
// handler's runs.
func replayServer(runs *atomic.Int32) *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "replay", Version: "1"}, &mcpruntime.Options{Logger: quietLogger()})
	s.AddTool(&mcpruntime.Tool{
		Name:           "pay",
		Confirm:        "Pay {amount}?",
		IdempotencyKey: "key",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"},"amount":{"type":"integer"}},
			"required":["key","amount"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			n := runs.Add(1)
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("paid #" + string(rune('0'+n)))}}, nil
		},
	})
	return s
}

// TestReplayBeforeConsentStdio (issue 36, item 2; 2025-11-25 over stdio): the
// first call asks (elicitation/create) and runs; a replay with the same key
// and arguments gets the recorded result without a question; the key with
// other arguments is refused (idempotency_key_reused) without one.
func TestReplayBeforeConsentStdio(t *testing.T) {
	var runs atomic.Int32
	p := startStdio(t, replayServer(&runs))
	p.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	p.next(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := func(amount string) string {
		return `{"jsonrpc":"2.0","id":"ok","method":"tools/call","params":{"name":"pay","arguments":{"key":"k1","amount":` + amount + `}}}`
	}
	// First call: one question, accepted.
	p.send(t, call("5"))
	q := p.next(t)
	if !strings.Contains(string(q), `"method":"elicitation/create"`) {
		t.Fatalf("first call: want the consent question, got %s", q)
	}
	var req struct{ ID json.RawMessage }
	_ = json.Unmarshal(q, &req)
	p.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"accept","content":{"confirm":true}}}`)
	other, first := p.until(t, false)
	if len(other) != 0 || !strings.Contains(string(first), `paid #1`) {
		t.Fatalf("first call: %s (other lines %q)", first, other)
	}
	// The replay: no question, the recorded result.
	p.send(t, call("5"))
	replay := p.next(t)
	if strings.Contains(string(replay), "elicitation/create") || !strings.Contains(string(replay), `paid #1`) || !strings.Contains(string(replay), `"id":"ok"`) {
		t.Errorf("replay: want the recorded result without a question, got %s", replay)
	}
	// The key reused with other arguments: refused, no question.
	p.send(t, call("7"))
	reused := p.next(t)
	if strings.Contains(string(reused), "elicitation/create") || !strings.Contains(string(reused), `"code":"idempotency_key_reused"`) {
		t.Errorf("reused key: want idempotency_key_reused without a question, got %s", reused)
	}
	if runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", runs.Load())
	}
}

// TestReplayBeforeConsentHTTP: the same over Streamable HTTP, 2026-07-28
// (the question is an input_required round).
func TestReplayBeforeConsentHTTP(t *testing.T) {
	var runs atomic.Int32
	ts := httptest.NewServer(replayServer(&runs).HTTPHandler(nil))
	defer ts.Close()
	peer := &httpPeer{url: ts.URL, client: ts.Client()}
	post := func(args, extra string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":` + args + extra + `,
			"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		resp := peer.post(t, true, body, nil, "") // a 2026-07-28 client's headers
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	first := post(`{"key":"k1","amount":5}`, "")
	if !strings.Contains(first, `"resultType":"input_required"`) {
		t.Fatalf("first call: want the consent question, got %s", first)
	}
	var ir struct {
		Result struct{ RequestState string } `json:"result"`
	}
	if err := json.Unmarshal([]byte(first), &ir); err != nil {
		t.Fatal(err)
	}
	answered := post(`{"key":"k1","amount":5}`, `,"inputResponses":{"mcpgen.confirm":{"action":"accept","content":{"confirm":true}}},"requestState":"`+ir.Result.RequestState+`"`)
	if !strings.Contains(answered, `paid #1`) {
		t.Fatalf("answered call: %s", answered)
	}
	if replay := post(`{"key":"k1","amount":5}`, ""); strings.Contains(replay, "input_required") || !strings.Contains(replay, `paid #1`) {
		t.Errorf("replay: want the recorded result without a question, got %s", replay)
	}
	if reused := post(`{"key":"k1","amount":7}`, ""); strings.Contains(reused, "input_required") || !strings.Contains(reused, `"code":"idempotency_key_reused"`) {
		t.Errorf("reused key: want idempotency_key_reused without a question, got %s", reused)
	}
	if runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", runs.Load())
	}
}
