package everything_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/specschema"
	"github.com/mcpgen/mcpgen/internal/testfigures"
	"github.com/mcpgen/mcpgen/internal/testproc"
)

// post sends one JSON-RPC message with the headers; the caller reads (and
// closes) the response.
func post(t *testing.T, url string, h map[string]string, msg map[string]any) *http.Response {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %v: %v", msg["method"], err)
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %v: status %d: %s", msg["method"], resp.StatusCode, b)
	}
	return resp
}

// events returns the JSON messages of an SSE (or plain JSON) body as they
// arrive; the channel is closed at its end.
func events(body io.ReadCloser) <-chan json.RawMessage {
	ch := make(chan json.RawMessage, 64)
	go func() {
		defer close(ch)
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := strings.TrimPrefix(sc.Text(), "data: ")
			if strings.HasPrefix(line, "{") {
				ch <- json.RawMessage(line)
			}
		}
	}()
	return ch
}

// next returns the next message of ch that is not a keep-alive, or fails.
func next(t *testing.T, ch <-chan json.RawMessage, what string) json.RawMessage {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing within 10s", what)
	}
	return nil
}

// notificationSchema compiles a notification's definition from the spec
// schema of a revision (../shared/spec beside the repository).
func notificationSchema(t *testing.T, rev, def string) *jsonschema.Schema {
	t.Helper()
	spec := filepath.Join("..", "..", "..", "shared", "spec")
	if dir := os.Getenv("MCPGEN_SPEC_DIR"); dir != "" { // a git worktree elsewhere
		spec = dir
	}
	f, err := os.Open(filepath.Join(spec, rev, "schema", "schema.json"))
	if err != nil {
		t.Fatalf("spec schema: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://spec.test/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url + "#/" + specschema.DefsKey(rev) + "/" + def)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestFanoutAcrossReplicas: two everything-server processes on one Redis. A
// 2026-07-28 listen stream and a 2025-11-25 session's GET stream, both on
// replica A, hear of a resource update and list changes caused by tool calls
// on replica B, each exactly once: B's three changes arrive in order with
// nothing between them, and nothing after. Each notification validates
// against its revision's schema.
func TestFanoutAcrossReplicas(t *testing.T) {
	redisURL := testproc.Redis(t)
	bin := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/everything-server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	a, b := testproc.Start(t, bin, []string{"-store", redisURL}).URL, testproc.Start(t, bin, []string{"-store", redisURL}).URL
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "fanout-test", "version": "1"}}
	modern := func(method, name string) map[string]string {
		h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}

	// On A: a listen stream.
	listen := events(post(t, a, modern("subscriptions/listen", ""), map[string]any{"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
		"params": map[string]any{"_meta": meta, "notifications": map[string]any{"toolsListChanged": true, "promptsListChanged": true,
			"resourceSubscriptions": []string{"test://watched-resource"}}}}).Body)
	if m := next(t, listen, "acknowledgement"); !strings.Contains(string(m), "notifications/subscriptions/acknowledged") {
		t.Fatalf("first message %s, want the acknowledgement", m)
	}

	// On A: a 2025-11-25 session subscribed to the resource, its GET stream open.
	resp := post(t, a, nil, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "fanout-test", "version": "1"}}})
	sid := resp.Header.Get("Mcp-Session-Id")
	next(t, events(resp.Body), "initialize result")
	if sid == "" {
		t.Fatal("no Mcp-Session-Id")
	}
	legacy := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	post(t, a, legacy, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}).Body.Close()
	resp = post(t, a, legacy, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": map[string]any{"uri": "test://watched-resource"}})
	if m := next(t, events(resp.Body), "resources/subscribe"); !strings.Contains(string(m), `"result":{}`) {
		t.Fatalf("resources/subscribe: %s", m)
	}
	req, _ := http.NewRequest(http.MethodGet, a, nil)
	req.Header.Set("Accept", "text/event-stream")
	for k, v := range legacy {
		req.Header.Set(k, v)
	}
	get, err := http.DefaultClient.Do(req)
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, get)
	}
	session := events(get.Body)

	// On B: three changes, one call each.
	for i, tool := range []string{"test_update_watched_resource", "test_trigger_tool_change", "test_trigger_prompt_change"} {
		r := post(t, b, modern("tools/call", tool), map[string]any{"jsonrpc": "2.0", "id": i + 10, "method": "tools/call",
			"params": map[string]any{"name": tool, "_meta": meta}})
		if m := next(t, events(r.Body), tool); !strings.Contains(string(m), `"result"`) || strings.Contains(string(m), `"isError":true`) {
			t.Fatalf("%s on B: %s", tool, m)
		}
	}

	want := []struct{ method, def string }{
		{"notifications/resources/updated", "ResourceUpdatedNotification"},
		{"notifications/tools/list_changed", "ToolListChangedNotification"},
		{"notifications/prompts/list_changed", "PromptListChangedNotification"},
	}
	for _, stream := range []struct {
		name string
		rev  string
		ch   <-chan json.RawMessage
	}{{"listen stream", "2026-07-28", listen}, {"session GET stream", "2025-11-25", session}} {
		for _, w := range want {
			m := next(t, stream.ch, stream.name+": "+w.method)
			var n struct {
				Method string `json:"method"`
				Params struct {
					URI  string                     `json:"uri"`
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			if err := json.Unmarshal(m, &n); err != nil || n.Method != w.method {
				t.Fatalf("%s: got %s, want %s next (exactly once, in order)", stream.name, m, w.method)
			}
			if w.method == "notifications/resources/updated" && n.Params.URI != "test://watched-resource" {
				t.Errorf("%s: %s names another resource", stream.name, m)
			}
			if stream.rev == "2026-07-28" && string(n.Params.Meta["io.modelcontextprotocol/subscriptionId"]) != `"listen-1"` {
				t.Errorf("%s: %s is not tagged with the subscription id", stream.name, m)
			}
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(m))
			if err := notificationSchema(t, stream.rev, w.def).Validate(v); err != nil {
				t.Errorf("%s: %s: %v", stream.name, m, err)
			}
		}
		select {
		case m, ok := <-stream.ch:
			if ok {
				t.Errorf("%s: unexpected %s after the three changes", stream.name, m)
			}
		case <-time.After(300 * time.Millisecond):
		}
	}
	testfigures.Check(t, "../../docs/reliability.md", "Change notifications across processes",
		fmt.Sprintf("each stream gets the %d notifications once, in order, nothing after", len(want)))
}
