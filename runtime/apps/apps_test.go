package apps

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

func TestViewMeta(t *testing.T) {
	v := &View{URI: "ui://x/v", CSP: CSP{ConnectDomains: []string{"https://api.example.com"}},
		Permissions: []string{"camera"}, Domain: "v.example.com", PrefersBorder: BorderOff}
	b, err := json.Marshal(v.Meta())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"camera":{}},"domain":"v.example.com","prefersBorder":false}}`
	if string(b) != want {
		t.Errorf("Meta = %s, want %s", b, want)
	}
	if b, _ := json.Marshal((&View{URI: "ui://x/v"}).Meta()); string(b) != `{"ui":{}}` {
		t.Errorf("Meta of a bare view = %s, want {\"ui\":{}}", b)
	}
}

func TestAddViewRefusesOtherSchemes(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not a ui:// URI") {
			t.Errorf("AddView(https://...) recovered %v, want a panic naming ui://", r)
		}
	}()
	AddView(mcpruntime.NewServer(mcpruntime.Implementation{Name: "t"}, nil), &View{URI: "https://x/v"})
}

func TestRegisterOnce(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "t"}, nil)
	Register(s)
	Register(s) // a second package of the same server
	n := 0
	for _, x := range s.Extensions() {
		if x.ID == ExtensionID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d MCP Apps extensions after two Register calls, want 1", n)
	}
}

// TestPlainTool checks what a client without MCP Apps is shown, for every
// Go value a _meta.ui may hold.
func TestPlainTool(t *testing.T) {
	var cache sync.Map
	other := map[string]any{"com.example/x": 1}
	cases := []struct {
		name   string
		meta   map[string]any
		hidden bool
		left   map[string]any // the plain tool's Meta
	}{
		{"none", nil, false, nil},
		{"other meta only", other, false, other},
		{"view", ToolMeta("ui://x/v"), false, nil},
		{"app only", ToolMeta("ui://x/v", VisibleToApp), true, nil},
		{"model and app", ToolMeta("", VisibleToModel, VisibleToApp), false, nil},
		{"raw JSON app only", map[string]any{"ui": json.RawMessage(`{"visibility":["app"]}`)}, true, nil},
		{"map app only, other kept", map[string]any{"ui": map[string]any{"visibility": []any{"app"}}, "com.example/x": 1}, true, nil},
		{"map with view, other kept", map[string]any{"ui": map[string]any{"resourceUri": "ui://x/v"}, "com.example/x": 1}, false, other},
	}
	for _, c := range cases {
		tool := &mcpruntime.Tool{Name: c.name, Meta: c.meta}
		got := plainTool(&cache, tool)
		if c.hidden {
			if got != nil {
				t.Errorf("%s: shown, want hidden", c.name)
			}
			continue
		}
		if got == nil {
			t.Errorf("%s: hidden, want shown", c.name)
			continue
		}
		if a, b := mustJSON(t, got.Meta), mustJSON(t, c.left); a != b {
			t.Errorf("%s: plain Meta = %s, want %s", c.name, a, b)
		}
		if again := plainTool(&cache, tool); again != got {
			t.Errorf("%s: a second call returned another pointer", c.name)
		}
		if _, ok := c.meta["ui"]; ok && mustJSON(t, tool.Meta) == mustJSON(t, got.Meta) {
			t.Errorf("%s: the registered tool's Meta was changed or not copied", c.name)
		}
	}
}

func TestSupported(t *testing.T) {
	if Supported(context.Background()) {
		t.Error("Supported outside a request = true, want false")
	}
	for _, c := range []struct {
		rev  string
		caps string
		want bool
	}{
		{"2026-07-28", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`, true},
		{"2026-07-28", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/plain"]}}}`, false},
		{"2026-07-28", `{"extensions":{"io.modelcontextprotocol/ui":{}}}`, false},
		{"2026-07-28", `{}`, false},
		{"2025-06-18", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`, true},
		{"2025-03-26", `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`, false},
	} {
		info := &mcpruntime.RequestInfo{ProtocolVersion: c.rev, Modern: c.rev == "2026-07-28", ClientCapabilities: json.RawMessage(c.caps)}
		if got := supported(info); got != c.want {
			t.Errorf("supported(%s, %s) = %v, want %v", c.rev, c.caps, got, c.want)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
