package everything

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The tools of this file exercise 2026-07-28 multi round-trip requests
// (input_required results); they serve 2025-11-25 clients too, through
// server-to-client requests.

// NameForm is the form that asks for the user's name. mcpgen generates its
// requestedSchema because handlers pass it to mcpruntime.Elicit.
type NameForm struct {
	// Name is how the user wants to be called.
	Name string `json:"name"`
}

// ColorForm asks for a favourite colour.
type ColorForm struct {
	// Color is the user's favorite color.
	Color string `json:"color"`
}

// InputRequiredElicitation asks for the user's name, then greets them.
//
//mcp:tool name=test_input_required_result_elicitation openworld=false destructive=false
func InputRequiredElicitation(ctx context.Context) ([]mcpruntime.Content, error) {
	form, action, err := mcpruntime.Elicit[NameForm](ctx, "user_name", "What is your name?")
	if err != nil {
		return nil, err
	}
	if action != mcpruntime.Accept {
		return text("No name given (" + string(action) + ")."), nil
	}
	return text("Hello, " + form.Name + "!"), nil
}

// ContextForm asks what a prompt should be about.
type ContextForm struct {
	// Context is what the conversation should be about.
	Context string `json:"context"`
}

// InputRequiredPrompt asks the user for context before it renders: the same
// input_required rounds as tools, on prompts/get.
//
//mcp:prompt test_input_required_result_prompt
func InputRequiredPrompt(ctx context.Context) ([]mcpruntime.PromptMessage, error) {
	form, action, err := mcpruntime.Elicit[ContextForm](ctx, "user_context", "What should this conversation be about?")
	if err != nil {
		return nil, err
	}
	topic := form.Context
	if action != mcpruntime.Accept {
		topic = "anything"
	}
	return []mcpruntime.PromptMessage{mcpruntime.UserMessage(mcpruntime.Text("Let's talk about " + topic + "."))}, nil
}

