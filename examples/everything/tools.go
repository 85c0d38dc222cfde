package everything

import (
	"context"
	"errors"
	"fmt"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// SimpleText returns a fixed text. It takes no arguments.
//
//mcp:tool name=test_simple_text openworld=false destructive=false
func SimpleText(ctx context.Context) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.Text("This is a simple text response for testing.")}, nil
}

// ImageContent returns a 1×1 PNG image.
//
//mcp:tool name=test_image_content openworld=false destructive=false
func ImageContent(ctx context.Context) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.Image(onePixelPNG(), "image/png")}, nil
}

// AudioContent returns a short silent WAV clip.
//
//mcp:tool name=test_audio_content openworld=false destructive=false
func AudioContent(ctx context.Context) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.Audio(shortWAV(80), "audio/wav")}, nil
}

// EmbeddedResource returns a text resource embedded in the result.
//
//mcp:tool name=test_embedded_resource openworld=false destructive=false
func EmbeddedResource(ctx context.Context) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{
		URI:      "test://embedded-resource",
		MIMEType: "text/plain",
		Text:     "This is an embedded resource content.",
	})}, nil
}

// MultipleContentTypes returns text, an image and an embedded resource in one result.
//
//mcp:tool name=test_multiple_content_types openworld=false destructive=false
func MultipleContentTypes(ctx context.Context) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{
		mcpruntime.Text("Multiple content types test:"),
		mcpruntime.Image(onePixelPNG(), "image/png"),
		mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{
			URI:      "test://mixed-content-resource",
			MIMEType: "application/json",
			Text:     `{"test":"data","value":123}`,
		}),
	}, nil
}

// ErrorHandling always fails, to show how a tool error reaches the model as an
// isError result rather than a protocol error.
//
//mcp:tool name=test_error_handling openworld=false destructive=false
func ErrorHandling(ctx context.Context) error {
	// The conformance suite expects this exact text, capital letter included.
	//lint:ignore ST1005 the text is fixed by the conformance scenario.
	return errors.New("This tool intentionally returns an error for testing")
}

// ToolWithProgress reports progress 0, 50 and 100 of 100 before it answers.
//
//mcp:tool name=test_tool_with_progress openworld=false destructive=false
func ToolWithProgress(ctx context.Context) ([]mcpruntime.Content, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := mcpruntime.Progress(ctx, p, 100, fmt.Sprintf("step %d of 3", i+1)); err != nil {
			return nil, fmt.Errorf("report progress: %w", err)
		}
	}
	return []mcpruntime.Content{mcpruntime.Text("Progress test completed")}, nil
}

// ToolWithLogging sends three log messages while it runs.
//
//mcp:tool name=test_tool_with_logging openworld=false destructive=false
func ToolWithLogging(ctx context.Context) ([]mcpruntime.Content, error) {
	if err := logSteps(ctx, "Tool execution started", "Tool processing data", "Tool execution completed"); err != nil {
		return nil, err
	}
	return []mcpruntime.Content{mcpruntime.Text("Logging test completed")}, nil
}

// LoggingTool tries to log; the runtime drops the message unless the client
// asked for logs.
//
//mcp:tool name=test_logging_tool openworld=false destructive=false
func LoggingTool(ctx context.Context) ([]mcpruntime.Content, error) {
	if err := logSteps(ctx, "Logging tool ran"); err != nil {
		return nil, err
	}
	return []mcpruntime.Content{mcpruntime.Text("Logging tool completed")}, nil
}

// StreamingElicitation answers normally; it shows that a 2026-07-28 response
// stream carries only notifications before the result, never a request.
//
//mcp:tool name=test_streaming_elicitation openworld=false destructive=false
func StreamingElicitation(ctx context.Context) ([]mcpruntime.Content, error) {
	if err := mcpruntime.Progress(ctx, 1, 1, "working"); err != nil {
		return nil, fmt.Errorf("report progress: %w", err)
	}
	return []mcpruntime.Content{mcpruntime.Text("Streaming elicitation test completed")}, nil
}

// Reconnection closes the HTTP connection of its SSE stream mid-call, the
// 2025-11-25 polling pattern: the client reconnects with Last-Event-ID and
// receives the result on the resumed stream.
//
//mcp:tool name=test_reconnection openworld=false destructive=false
func Reconnection(ctx context.Context) ([]mcpruntime.Content, error) {
	mcpruntime.CloseSSEStream(ctx)
	if err := sleep(ctx, 100*time.Millisecond); err != nil {
		return nil, err
	}
	return []mcpruntime.Content{mcpruntime.Text("Reconnection test completed")}, nil
}

// logSteps sends each message as an info log, 50 ms apart.
func logSteps(ctx context.Context, msgs ...string) error {
	for i, m := range msgs {
		if i > 0 {
			if err := sleep(ctx, 50*time.Millisecond); err != nil {
				return err
			}
		}
		if err := mcpruntime.Log(ctx, "info", "everything", m); err != nil {
			return fmt.Errorf("log: %w", err)
		}
	}
	return nil
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
