// Package anthropicsurface connects a runtime.Server's tools to the Anthropic
// Go SDK (github.com/anthropics/anthropic-sdk-go/v2): tool definitions for the
// Messages API, the model's tool_use blocks as modelcall.Call, and the
// dispatcher's results as the tool_result blocks of the next user message.
package anthropicsurface

import (
	"encoding/base64"
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/modelcall"
)

// Tools returns the server's tools as Anthropic tools (name, description,
// input_schema), byte for byte as modelcall.FunctionTool.Anthropic writes them.
// The findings are the tools left out.
func Tools(s *mcpruntime.Server) ([]anthropic.ToolUnionParam, []modelcall.Finding) {
	tools, findings := modelcall.AnthropicTools(s)
	out := make([]anthropic.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		tp := param.Override[anthropic.ToolParam](json.RawMessage(t.Anthropic()))
		out = append(out, anthropic.ToolUnionParam{OfTool: &tp})
	}
	return out, findings
}

// Calls returns the tool_use blocks of a message. Their input is already an
// object on the wire; the dispatcher still checks it.
func Calls(m *anthropic.Message) []modelcall.Call {
	var calls []modelcall.Call
	for _, b := range m.Content {
		if b.Type != "tool_use" {
			continue
		}
		tu := b.AsToolUse()
		calls = append(calls, modelcall.Call{ID: tu.ID, Name: tu.Name, Arguments: string(tu.Input)})
	}
	return calls
}

// Results returns the user message that answers a turn's tool calls: one
// tool_result block per result, in order, with is_error set on failures. Text
// blocks stay text, images stay images; other blocks become text.
func Results(results []*modelcall.Result) anthropic.MessageParam {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(results))
	for _, r := range results {
		tr := anthropic.ToolResultBlockParam{ToolUseID: r.ID}
		if r.IsError {
			tr.IsError = anthropic.Bool(true)
		}
		tr.Content = content(r)
		blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &tr})
	}
	return anthropic.NewUserMessage(blocks...)
}

// content converts a result's blocks.
func content(r *modelcall.Result) []anthropic.ToolResultBlockParamContentUnion {
	var out []anthropic.ToolResultBlockParamContentUnion
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
		case "image":
			img := anthropic.NewImageBlockBase64(c.MIMEType, base64.StdEncoding.EncodeToString(c.Data))
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
		default:
			one := &modelcall.Result{Content: []mcpruntime.Content{c}}
			out = append(out, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: one.Text()}})
		}
	}
	if len(out) == 0 {
		out = append(out, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: r.Text()}})
	}
	return out
}