// InputRequiredSampling asks the client's model a question.
//
//mcp:tool name=test_input_required_result_sampling openworld=false destructive=false
func InputRequiredSampling(ctx context.Context) ([]mcpruntime.Content, error) {
	res, err := mcpruntime.Sample(ctx, "capital", userPrompt("What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	return text("The model (" + res.Model + ") answered: " + res.Text()), nil
}

// InputRequiredListRoots asks the client for its roots and lists them.
//
//mcp:tool name=test_input_required_result_list_roots openworld=false destructive=false
func InputRequiredListRoots(ctx context.Context) ([]mcpruntime.Content, error) {
	roots, err := mcpruntime.ListRoots(ctx, "roots")
	if err != nil {
		return nil, err
	}
	return text("Roots: " + describeRoots(roots)), nil
}

// describeRoots lists roots as "name (uri)".
func describeRoots(roots []mcpruntime.Root) string {
	if len(roots) == 0 {
		return "none"
	}
	parts := make([]string, len(roots))
	for i, r := range roots {
		parts[i] = fmt.Sprintf("%s (%s)", r.Name, r.URI)
	}
	return strings.Join(parts, ", ")
}

// confirmSchema asks for a yes/no confirmation.
const confirmSchema = `{"type":"object","properties":{"ok":{"type":"boolean","description":"Confirm"}},"required":["ok"]}`

// InputRequiredRequestState asks for a confirmation; the answer comes back with
// the sealed requestState the runtime issued.
//
//mcp:tool name=test_input_required_result_request_state openworld=false destructive=false
func InputRequiredRequestState(ctx context.Context) ([]mcpruntime.Content, error) {
	ok, err := confirm(ctx, "confirm", "Please confirm")
	if err != nil {
		return nil, err
	}
	if !ok {
		return text("state-ok: not confirmed"), nil
	}
	return text("state-ok: confirmed"), nil
}

// confirm asks a yes/no question; anything but an accepted true is no.
func confirm(ctx context.Context, key, message string) (bool, error) {
	var res mcpruntime.ElicitResult
	if err := mcpruntime.Ask(ctx, mcpruntime.AskElicitation(key, message, json.RawMessage(confirmSchema), &res)); err != nil {
		return false, err
	}
	var form struct {
		OK bool `json:"ok"`
	}
	if res.Action == mcpruntime.Accept {
		if err := json.Unmarshal(res.Content, &form); err != nil {
			return false, fmt.Errorf("decode confirmation: %w", err)
		}
	}
	return form.OK, nil
}

// InputRequiredMultipleInputs asks for an elicitation, a completion and the
// roots in one round.
//
//mcp:tool name=test_input_required_result_multiple_inputs openworld=false destructive=false
func InputRequiredMultipleInputs(ctx context.Context) ([]mcpruntime.Content, error) {
	var (
		name   mcpruntime.ElicitResult
		answer mcpruntime.SamplingResult
		roots  []mcpruntime.Root
	)
	err := mcpruntime.Ask(ctx,
		mcpruntime.AskElicitation("user_name", "What is your name?", json.RawMessage(nameSchema), &name),
		mcpruntime.AskSampling("capital", userPrompt("What is the capital of France?", 100), &answer),
		mcpruntime.AskRoots("roots", &roots),
	)
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Got %s, a completion (%q) and roots %s", name.Action, answer.Text(), describeRoots(roots))), nil
}

// nameSchema is NameForm's schema written by hand, for questions asked
// together with others through mcpruntime.Ask.
const nameSchema = `{"type":"object","properties":{"name":{"type":"string","description":"Your name"}},"required":["name"]}`

// InputRequiredMultiRound asks two questions in two rounds: the second only
// once the first is answered.
//
//mcp:tool name=test_input_required_result_multi_round openworld=false destructive=false
func InputRequiredMultiRound(ctx context.Context) ([]mcpruntime.Content, error) {
	name, _, err := mcpruntime.Elicit[NameForm](ctx, "step1", "What is your name?")
	if err != nil {
		return nil, err
	}
	color, _, err := mcpruntime.Elicit[ColorForm](ctx, "step2", "What is your favorite color?")
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Both rounds done: %s likes %s", name.Name, color.Color)), nil
}

// InputRequiredTamperedState asks for a confirmation; a retry whose
// requestState was altered is rejected by the runtime before this runs again.
//
//mcp:tool name=test_input_required_result_tampered_state openworld=false destructive=false
func InputRequiredTamperedState(ctx context.Context) ([]mcpruntime.Content, error) {
	ok, err := confirm(ctx, "confirm", "Please confirm")
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Confirmed: %v", ok)), nil
}

// InputRequiredCapabilities asks only for what the client declared:
// elicitation, else sampling, else roots; with none it fails with -32021.
//
//mcp:tool name=test_input_required_result_capabilities openworld=false destructive=false
func InputRequiredCapabilities(ctx context.Context) ([]mcpruntime.Content, error) {
	switch {
	case mcpruntime.ClientSupports(ctx, "elicitation"):
		return InputRequiredElicitation(ctx)
	case mcpruntime.ClientSupports(ctx, "sampling"):
		return InputRequiredSampling(ctx)
	case mcpruntime.ClientSupports(ctx, "roots"):
		return InputRequiredListRoots(ctx)
	}
	return nil, mcpruntime.RequireCapability(ctx, "elicitation")
}

// MissingCapability needs the client's sampling capability: without it the
// request fails with -32021 and data.requiredCapabilities {"sampling":{}}.
//
//mcp:tool name=test_missing_capability openworld=false destructive=false
func MissingCapability(ctx context.Context) ([]mcpruntime.Content, error) {
	if err := mcpruntime.RequireCapability(ctx, "sampling"); err != nil {
		return nil, err
	}
	return text("The client can sample."), nil
}
