package everything

import (
	"context"
	"fmt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// SimplePrompt is a prompt without arguments.
//
//mcp:prompt test_simple_prompt title="Simple prompt"
func SimplePrompt(ctx context.Context) ([]mcpruntime.PromptMessage, error) {
	return []mcpruntime.PromptMessage{mcpruntime.UserMessage(mcpruntime.Text("This is a simple prompt for testing."))}, nil
}

// PromptArgs are the arguments of test_prompt_with_arguments.
type PromptArgs struct {
	// Arg1 is the first argument.
	Arg1 string `json:"arg1"`
	// Arg2 is the second argument.
	Arg2 string `json:"arg2"`
}

// PromptWithArguments repeats its two arguments.
//
//mcp:prompt test_prompt_with_arguments
//mcp:complete arg1 CompleteArg1
func PromptWithArguments(ctx context.Context, in PromptArgs) ([]mcpruntime.PromptMessage, error) {
	text := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", in.Arg1, in.Arg2)
	return []mcpruntime.PromptMessage{mcpruntime.UserMessage(mcpruntime.Text(text))}, nil
}

// CompleteArg1 suggests values for arg1 that start with what the user typed.
func CompleteArg1(ctx context.Context, value string) ([]string, error) {
	var out []string
	for _, v := range []string{"test", "testValue1", "testing", "value"} {
		if len(value) <= len(v) && v[:len(value)] == value {
			out = append(out, v)
		}
	}
	return out, nil
}

// EmbeddedResourceArgs are the arguments of test_prompt_with_embedded_resource.
type EmbeddedResourceArgs struct {
	// ResourceURI is the URI of the resource to embed.
	ResourceURI string `json:"resourceUri"`
}

// PromptWithEmbeddedResource embeds a resource in its messages.
//
//mcp:prompt test_prompt_with_embedded_resource
func PromptWithEmbeddedResource(ctx context.Context, in EmbeddedResourceArgs) ([]mcpruntime.PromptMessage, error) {
	return []mcpruntime.PromptMessage{
		mcpruntime.UserMessage(mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{
			URI:      in.ResourceURI,
			MIMEType: "text/plain",
			Text:     "Embedded resource content for testing.",
		})),
		mcpruntime.UserMessage(mcpruntime.Text("Please process the embedded resource above.")),
	}, nil
}

// PromptWithImage shows an image in its messages.
//
//mcp:prompt test_prompt_with_image
func PromptWithImage(ctx context.Context) ([]mcpruntime.PromptMessage, error) {
	return []mcpruntime.PromptMessage{
		mcpruntime.UserMessage(mcpruntime.Image(onePixelPNG(), "image/png")),
		mcpruntime.UserMessage(mcpruntime.Text("Please analyze the image above.")),
	}, nil
}
