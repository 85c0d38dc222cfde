package anthropicsurface

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/mcpgen/mcpgen/runtime/modelcall"
)

// Loop sends params, runs the tool_use blocks of each answer through d (the
// calls of one turn concurrently) and sends their results back, until the
// model answers without tool calls or maxTurns requests were made. params
// should carry the tools (Tools). It returns the last message.
func Loop(ctx context.Context, client anthropic.Client, d *modelcall.Dispatcher, params anthropic.MessageNewParams, maxTurns int) (*anthropic.Message, error) {
	for turn := 0; ; turn++ {
		m, err := client.Messages.New(ctx, params)
		if err != nil {
			return nil, err
		}
		calls := Calls(m)
		if len(calls) == 0 {
			return m, nil
		}
		if turn+1 >= maxTurns {
			return m, fmt.Errorf("anthropicsurface: still calling tools after %d turns", maxTurns)
		}
		params.Messages = append(params.Messages, m.ToParam(), Results(d.CallAll(ctx, calls)))
	}
}
