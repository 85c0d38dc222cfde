// Command agent runs a tool loop against the incidents tools
// (examples/incidents) with the OpenAI or the Anthropic Go SDK, calling the
// model directly: the tools' definitions come from the MCP server's registry
// and every tool call the model proposes goes through the same pipeline as an
// MCP tools/call (modelcall.Dispatcher).
//
//	OPENAI_API_KEY=... go run . -provider openai "Payments alerts are firing: triage."
//	ANTHROPIC_API_KEY=... go run . -provider anthropic "Payments alerts are firing: triage."
//	go run . -tools gemini     # print the definitions a provider gets, and exit
//
// OPENAI_BASE_URL and ANTHROPIC_BASE_URL point the SDKs elsewhere (a proxy, a
// recorded server). It is its own module, so that the provider SDKs stay out of
// the mcpgen module.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/examples/incidents"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/modelcall"
	"github.com/mcpgen/mcpgen/surfaces/anthropicsurface"
	"github.com/mcpgen/mcpgen/surfaces/openaisurface"
)

func main() {
	provider := flag.String("provider", "openai", "openai (Chat Completions), openai-responses or anthropic")
	model := flag.String("model", "", "model name (default: gpt-5.1 or claude-sonnet-4-5)")
	tools := flag.String("tools", "", "print the tool definitions for openai, openai-responses, anthropic or gemini, and exit")
	turns := flag.Int("turns", 8, "at most this many model requests")
	flag.Parse()

	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "dev"}, nil)
	desk, err := incidents.NewDesk()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
	incidents.RegisterMCP(s, desk)
	if *tools != "" {
		if err := printTools(s, *tools); err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			os.Exit(2)
		}
		return
	}
	prompt := "Payments alerts are firing: triage, and open a ticket only if the evidence meets the P1 criteria."
	if flag.NArg() > 0 {
		prompt = flag.Arg(0)
	}
	// The host's user: every call runs as this principal.
	ctx := mcpruntime.WithPrincipal(context.Background(), &mcpruntime.Principal{Subject: os.Getenv("USER")})
	d := modelcall.NewDispatcher(s, nil)
	answer, err := run(ctx, d, s, *provider, *model, prompt, *turns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		os.Exit(1)
	}
	fmt.Println(answer)
}

// run runs the loop with one provider and returns the model's last text.
func run(ctx context.Context, d *modelcall.Dispatcher, s *mcpruntime.Server, provider, model, prompt string, turns int) (string, error) {
	switch provider {
	case "openai":
		tools, _ := openaisurface.ChatTools(s)
		c, err := openaisurface.ChatLoop(ctx, openai.NewClient(), d, openai.ChatCompletionNewParams{
			Model:    or(model, "gpt-5.1"),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
			Tools:    tools,
		}, turns)
		if err != nil {
			return "", err
		}
		return c.Choices[0].Message.Content, nil
	case "openai-responses":
		tools, _ := openaisurface.ResponsesTools(s)
		r, err := openaisurface.ResponsesLoop(ctx, openai.NewClient(), d, responses.ResponseNewParams{
			Model: or(model, "gpt-5.1"),
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)},
			Tools: tools,
		}, turns)
		if err != nil {
			return "", err
		}
		return r.OutputText(), nil
	case "anthropic":
		tools, _ := anthropicsurface.Tools(s)
		m, err := anthropicsurface.Loop(ctx, anthropic.NewClient(), d, anthropic.MessageNewParams{
			Model:     or(model, "claude-sonnet-4-5"),
			MaxTokens: 2048,
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
			Tools:     tools,
		}, turns)
		if err != nil {
			return "", err
		}
		var text string
		for _, b := range m.Content {
			if b.Type == "text" {
				text += b.Text
			}
		}
		return text, nil
	}
	return "", fmt.Errorf("unknown provider %q", provider)
}

// printTools prints the definitions a provider gets, one JSON array.
func printTools(s *mcpruntime.Server, provider string) error {
	var defs []json.RawMessage
	var tools []modelcall.FunctionTool
	var findings []modelcall.Finding
	shape := modelcall.FunctionTool.OpenAIChat
	switch provider {
	case "openai":
		tools, findings = modelcall.OpenAITools(s)
	case "openai-responses":
		tools, findings = modelcall.OpenAITools(s)
		shape = modelcall.FunctionTool.OpenAIResponses
	case "anthropic":
		tools, findings = modelcall.AnthropicTools(s)
		shape = modelcall.FunctionTool.Anthropic
	case "gemini":
		tools, findings = modelcall.GeminiTools(s)
		shape = modelcall.FunctionTool.Gemini
	default:
		return fmt.Errorf("unknown provider %q", provider)
	}
	for _, f := range findings {
		fmt.Fprintln(os.Stderr, "left out:", f)
	}
	for _, t := range tools {
		defs = append(defs, shape(t))
		for _, d := range t.Dropped {
			fmt.Fprintf(os.Stderr, "%s: dropped %s\n", t.Name, d)
		}
	}
	b, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}

// or returns v, or def when v is empty.
func or[T ~string](v string, def T) T {
	if v == "" {
		return def
	}
	return T(v)
}
