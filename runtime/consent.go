package runtime

// consent.go: the consent gate of Tool.Confirm. Before the handler of such a
// tool runs, the runtime asks the user the tool's question with the call's
// arguments filled in (elicitation: an input_required round in 2026-07-28,
// elicitation/create in 2025-11-25). Consent and scope are separate: the scope
// check runs first, and a call runs only with both. Decline, cancel or an
// unticked box end the call with a ToolError "not_confirmed"; a client without
// the elicitation capability gets the spec's missing-capability error (-32021).

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// confirmKey is the inputRequests key of the consent question.
const confirmKey = "mcpgen.confirm"

// confirmSchema is the consent form: one checkbox, ticked by default.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","default":true}},"required":["confirm"]}`)

// gate runs the steps between argument validation and the handler: the scope
// check, then consent. nil means the handler may run.
func (s *Server) gate(ctx context.Context, e *toolEntry, args json.RawMessage) error {
	if err := s.authorizeTool(ctx, e, args); err != nil {
		return err
	}
	if e.tool.Confirm == "" {
		return nil
	}
	return confirm(ctx, fillConfirm(e.tool.Confirm, args))
}

// confirm asks the user question; nil when they accepted with the box ticked.
func confirm(ctx context.Context, question string) error {
	var res ElicitResult
	if err := Ask(ctx, AskElicitation(confirmKey, question, confirmSchema, &res)); err != nil {
		return err // input_required, missing capability: the round answers
	}
	if res.Action == Accept {
		var form struct {
			Confirm bool `json:"confirm"`
		}
		if json.Unmarshal(res.Content, &form) == nil && form.Confirm {
			return nil
		}
	}
	action := string(res.Action)
	if res.Action == Accept {
		action = "accept without confirming"
	}
	return &ToolError{Code: ErrCodeNotConfirmed, Message: "not confirmed: the user answered " + action + " to: " + question,
		Details: map[string]any{"action": string(res.Action)}}
}

// fillConfirm replaces each {field} of q with the call's value of that
// top-level argument: a string as is, anything else as JSON, absent as "".
// {{ and }} are literal braces.
func fillConfirm(q string, args json.RawMessage) string {
	values := map[string]string{}
	jsonwire.EachMember(args, func(key, val []byte) {
		if s, ok := rawString(val); ok {
			values[string(key)] = s
		} else {
			values[string(key)] = string(val)
		}
	})
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		switch {
		case strings.HasPrefix(q[i:], "{{"), strings.HasPrefix(q[i:], "}}"):
			sb.WriteByte(q[i])
			i++
		case q[i] == '{':
			end := strings.IndexByte(q[i:], '}')
			if end < 0 {
				sb.WriteString(q[i:])
				return sb.String()
			}
			sb.WriteString(values[q[i+1:i+end]])
			i += end
		default:
			sb.WriteByte(q[i])
		}
	}
	return sb.String()
}
