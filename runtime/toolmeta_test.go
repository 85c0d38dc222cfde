package runtime

import (
	"context"
	"encoding/json"
	"testing"
)

// TestToolMetaListed checks that Tool.Meta is the Tool object's _meta in
// tools/list, in both eras, and that a tool without it has none.
func TestToolMetaListed(t *testing.T) {
	withMeta := simpleTool("viewed", func(context.Context) (*ToolResult, error) { return &ToolResult{}, nil })
	withMeta.Meta = json.RawMessage(`{"ui":{"resourceUri":"ui://x/board"}}`)
	plain := simpleTool("plain", func(context.Context) (*ToolResult, error) { return &ToolResult{}, nil })
	for _, modern := range []bool{true, false} {
		c := serveInMemory(t, newTestServer(t, nil, withMeta, plain))
		if !modern {
			initialize(t, c, "2025-11-25")
		}
		var page struct {
			Tools []struct {
				Name string          `json:"name"`
				Meta json.RawMessage `json:"_meta"`
			} `json:"tools"`
		}
		c.call(modern, "tools/list", nil).decodeResult(t, &page)
		got := map[string]string{}
		for _, tool := range page.Tools {
			got[tool.Name] = string(tool.Meta)
		}
		if want := `{"ui":{"resourceUri":"ui://x/board"}}`; got["viewed"] != want || got["plain"] != "" {
			t.Errorf("modern=%v: _meta by tool = %q, want viewed %s and plain none", modern, got, want)
		}
	}
}
