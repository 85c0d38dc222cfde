// Command testserver is a small MCP server used by the runtime's tests. Its
// register.go is written by hand in the shape mcpgen generates, so the tests
// exercise the runtime through the same API generated code uses.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// EchoInput is the input of Echo.
type EchoInput struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat,omitempty"`
}

// EchoOutput is the output of Echo.
type EchoOutput struct {
	Text string `json:"text"`
}

// Echo returns the text, repeated.
func Echo(_ context.Context, in EchoInput) (EchoOutput, error) {
	out := in.Text
	for i := 1; i < in.Repeat; i++ {
		out += in.Text
	}
	return EchoOutput{Text: out}, nil
}

// AddInput is the input of Add.
type AddInput struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Add returns a+b: a non-object output, wrapped for 2025-11-25 clients.
func Add(_ context.Context, in AddInput) (int, error) { return in.A + in.B, nil }

// SlowInput is the input of Slow.
type SlowInput struct {
	Steps   int `json:"steps"`
	DelayMs int `json:"delayMs"`
}

// Slow reports progress and log messages for each step, then returns.
func Slow(ctx context.Context, in SlowInput) (string, error) {
	for i := 1; i <= in.Steps; i++ {
		if err := mcpruntime.Progress(ctx, float64(i), float64(in.Steps), fmt.Sprintf("step %d", i)); err != nil {
			return "", err
		}
		if err := mcpruntime.Log(ctx, "info", "slow", fmt.Sprintf("step %d", i)); err != nil {
			return "", err
		}
		select {
		case <-time.After(time.Duration(in.DelayMs) * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return fmt.Sprintf("done after %d steps", in.Steps), nil
}

// Block reports one progress step and waits until it is cancelled.
func Block(ctx context.Context) error {
	if err := mcpruntime.Progress(ctx, 1, 0, "blocked"); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

// Fail always fails.
func Fail(context.Context) error { return errors.New("the tool failed on purpose") }

// Crash panics.
func Crash(context.Context) error { panic("secret panic detail") }

// Nothing returns a nil pointer, which the adapter reports as ErrNilResult.
func Nothing(context.Context) (*EchoOutput, error) { return nil, nil }

// BadOutput returns output that breaks its own output schema.
func BadOutput(context.Context) (EchoOutput, error) { return EchoOutput{Text: ""}, nil }

// Rich returns every kind of content block.
func Rich(context.Context) ([]mcpruntime.Content, error) {
	link := mcpruntime.ResourceLink("file:///notes/1.txt", "note 1", "text/plain")
	link.Description = "the first note"
	return []mcpruntime.Content{
		mcpruntime.Text("hello"),
		mcpruntime.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		mcpruntime.Audio([]byte("RIFF"), "audio/wav"),
		mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a"}),
		mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{URI: "file:///b.bin", Blob: []byte{0, 1, 2}}),
		link,
	}, nil
}

// WhoAmI reports what the runtime knows about the request.
func WhoAmI(ctx context.Context) (string, error) {
	info := mcpruntime.RequestFrom(ctx)
	return fmt.Sprintf("version=%s modern=%v client=%s", info.ProtocolVersion, info.Modern, info.ClientInfo.Name), nil
}
