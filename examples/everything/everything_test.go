package everything_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/everything"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// newServer serves the generated registration over Streamable HTTP.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "everything", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	everything.RegisterMCP(s)
	ts := httptest.NewServer(s.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	return ts
}

// callModern calls a tool as a 2026-07-28 client asking for progress and
// logs, and returns every message of the answer.
func callModern(t *testing.T, url, tool string) []map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/logLevel":           "debug",
			"progressToken":                              "tok",
		},
	}})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header = http.Header{
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {tool},
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: got status %d, want 200", tool, resp.StatusCode)
	}
	var msgs []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: bad message %q: %v", tool, line, err)
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		t.Fatalf("%s: no messages", tool)
	}
	return msgs
}

// TestTools calls every tool and checks the kinds of content, notifications
// and errors the conformance suite expects.
func TestTools(t *testing.T) {
	ts := newServer(t)
	tests := []struct {
		tool          string
		content       []string // content types, in order
		isError       bool
		notifications int // at least this many before the result
	}{
		{"test_simple_text", []string{"text"}, false, 0},
		{"test_image_content", []string{"image"}, false, 0},
		{"test_audio_content", []string{"audio"}, false, 0},
		{"test_embedded_resource", []string{"resource"}, false, 0},
		{"test_multiple_content_types", []string{"text", "image", "resource"}, false, 0},
		{"test_error_handling", []string{"text"}, true, 0},
		{"test_tool_with_progress", []string{"text"}, false, 3},
		{"test_tool_with_logging", []string{"text"}, false, 3},
		{"test_reconnection", []string{"text"}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			msgs := callModern(t, ts.URL, tt.tool)
			last := msgs[len(msgs)-1]
			result, ok := last["result"].(map[string]any)
			if !ok {
				t.Fatalf("got %v, want a result last", last)
			}
			if n := len(msgs) - 1; n < tt.notifications {
				t.Errorf("got %d notifications before the result, want at least %d", n, tt.notifications)
			}
			content, _ := result["content"].([]any)
			var types []string
			for _, c := range content {
				types = append(types, c.(map[string]any)["type"].(string))
			}
			if strings.Join(types, ",") != strings.Join(tt.content, ",") {
				t.Errorf("got content types %v, want %v", types, tt.content)
			}
			if isErr, _ := result["isError"].(bool); isErr != tt.isError {
				t.Errorf("got isError %v, want %v", isErr, tt.isError)
			}
		})
	}
}

// TestMedia checks that the image and audio payloads are what they claim.
func TestMedia(t *testing.T) {
	ts := newServer(t)
	for tool, magic := range map[string]string{"test_image_content": "\x89PNG", "test_audio_content": "RIFF"} {
		msgs := callModern(t, ts.URL, tool)
		c := msgs[len(msgs)-1]["result"].(map[string]any)["content"].([]any)[0].(map[string]any)
		data, ok := c["data"].(string)
		if !ok {
			t.Fatalf("%s: no data in %v", tool, c)
		}
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil || !strings.HasPrefix(string(raw), magic) {
			t.Errorf("%s: data does not start with %q (err %v)", tool, magic, err)
		}
	}
}
