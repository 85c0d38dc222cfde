package runtime

// callhooks.go: CallHooks, how an extension that runs a handler its own way
// (the tasks extension: a handler running in the background) takes over what
// the handler's Ask, Progress and Log do.

import "context"

// CallHooks take over Ask, Progress and Log for the handler whose context
// carries them (WithCallHooks). Every field is optional; the runtime calls
// them on the handler's goroutine, and they must be safe for concurrent use
// when the handler is.
type CallHooks struct {
	// Ask, when set, answers Ask after the questions were checked against
	// the client's capabilities (a question the client cannot answer still
	// fails with ErrMissingCapability first). plain asks them as the
	// request's own round would (2026-07-28: ErrInputRequired while one is
	// unanswered).
	Ask func(ctx context.Context, qs []Question, plain func() error) error
	// Progress, when set, sees each progress report first; true means it
	// took the report and nothing goes to the client.
	Progress func(ctx context.Context, progress, total float64, message string) bool
	// Quiet, when set and true, drops the handler's log messages (Log).
	Quiet func(ctx context.Context) bool
}

type hooksKey struct{}

// WithCallHooks returns ctx with h, for the handler run under it.
func WithCallHooks(ctx context.Context, h *CallHooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// hooksFrom returns the hooks of ctx, or nil.
func hooksFrom(ctx context.Context) *CallHooks {
	h, _ := ctx.Value(hooksKey{}).(*CallHooks)
	return h
}
