package runtime

// sampling.go: sampling and roots: Sample, ListRoots and their questions.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/content"
)

// A SamplingRequest asks the client's model for a completion (sampling/createMessage).
// Sampling is a deprecated feature in 2026-07-28; prefer elicitation for new tools.
type SamplingRequest struct {
	Messages      []SamplingMessage `json:"messages"`
	SystemPrompt  string            `json:"systemPrompt,omitempty"`
	MaxTokens     int               `json:"maxTokens"`
	Temperature   *float64          `json:"temperature,omitempty"`
	StopSequences []string          `json:"stopSequences,omitempty"`
}

// A SamplingMessage is one message of the conversation to complete.
type SamplingMessage struct {
	// Role is "user" or "assistant".
	Role string `json:"role"`
	// Content is a text, image or audio block.
	Content Content `json:"content"`
}

// A SamplingResult is the client's completion.
type SamplingResult struct {
	Role       string `json:"role"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
	// Content is the raw content: one block or an array of blocks.
	Content json.RawMessage `json:"content"`
}

// Text returns the text of the completion's text blocks, joined by newlines.
func (r *SamplingResult) Text() string {
	return content.TextOf(r.Content)
}

// Sample asks the client's model to complete req under key. See Ask for the errors.
func Sample(ctx context.Context, key string, req SamplingRequest) (*SamplingResult, error) {
	res := &SamplingResult{}
	if err := Ask(ctx, AskSampling(key, req, res)); err != nil {
		return nil, err
	}
	return res, nil
}

// AskSampling is a sampling/createMessage question.
func AskSampling(key string, req SamplingRequest, dst *SamplingResult) Question {
	return Question{ask.Question{Key: key, Method: "sampling/createMessage", Need: clientcaps.Sampling,
		Params: func(bool) any { return req },
		Accept: func(raw json.RawMessage) error {
			var res SamplingResult
			if !isObject(raw) || json.Unmarshal(raw, &res) != nil || res.Role == "" || len(res.Content) == 0 {
				return fmt.Errorf("%w: not a CreateMessageResult", errMalformed)
			}
			*dst = res
			return nil
		},
	}}
}

// A Root is a directory or file the client lets the server work on.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRoots asks the client for its roots under key. See Ask for the errors.
func ListRoots(ctx context.Context, key string) ([]Root, error) {
	var roots []Root
	if err := Ask(ctx, AskRoots(key, &roots)); err != nil {
		return nil, err
	}
	return roots, nil
}

// AskRoots is a roots/list question.
func AskRoots(key string, dst *[]Root) Question {
	return Question{ask.Question{Key: key, Method: "roots/list", Need: clientcaps.Roots,
		Params: func(bool) any { return struct{}{} },
		Accept: func(raw json.RawMessage) error {
			var res struct {
				Roots []Root `json:"roots"`
			}
			if !isObject(raw) || json.Unmarshal(raw, &res) != nil || res.Roots == nil {
				return fmt.Errorf("%w: not a ListRootsResult", errMalformed)
			}
			*dst = res.Roots
			return nil
		},
	}}
}
