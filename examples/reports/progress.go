package reports

import (
	"context"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// mcpProgress reports progress: a task's status message, or notifications
// to a client that asked for them.
func mcpProgress(ctx context.Context, done, total int, msg string) error {
	return mcpruntime.Progress(ctx, float64(done), float64(total), msg)
}
