package runtime

// errorresult.go: how a ToolError reaches the client: an isError result with its
// message as text, the error object in _meta["dev.mcpgen/error"], and as
// structuredContent only for a tool without an outputSchema (the TypeScript SDK
// 1.x client checks any structuredContent against it; DESIGN.md, "Writes").

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
)

// MetaError is the _meta key of the error object of an isError result the
// runtime built from a ToolError.
const MetaError = "dev.mcpgen/error"

// ErrCodeUnavailable is the runtime's code for a dependency of its own (the
// idempotency store) that did not answer; retryable.
const ErrCodeUnavailable = "unavailable"

// toolErrorResult renders te as the isError result of a call of e.
func toolErrorResult(e *toolEntry, te *ToolError) *ToolResult {
	obj, err := json.Marshal(struct {
		Error *ToolError `json:"error"`
	}{te})
	if err != nil { // unencodable details: keep the code and the message
		obj, _ = json.Marshal(struct {
			Error *ToolError `json:"error"`
		}{&ToolError{Code: te.Code, Message: te.Message, Retryable: te.Retryable}})
	}
	res := &ToolResult{Content: []Content{Text(te.Message)}, IsError: true,
		Meta: map[string]any{MetaError: json.RawMessage(obj[len(`{"error":`) : len(obj)-1])}}
	if e.tool.OutputSchema == nil {
		res.StructuredContent = obj
	}
	res.toolErr = te
	return res
}

// handlerErrorResult turns a handler's error into its isError result: a
// ToolError (wrapped or not) keeps its code; any other error keeps its text.
func handlerErrorResult(e *toolEntry, err error) *ToolResult {
	var te *ToolError
	if errors.As(err, &te) && te != nil {
		return toolErrorResult(e, te)
	}
	return errorResult(err.Error())
}

// invalidArgumentsError is the ToolError of arguments that fail the input
// schema: the message explains each failure to the model; details list each
// JSON Pointer and rule (never the values: they may be secrets).
func (e *toolEntry) invalidArgumentsError(fails []schemaFailure) *ToolError {
	return &ToolError{Code: ErrCodeInvalidArguments, Message: toolschema.DescribeInvalid(e.tool.Name, fails, e.names()),
		Retryable: true, Details: map[string]any{"errors": toolschema.Rules(fails)}}
}

// panicError is the ToolError of a handler that panicked: a generic message,
// never the panic's text (it went to the log).
func panicError(e *toolEntry) *ToolError {
	return &ToolError{Code: ErrCodeInternal, Message: fmt.Sprintf("internal error in tool %s", e.tool.Name)}
}

// timeoutError is the ToolError of a call cut off at Options.CallTimeout. A
// readonly tool, or a write called with an idempotency key, may be retried.
func (s *Server) timeoutError(c *call, e *toolEntry) *ToolError {
	keyed := c.fx != nil && c.fx.idempotency != ""
	return &ToolError{Code: ErrCodeTimeout, Retryable: e.fx == nil || keyed,
		Message: fmt.Sprintf("tool %s did not finish within %v", e.tool.Name, s.opts.CallTimeout)}
}
