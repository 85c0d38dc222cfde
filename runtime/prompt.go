package runtime

// prompt.go: the prompt types generated code and handlers use: Prompt, PromptRequest,
// PromptResult, messages.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalidArgument reports a prompt argument the handler cannot use (e.g. a
// value outside an enum). A PromptHandler returns it, wrapped with a message
// naming the argument; the client gets -32602 with that message.
var ErrInvalidArgument = errors.New("invalid argument")

// A Prompt is a user-selectable prompt template (prompts/list) and the
// handler that renders it (prompts/get).
type Prompt struct {
	// Name is the prompt's unique name, e.g. "triage_incident".
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells the user what the prompt does.
	Description string
	// Arguments are the prompt's arguments, in order. The runtime rejects a
	// prompts/get that lacks a required one or names an unknown one.
	Arguments []PromptArgument
	// Scopes are the OAuth scopes a request needs, all of them (authorize.go).
	Scopes []string
	// Handler renders the prompt.
	Handler PromptHandler
}

// A PromptArgument describes one argument of a prompt; on the wire every
// argument value is a string.
type PromptArgument struct {
	Name        string
	Title       string
	Description string
	Required    bool
	// Values, when set, are the only values accepted (an enum); prompts/get
	// with another value is -32602, and they are the completion suggestions
	// unless Complete is set.
	Values []string
	// Complete suggests values for completion/complete; nil means Values, or
	// none.
	Complete Completer
}

// A PromptHandler renders a prompt. ctx is cancelled when the client cancels
// the request or the connection ends. An error wrapping ErrInvalidArgument
// becomes -32602; any other error -32603 carrying its text; a panic a generic
// -32603.
type PromptHandler func(ctx context.Context, req *PromptRequest) (*PromptResult, error)

// A PromptRequest is one prompts/get; Arguments holds only the arguments the
// client sent, already checked against the declared ones.
type PromptRequest struct {
	Name      string
	Arguments map[string]string
}

// A PromptResult is a rendered prompt.
type PromptResult struct {
	// Description is an optional description of the rendered prompt.
	Description string
	// Messages are the prompt's messages, in order.
	Messages []PromptMessage
	// Meta is the result's _meta.
	Meta map[string]any
}

// A Role is the speaker of a prompt message.
type Role string

// The roles of prompt messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// A PromptMessage is one message of a rendered prompt: text, an image or
// audio, an embedded resource or a resource link.
type PromptMessage struct {
	Role    Role
	Content Content
}

// UserMessage returns a message from the user.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: RoleUser, Content: c} }

// AssistantMessage returns a message from the assistant.
func AssistantMessage(c Content) PromptMessage {
	return PromptMessage{Role: RoleAssistant, Content: c}
}

// MarshalJSON encodes m as a PromptMessage; an empty role means "user".
func (m PromptMessage) MarshalJSON() ([]byte, error) {
	role := m.Role
	if role == "" {
		role = RoleUser
	}
	return json.Marshal(struct {
		Role    Role    `json:"role"`
		Content Content `json:"content"`
	}{role, m.Content})
}

// Messages returns a result holding msgs.
func Messages(msgs ...PromptMessage) *PromptResult { return &PromptResult{Messages: msgs} }

// Decode decodes the arguments into v, normally a pointer to the prompt's
// arguments struct (json tags name the arguments; every field is a string
// type), rejecting unknown arguments.
func (r *PromptRequest) Decode(v any) error {
	raw, err := json.Marshal(r.Arguments)
	if err != nil {
		return fmt.Errorf("%w: encode arguments of %s: %v", ErrInvalidArgument, r.Name, err)
	}
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: arguments of %s: %v", ErrInvalidArgument, r.Name, err)
	}
	return nil
}
