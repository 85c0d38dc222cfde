// Package openaisurface connects a runtime.Server's tools to the OpenAI Go SDK
// (github.com/openai/openai-go/v3): tool definitions for Chat Completions and
// the Responses API, the model's tool calls as modelcall.Call, and the
// dispatcher's results as the messages or items the next request carries.
package openaisurface

import (
	"encoding/json"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/modelcall"
)

// ChatTools returns the server's tools as Chat Completions function tools,
// byte for byte as modelcall.FunctionTool.OpenAIFunction writes them ("strict":
// true where the schema passes the OpenAI strict profile). The findings are
// the tools left out.
func ChatTools(s *mcpruntime.Server) ([]openai.ChatCompletionToolUnionParam, []modelcall.Finding) {
	tools, findings := modelcall.OpenAITools(s)
	out := make([]openai.ChatCompletionToolUnionParam, 0, len(tools))
	for _, t := range tools {
		def := param.Override[shared.FunctionDefinitionParam](json.RawMessage(t.OpenAIFunction()))
		out = append(out, openai.ChatCompletionFunctionTool(def))
	}
	return out, findings
}

// ChatCalls returns the function tool calls of an assistant message.
func ChatCalls(m openai.ChatCompletionMessage) []modelcall.Call {
	var calls []modelcall.Call
	for _, tc := range m.ToolCalls {
		if tc.Type != "function" {
			continue
		}
		calls = append(calls, modelcall.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return calls
}

// ChatResults returns one tool message per result, in order: the result as
// text (Chat Completions tool messages carry text only; a failure's text says
// what went wrong and what to do).
func ChatResults(results []*modelcall.Result) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(results))
	for _, r := range results {
		out = append(out, openai.ToolMessage(text(r), r.ID))
	}
	return out
}

// ResponsesTools returns the server's tools as Responses API function tools,
// byte for byte as modelcall.FunctionTool.OpenAIResponses writes them.
func ResponsesTools(s *mcpruntime.Server) ([]responses.ToolUnionParam, []modelcall.Finding) {
	tools, findings := modelcall.OpenAITools(s)
	out := make([]responses.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		ft := param.Override[responses.FunctionToolParam](json.RawMessage(t.OpenAIResponses()))
		out = append(out, responses.ToolUnionParam{OfFunction: &ft})
	}
	return out, findings
}

// ResponsesCalls returns the function calls among a response's output items.
func ResponsesCalls(r *responses.Response) []modelcall.Call {
	var calls []modelcall.Call
	for _, item := range r.Output {
		if item.Type != "function_call" {
			continue
		}
		fc := item.AsFunctionCall()
		calls = append(calls, modelcall.Call{ID: fc.CallID, Name: fc.Name, Arguments: fc.Arguments})
	}
	return calls
}

// ResponsesResults returns one function_call_output item per result, in
// order, with the result as text.
func ResponsesResults(results []*modelcall.Result) []responses.ResponseInputItemUnionParam {
	out := make([]responses.ResponseInputItemUnionParam, 0, len(results))
	for _, r := range results {
		item := responses.ResponseInputItemParamOfFunctionCallOutput(text(r))
		item.OfFunctionCallOutput.CallID = param.NewOpt(r.ID)
		out = append(out, item)
	}
	return out
}

// text is a result as the text OpenAI takes: tool results have no error
// flag there, so a failure says so first.
func text(r *modelcall.Result) string {
	if r.IsError {
		return "Error: " + r.Text()
	}
	return r.Text()
}
