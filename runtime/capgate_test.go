package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The notes server registers no resources, templates or prompts, so it declares
// none of resources, prompts and completions; their methods must then be
// "method not found" in both eras (DIGEST A14), not empty lists.
func TestNotesUndeclaredCapabilities(t *testing.T) {
	gated := []struct {
		method string
		params map[string]any
		modern bool // the method exists in the 2026-07-28 era
	}{
		{"resources/list", nil, true},
		{"resources/templates/list", nil, true},
		{"resources/read", map[string]any{"uri": "file:///x"}, true},
		{"prompts/list", nil, true},
		{"prompts/get", map[string]any{"name": "p"}, true},
		{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "p"}, "argument": map[string]any{"name": "a", "value": ""}}, true},
		{"resources/subscribe", map[string]any{"uri": "file:///x"}, false},
		{"resources/unsubscribe", map[string]any{"uri": "file:///x"}, false},
	}
	for _, modern := range []bool{true, false} {
		p := startProcess(t, notesBin)
		var caps struct {
			Capabilities map[string]any `json:"capabilities"`
		}
		if modern {
			p.call(true, "server/discover", nil).decodeResult(t, &caps)
		} else {
			initialize(t, p.testClient, "2025-11-25").decodeResult(t, &caps)
		}
		for _, k := range []string{"resources", "prompts", "completions"} {
			if _, ok := caps.Capabilities[k]; ok {
				t.Errorf("modern=%v: capabilities declare %s: %v", modern, k, caps.Capabilities)
			}
		}
		for _, g := range gated {
			if modern && !g.modern {
				continue
			}
			m := p.call(modern, g.method, g.params)
			if m.errorCode() != CodeMethodNotFound {
				t.Errorf("modern=%v %s: got %s, want error %d", modern, g.method, m.raw, CodeMethodNotFound)
			} else if !strings.Contains(m.Error.Message, "capability") {
				t.Errorf("modern=%v %s: message %q does not name the missing capability", modern, g.method, m.Error.Message)
			}
		}
		if m := p.call(modern, "tools/list", nil); m.Error != nil {
			t.Errorf("modern=%v tools/list: %s", modern, m.raw)
		}
	}
}

// TestCapabilityNames checks that ClientSupports and RequireCapability read a
// capability name the same way: exactly the documented names.
func TestCapabilityNames(t *testing.T) {
	var got string
	s := newTestServer(t, nil, simpleTool("caps", func(ctx context.Context) (*ToolResult, error) {
		got = ""
		for _, what := range []string{"sampling", " sampling", "roots", "Sampling", "elicitation"} {
			err := RequireCapability(ctx, what)
			got += fmt.Sprintf("%q:%v/%v ", what, ClientSupports(ctx, what), err == nil)
		}
		return &ToolResult{Content: []Content{Text("ok")}}, nil
	}))
	meta := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}`
	r := s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"caps","arguments":{}`+meta+`}}`), nil, nil)
	want := `"sampling":true/true " sampling":false/false "roots":false/false "Sampling":false/false "elicitation":false/false `
	if got != want {
		t.Errorf("got  %s\nwant %s\n(reply %s)", got, want, r.Body)
	}
}
