package everything

import (
	"context"
	"encoding/json"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TriggerToolChange (re)registers the transient tool test_transient_tool, so
// clients listening for tool-list changes hear of one.
//
//mcp:tool name=test_trigger_tool_change openworld=false destructive=false
func TriggerToolChange(ctx context.Context) ([]mcpruntime.Content, error) {
	mcpruntime.ServerFrom(ctx).PutTool(&mcpruntime.Tool{
		Name:        "test_transient_tool",
		Description: "A tool that test_trigger_tool_change registers at run time.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("transient tool called")}}, nil
		},
	})
	return []mcpruntime.Content{mcpruntime.Text("Tool list changed")}, nil
}

// TriggerPromptChange (re)registers the transient prompt test_transient_prompt,
// so clients listening for prompt-list changes hear of one.
//
//mcp:tool name=test_trigger_prompt_change openworld=false destructive=false
func TriggerPromptChange(ctx context.Context) ([]mcpruntime.Content, error) {
	mcpruntime.ServerFrom(ctx).PutPrompt(&mcpruntime.Prompt{
		Name:        "test_transient_prompt",
		Description: "A prompt that test_trigger_prompt_change registers at run time.",
		Handler: func(context.Context, *mcpruntime.PromptRequest) (*mcpruntime.PromptResult, error) {
			return mcpruntime.Messages(mcpruntime.UserMessage(mcpruntime.Text("transient prompt"))), nil
		},
	})
	return []mcpruntime.Content{mcpruntime.Text("Prompt list changed")}, nil
}

// UpdateWatchedResource announces that test://watched-resource changed, to
// the clients subscribed to it.
//
//mcp:tool name=test_update_watched_resource openworld=false destructive=false
func UpdateWatchedResource(ctx context.Context) ([]mcpruntime.Content, error) {
	mcpruntime.ServerFrom(ctx).ResourceUpdated("test://watched-resource")
	return []mcpruntime.Content{mcpruntime.Text("test://watched-resource updated")}, nil
}
