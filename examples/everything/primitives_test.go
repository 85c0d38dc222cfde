package everything_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/everything"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// newRuntime returns the everything server without a transport.
func newRuntime() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "everything", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	everything.RegisterMCP(s)
	return s
}

// modern sends one 2026-07-28 request through Handle and returns the
// response's result and error members as text.
func modern(t *testing.T, s *mcpruntime.Server, method string, params map[string]any) (result, rpcErr string) {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(s.HandleRaw(context.Background(), raw, nil, nil).Body, &resp); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return string(resp.Result), string(resp.Error)
}

func TestResourcesAndPrompts(t *testing.T) {
	s := newRuntime()
	tests := []struct {
		method string
		params map[string]any
		want   []string // substrings of the result, or of the error when it starts with "error:"
	}{
		{"resources/list", nil, []string{`"resources":[{"uri":"test://static-text"`, `"ttlMs":`, `"cacheScope":"public"`}},
		{"resources/templates/list", nil, []string{`"uriTemplate":"test://template/{id}/data"`}},
		{"resources/read", map[string]any{"uri": "test://static-text"}, []string{`"mimeType":"text/plain"`, "static text resource"}},
		{"resources/read", map[string]any{"uri": "test://static-binary"}, []string{`"mimeType":"image/png"`, `"blob":"iVBOR`}},
		{"resources/read", map[string]any{"uri": "test://template/123/data"}, []string{`Data for ID: 123`}},
		{"resources/read", map[string]any{"uri": "test://nonexistent-resource-for-conformance-testing"},
			[]string{"error:", `-32602`, `"uri":"test://nonexistent-resource-for-conformance-testing"`}},
		{"prompts/get", map[string]any{"name": "test_simple_prompt"}, []string{"This is a simple prompt for testing."}},
		{"prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]string{"arg1": "testValue1", "arg2": "testValue2"}},
			[]string{"arg1='testValue1', arg2='testValue2'"}},
		{"prompts/get", map[string]any{"name": "test_prompt_with_embedded_resource", "arguments": map[string]string{"resourceUri": "test://example-resource"}},
			[]string{`"type":"resource"`, `"uri":"test://example-resource"`}},
		{"prompts/get", map[string]any{"name": "test_prompt_with_image"}, []string{`"type":"image"`, `"mimeType":"image/png"`}},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"},
			"argument": map[string]any{"name": "arg1", "value": "test"}}, []string{`"values":["test","testValue1","testing"]`}},
	}
	for _, tt := range tests {
		res, rerr := modern(t, s, tt.method, tt.params)
		got := res
		if tt.want[0] == "error:" {
			got, tt.want = rerr, tt.want[1:]
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: got %s %s, want it to contain %s", tt.method, tt.params, res, rerr, w)
			}
		}
	}
}

func TestTriggersReachListeners(t *testing.T) {
	s := newRuntime()
	msgs := make(chan string, 16)
	sink := mcpruntime.SinkFunc(func(_ context.Context, msg []byte) error { msgs <- string(msg); return nil })
	raw := `{"jsonrpc":"2.0","id":99,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["test://watched-resource"]}}}`
	done := make(chan mcpruntime.Reply, 1)
	go func() { done <- s.HandleRaw(context.Background(), []byte(raw), nil, sink) }()
	next := func(what string) string {
		select {
		case m := <-msgs:
			return m
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", what)
		}
		return ""
	}
	if m := next("acknowledgement"); !strings.Contains(m, "notifications/subscriptions/acknowledged") {
		t.Fatalf("first message %s, want the acknowledgement", m)
	}
	for tool, want := range map[string]string{
		"test_trigger_tool_change":     "notifications/tools/list_changed",
		"test_trigger_prompt_change":   "notifications/prompts/list_changed",
		"test_update_watched_resource": "notifications/resources/updated",
	} {
		if res, _ := modern(t, s, "tools/call", map[string]any{"name": tool}); !strings.Contains(res, `"content"`) {
			t.Errorf("%s: got %s", tool, res)
		}
		if m := next(want); !strings.Contains(m, want) || !strings.Contains(m, `"io.modelcontextprotocol/subscriptionId":99`) {
			t.Errorf("after %s: got %s, want %s tagged 99", tool, m, want)
		}
	}
	s.EndSubscriptions(nil)
	if r := <-done; !strings.Contains(string(r.Body), `"resultType":"complete"`) {
		t.Errorf("end of subscription: got %s", r.Body)
	}
}
