package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newPrimitivesHTTP serves primitivesServer over Streamable HTTP.
func newPrimitivesHTTP(t *testing.T) (*Server, *httpClient) {
	t.Helper()
	s := primitivesServer(t)
	ts := httptest.NewServer(s.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	return s, newHTTPClient(t, ts)
}

func TestHTTPModernRead(t *testing.T) {
	_, c := newPrimitivesHTTP(t)
	body := rpcRequest(7, "resources/read", map[string]any{"_meta": modernMetaFor(nil), "uri": "notes://home/2"})
	resp := c.post(t.Context(), modernHeaders("resources/read", "notes://home/2"), body)
	msgs := c.messages(resp, versionModern, "resources/read")
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"text":"home/2"`) {
		t.Errorf("modern read: status %d, %s", resp.StatusCode, msgs)
	}
	body = rpcRequest(8, "resources/read", map[string]any{"_meta": modernMetaFor(nil), "uri": "test://nope"})
	resp = c.post(t.Context(), modernHeaders("resources/read", "test://nope"), body)
	msgs = c.messages(resp, versionModern, "resources/read")
	if code, _ := rpcErrorOf(t, msgs[0]); resp.StatusCode != http.StatusOK || code != CodeInvalidParams {
		t.Errorf("modern not found: status %d, %s; want 200 with -32602", resp.StatusCode, msgs)
	}
}

// streamEvents reads the SSE events of resp onto a channel until it ends.
func streamEvents(resp *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 16)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		_, _ = readEvents(resp.Body, func(ev sseEvent) bool {
			if ev.data != "" {
				ch <- ev
			}
			return false
		})
	}()
	return ch
}

func TestHTTPListen(t *testing.T) {
	s, c := newPrimitivesHTTP(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	body := rpcRequest(42, "subscriptions/listen", map[string]any{"_meta": modernMetaFor(nil),
		"notifications": map[string]any{"promptsListChanged": true}})
	resp := c.post(ctx, modernHeaders("subscriptions/listen", ""), body)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("listen: status %d, %s; want an SSE stream", resp.StatusCode, ct)
	}
	events := streamEvents(resp)
	ack := waitFor(t, events, "the acknowledgement")
	if err := c.schemas.validate(versionModern, "SubscriptionsAcknowledgedNotification", []byte(ack.data)); err != nil ||
		!strings.Contains(ack.data, `"io.modelcontextprotocol/subscriptionId":42`) {
		t.Errorf("acknowledgement %s: %v", ack.data, err)
	}
	s.PutTool(noteTool("echo")) // tools were not asked for
	s.RemovePrompt("many")
	ev := waitFor(t, events, "prompts/list_changed")
	c.validate(versionModern, "", []byte(ev.data))
	if !strings.Contains(ev.data, "notifications/prompts/list_changed") || !strings.Contains(ev.data, `"io.modelcontextprotocol/subscriptionId":42`) {
		t.Errorf("got %s, want prompts/list_changed tagged 42", ev.data)
	}
	cancel() // closing the stream ends the subscription
	deadline := time.Now().Add(5 * time.Second)
	for s.prims.hub.Listeners() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("listener still registered after the client closed the stream")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHTTPLegacySubscribe(t *testing.T) {
	s, c := newPrimitivesHTTP(t)
	c.initialize()
	resp := c.post(t.Context(), legacyHeaders(), rpcRequest(2, "resources/subscribe", map[string]any{"uri": "test://a"}))
	msgs := c.messages(resp, versionLegacy, "resources/subscribe")
	if len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"result":{}`) {
		t.Fatalf("subscribe: %s, want an empty result", msgs)
	}
	get := c.do(http.MethodGet, http.Header{"Accept": {"text/event-stream"}, "Mcp-Protocol-Version": {versionLegacy}})
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d", get.StatusCode)
	}
	events := streamEvents(get)
	s.ResourceUpdated("test://a")
	ev := waitFor(t, events, "resources/updated")
	c.validate(versionLegacy, "", []byte(ev.data))
	var n struct {
		Method string `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(ev.data), &n); err != nil || n.Method != "notifications/resources/updated" || n.Params.URI != "test://a" {
		t.Errorf("GET stream: got %s, want resources/updated for test://a", ev.data)
	}
	c.do(http.MethodDelete, nil).Body.Close()
}
