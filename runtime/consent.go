package runtime

// consent.go: Tool.Confirm's
// question with the arguments filled in (an elicitation in either era); decline,
// cancel or an unticked box end the call with a ToolError "not_confirmed", a
// client without elicitation gets -32021.

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
)

// confirmKey is the inputRequests key of the consent question.
const confirmKey = ask.ConfirmKey

// confirm asks the user question; nil when they accepted with the box ticked.
func confirm(ctx context.Context, question string) error {
	var res ElicitResult
	if err := Ask(ctx, AskElicitation(confirmKey, question, ask.ConfirmSchema, &res)); err != nil {
		return err // input_required, missing capability: the round answers
	}
	ok, answered := ask.Confirmed(string(res.Action), res.Content)
	if ok {
		return nil
	}
	return &ToolError{Code: ErrCodeNotConfirmed, Message: "not confirmed: the user answered " + answered + " to: " + question,
		Details: map[string]any{"action": string(res.Action)}}
}
