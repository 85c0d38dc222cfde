package runtime

// toolerror.go: the structured error a tool call can end with.

// Stable codes of the runtime's own tool failures. Handlers may use their own codes
// (e.g. "record_not_found", "temporary_unavailable") as well.
const (
	ErrCodeInvalidArguments     = "invalid_arguments"      // retryable: the model can fix them
	ErrCodeNotConfirmed         = "not_confirmed"          // the user declined or cancelled
	ErrCodeForbidden            = "forbidden"              // the caller lacks a scope
	ErrCodeInternal             = "internal"               // a panic or a server bug; generic message
	ErrCodeTimeout              = "timeout"                // the call overran its deadline
	ErrCodeIdempotencyKeyReused = "idempotency_key_reused" // same key, other arguments
	ErrCodeInProgress           = "in_progress"            // same key, first call still running
	ErrCodeOutcomeUnknown       = "outcome_unknown"        // same key, first call's outcome lost
)

// A ToolError is a tool call's failure in a form a host can act on: a stable code,
// a message for the model, whether retrying the same call may succeed, and optional
// details. A handler returns one (wrapped or not); the runtime finds it with
// errors.As and answers with an isError result that carries it.
type ToolError struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Retryable bool           `json:"retryable"`
	Details   map[string]any `json:"details,omitempty"`
}

// Error returns the message, prefixed with the code.
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }
