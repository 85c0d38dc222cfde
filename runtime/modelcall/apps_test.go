package modelcall

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/apps"
)

// TestAppOnlyToolsAreNotTheModels checks that a tool only MCP Apps views may
// call (visibility ["app"]) is neither offered to a model nor run when a
// model names it, while a tool with a view stays the model's.
func TestAppOnlyToolsAreNotTheModels(t *testing.T) {
	var runs atomic.Int64
	s := runtime.NewServer(runtime.Implementation{Name: "m", Version: "1"}, &runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, tool := range []*runtime.Tool{
		{Name: "board", Description: "Shows the board.", Meta: apps.ToolMeta("ui://m/board")},
		{Name: "ack", Description: "Acknowledges.", Meta: apps.ToolMeta("ui://m/board", apps.VisibleToApp)},
	} {
		tool.InputSchema = json.RawMessage(`{"type":"object","additionalProperties":false}`)
		tool.Annotations = &runtime.ToolAnnotations{ReadOnlyHint: true}
		tool.Handler = func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
			runs.Add(1)
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("ok")}}, nil
		}
		s.AddTool(tool)
	}
	for name, list := range map[string]func(*runtime.Server) ([]FunctionTool, []Finding){
		"openai": OpenAITools, "anthropic": AnthropicTools, "gemini": GeminiTools,
	} {
		tools, _ := list(s)
		var names []string
		for _, ft := range tools {
			names = append(names, ft.Name)
		}
		if strings.Join(names, ",") != "board" {
			t.Errorf("%s function tools = %v, want [board]", name, names)
		}
	}
	d := NewDispatcher(s, nil)
	r := d.Call(context.Background(), Call{ID: "c1", Name: "ack", Arguments: `{}`})
	if !r.IsError || r.Error == nil || r.Error.Code != ErrCodeUnknownTool || !strings.Contains(r.Text(), "the tools are: board") {
		t.Errorf("model calls the app-only tool: %+v %q, want unknown_tool naming board only", r.Error, r.Text())
	}
	if r := d.Call(context.Background(), Call{ID: "c2", Name: "board", Arguments: `{}`}); r.IsError || r.Text() != "ok" {
		t.Errorf("model calls the tool with a view: %q, want ok", r.Text())
	}
	if runs.Load() != 1 {
		t.Errorf("handlers ran %d times, want 1 (board only)", runs.Load())
	}
}
