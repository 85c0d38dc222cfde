package everything

import (
	"context"
	"encoding/json"
	"fmt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The tools in this file ask the client for something while they run. Each is
// written once: a 2025-11-25 client gets a server-to-client request during the
// call, a 2026-07-28 client an input_required result and a retry (see
// mcpruntime.Ask for the rule a handler follows).

// SamplingIn is the input of test_sampling.
type SamplingIn struct {
	// Prompt is sent to the client's model.
	Prompt string `json:"prompt"`
}

// Sampling asks the client's model to answer a prompt and returns its reply.
//
//mcp:tool name=test_sampling openworld=false destructive=false
func Sampling(ctx context.Context, in SamplingIn) ([]mcpruntime.Content, error) {
	res, err := mcpruntime.Sample(ctx, "completion", userPrompt(in.Prompt, 100))
	if err != nil {
		return nil, err
	}
	return text("LLM response: " + res.Text()), nil
}

// ElicitationIn is the input of test_elicitation.
type ElicitationIn struct {
	// Message is shown to the user.
	Message string `json:"message"`
}

// userInfoSchema asks for a username and an email address.
const userInfoSchema = `{"type":"object","properties":{` +
	`"username":{"type":"string","description":"Your username"},` +
	`"email":{"type":"string","description":"Your email address"}},` +
	`"required":["username","email"]}`

// Elicitation asks the user for a username and an email address.
//
//mcp:tool name=test_elicitation openworld=false destructive=false
func Elicitation(ctx context.Context, in ElicitationIn) ([]mcpruntime.Content, error) {
	return elicitSummary(ctx, "user_info", in.Message, userInfoSchema)
}

// defaultsSchema has a default for every primitive kind (SEP-1034).
const defaultsSchema = `{"type":"object","properties":{` +
	`"name":{"type":"string","default":"John Doe"},` +
	`"age":{"type":"integer","default":30},` +
	`"score":{"type":"number","default":95.5},` +
	`"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},` +
	`"verified":{"type":"boolean","default":true}}}`

// ElicitationDefaults asks for a form whose every field has a default value.
//
//mcp:tool name=test_elicitation_sep1034_defaults openworld=false destructive=false
func ElicitationDefaults(ctx context.Context) ([]mcpruntime.Content, error) {
	return elicitSummary(ctx, "defaults", "Please review your profile", defaultsSchema)
}

// enumsSchema has every enum style of SEP-1330.
const enumsSchema = `{"type":"object","properties":{` +
	`"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},` +
	`"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
	`"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
	`"untitledMulti":{"type":"array","items":{"type":"string","enum":["option1","option2","option3"]}},` +
	`"titledMulti":{"type":"array","items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`

// ElicitationEnums asks for a form with single- and multi-select enums, titled
// and untitled.
//
//mcp:tool name=test_elicitation_sep1330_enums openworld=false destructive=false
func ElicitationEnums(ctx context.Context) ([]mcpruntime.Content, error) {
	return elicitSummary(ctx, "enums", "Please pick your options", enumsSchema)
}

// elicitSummary asks one form question and reports the user's action and content.
func elicitSummary(ctx context.Context, key, message, schema string) ([]mcpruntime.Content, error) {
	var res mcpruntime.ElicitResult
	if err := mcpruntime.Ask(ctx, mcpruntime.AskElicitation(key, message, json.RawMessage(schema), &res)); err != nil {
		return nil, err
	}
	if res.Action != mcpruntime.Accept {
		return text(fmt.Sprintf("User response: action=%s", res.Action)), nil
	}
	return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, res.Content)), nil
}

// userPrompt is a sampling request with one user text message.
func userPrompt(prompt string, maxTokens int) mcpruntime.SamplingRequest {
	return mcpruntime.SamplingRequest{
		Messages:  []mcpruntime.SamplingMessage{{Role: "user", Content: mcpruntime.Text(prompt)}},
		MaxTokens: maxTokens,
	}
}

// text is a result of one text block.
func text(s string) []mcpruntime.Content {
	return []mcpruntime.Content{mcpruntime.Text(s)}
}
