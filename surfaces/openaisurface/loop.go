package openaisurface

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/runtime/modelcall"
)

// ChatLoop sends params, runs the tool calls of each answer through d (the
// calls of one turn concurrently) and sends their results back, until the
// model answers without tool calls or maxTurns requests were made. params
// should carry the tools (ChatTools). It returns the last completion.
func ChatLoop(ctx context.Context, client openai.Client, d *modelcall.Dispatcher, params openai.ChatCompletionNewParams, maxTurns int) (*openai.ChatCompletion, error) {
	for turn := 0; ; turn++ {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, err
		}
		if len(c.Choices) == 0 {
			return c, fmt.Errorf("openaisurface: a completion without choices")
		}
		msg := c.Choices[0].Message
		calls := ChatCalls(msg)
		if len(calls) == 0 {
			return c, nil
		}
		if turn+1 >= maxTurns {
			return c, fmt.Errorf("openaisurface: still calling tools after %d turns", maxTurns)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, ChatResults(d.CallAll(ctx, calls))...)
	}
}

// ResponsesLoop is ChatLoop for the Responses API: each follow-up request
// names the previous response and carries the function_call_output items.
func ResponsesLoop(ctx context.Context, client openai.Client, d *modelcall.Dispatcher, params responses.ResponseNewParams, maxTurns int) (*responses.Response, error) {
	for turn := 0; ; turn++ {
		r, err := client.Responses.New(ctx, params)
		if err != nil {
			return nil, err
		}
		calls := ResponsesCalls(r)
		if len(calls) == 0 {
			return r, nil
		}
		if turn+1 >= maxTurns {
			return r, fmt.Errorf("openaisurface: still calling tools after %d turns", maxTurns)
		}
		params.PreviousResponseID = openai.String(r.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: ResponsesResults(d.CallAll(ctx, calls))}
	}
}
