package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// noteTool returns a tool named name, for list-change tests.
func noteTool(name string) *Tool {
	return simpleTool(name, func(context.Context) (*ToolResult, error) {
		return &ToolResult{Content: []Content{Text("ok")}}, nil
	})
}

func TestLegacySubscriptions(t *testing.T) {
	s := primitivesServer(t)
	c := eraClient(t, s, false)
	if resp := c.call(false, "resources/subscribe", map[string]any{"uri": "test://a"}); string(resp.Result) != "{}" {
		t.Fatalf("resources/subscribe: got %s, want exactly {}", resp.raw)
	}
	s.ResourceUpdated("test://b") // not subscribed: nothing
	s.ResourceUpdated("test://a")
	m := c.next()
	var p struct{ URI string }
	_ = json.Unmarshal(m.Params, &p)
	if m.Method != "notifications/resources/updated" || p.URI != "test://a" {
		t.Errorf("after ResourceUpdated: got %s, want notifications/resources/updated for test://a", m.raw)
	}
	s.AddTool(noteTool("added"))
	if m := c.next(); m.Method != "notifications/tools/list_changed" {
		t.Errorf("after AddTool: got %s, want notifications/tools/list_changed", m.raw)
	}
	s.PutPrompt(&Prompt{Name: "p", Handler: func(context.Context, *PromptRequest) (*PromptResult, error) { return Messages(), nil }})
	if m := c.next(); m.Method != "notifications/prompts/list_changed" {
		t.Errorf("after PutPrompt: got %s, want notifications/prompts/list_changed", m.raw)
	}
	if resp := c.call(false, "resources/unsubscribe", map[string]any{"uri": "test://a"}); string(resp.Result) != "{}" {
		t.Fatalf("resources/unsubscribe: got %s, want exactly {}", resp.raw)
	}
	s.ResourceUpdated("test://a")
	c.expectQuiet(100 * time.Millisecond)
	if resp := c.call(false, "resources/subscribe", nil); resp.errorCode() != CodeInvalidParams {
		t.Errorf("subscribe without uri: got %s, want -32602", resp.raw)
	}
}

// subscriptionID returns params._meta's subscription id of a notification.
func subscriptionID(t *testing.T, m *msg) string {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("params of %s: %v", m.raw, err)
	}
	return string(p.Meta[metaSubscriptionID])
}

func TestListen(t *testing.T) {
	s := primitivesServer(t)
	c := serveInMemory(t, s)
	id := c.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{
		"toolsListChanged": true, "resourceSubscriptions": []string{"notes://"}}})
	ack := c.next()
	if err := c.spec.validate(revModern, "SubscriptionsAcknowledgedNotification", ack.raw); err != nil {
		t.Errorf("acknowledgement %s: %v", ack.raw, err)
	}
	var ap struct {
		Notifications map[string]any `json:"notifications"`
	}
	_ = json.Unmarshal(ack.Params, &ap)
	if ack.Method != "notifications/subscriptions/acknowledged" || subscriptionID(t, ack) != string(id) || len(ap.Notifications) != 2 {
		t.Fatalf("first message %s, want the acknowledgement of both filters tagged %s", ack.raw, id)
	}
	s.RemovePrompt("greet") // prompts were not asked for: nothing
	s.PutTool(noteTool("echo"))
	if m := c.next(); m.Method != "notifications/tools/list_changed" || subscriptionID(t, m) != string(id) {
		t.Errorf("after PutTool: got %s, want tools/list_changed tagged %s", m.raw, id)
	}
	s.ResourceUpdated("notes://work/1") // a sub-resource of the subscription
	if m := c.next(); m.Method != "notifications/resources/updated" || subscriptionID(t, m) != string(id) {
		t.Errorf("after ResourceUpdated: got %s, want resources/updated tagged %s", m.raw, id)
	}
	s.ResourceUpdated("test://a")
	c.expectQuiet(100 * time.Millisecond)
	s.EndSubscriptions(nil)
	resp, before := c.await(id)
	var res struct {
		ResultType string                     `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	resp.decodeResult(t, &res)
	if len(before) > 0 || res.ResultType != "complete" || string(res.Meta[metaSubscriptionID]) != string(id) {
		t.Errorf("graceful end: got %s after %d messages, want a complete result tagged %s", resp.raw, len(before), id)
	}
}

func TestListenHonoursCapabilities(t *testing.T) {
	s := newTestServer(t, nil, echoTool()) // no prompts, no resources
	c := serveInMemory(t, s)
	c.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{
		"promptsListChanged": true, "resourcesListChanged": true, "toolsListChanged": true}})
	ack := c.next()
	var ap struct {
		Notifications map[string]bool `json:"notifications"`
	}
	_ = json.Unmarshal(ack.Params, &ap)
	if len(ap.Notifications) != 1 || !ap.Notifications["toolsListChanged"] {
		t.Errorf("acknowledged %s, want only toolsListChanged", ack.Params)
	}
	if resp := c.call(true, "subscriptions/listen", map[string]any{}); resp.errorCode() != CodeInvalidParams {
		t.Errorf("listen without notifications: got %s, want -32602", resp.raw)
	}
	// Stdin EOF (the test's cleanup) ends the open subscription with its result.
}

func TestHubForgetsClosedSessions(t *testing.T) {
	s := newTestServer(t, nil)
	var h hub
	a, b := s.NewSession(nil), s.NewSession(nil)
	h.AddSession(hubConn{a}, "")
	a.Close()
	h.AddSession(hubConn{b}, "")
	if n := h.Sessions(); n != 1 {
		t.Errorf("sessions after closing one: %d entries, want 1", n)
	}
}
