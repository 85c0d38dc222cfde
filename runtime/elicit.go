package runtime

// elicit.go: elicitation: Elicit, ElicitURL, AddForm and their questions
// (internal/ask checks the client's answer, internal/toolschema the form's content).

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
)

// An Action is the user's response to an elicitation.
type Action string

// The actions a client may answer an elicitation with. A handler must handle all three.
const (
	// Accept: the user submitted the form (or, in URL mode, consented to open the URL).
	Accept Action = ask.Accept
	// Decline: the user explicitly refused.
	Decline Action = ask.Decline
	// Cancel: the user dismissed the request without choosing.
	Cancel Action = ask.Cancel
)

// An ElicitResult is the client's answer to an elicitation: the action and, for an
// accepted form, the content (already validated against the requested schema).
type ElicitResult struct {
	Action  Action          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

// AddForm registers the elicitation requestedSchema of the struct type T, which
// Elicit sends when a handler asks for a T. mcpgen generates the call in
// RegisterMCP for every type a package passes to Elicit; schema must be the
// restricted subset (a flat object of primitive and enum properties).
//
// It panics when schema is not valid JSON Schema, or is beyond the runtime's built-in
// validator without runtime/fullschema imported (see CheckSchema).
func AddForm[T any](s *Server, schema json.RawMessage) {
	if _, err := schemaMode(schema); err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddForm[%v]: %v", reflect.TypeFor[T](), err))
	}
	s.forms.Store(reflect.TypeFor[T](), schema)
}

// Elicit asks the user to fill in a form of type T under key (unique within the
// request, stable across rounds). With Accept it returns the decoded form; with
// Decline or Cancel the zero T. T's schema comes from AddForm (mcpgen generates it).
// See Ask for the errors, ErrInputRequired above all.
func Elicit[T any](ctx context.Context, key, message string) (T, Action, error) {
	var v T
	c := callFrom(ctx)
	if c == nil {
		return v, "", ErrNoInput
	}
	schema, ok := c.srv.forms.Load(reflect.TypeFor[T]())
	if !ok {
		return v, "", fmt.Errorf("%w: %v (run mcpgen on the package that calls Elicit)", ErrNoForm, reflect.TypeFor[T]())
	}
	var res ElicitResult
	if err := Ask(ctx, AskElicitation(key, message, schema.(json.RawMessage), &res)); err != nil {
		return v, "", err
	}
	if res.Action != Accept {
		return v, res.Action, nil
	}
	if err := json.Unmarshal(res.Content, &v); err != nil {
		return v, "", fmt.Errorf("decode answer %s: %w", key, err)
	}
	return v, Accept, nil
}

// ElicitURL asks the user to open url (URL mode: for credentials, payments and other
// sensitive steps that must not pass through the client). Accept means the user
// consented, not that the out-of-band step finished.
func ElicitURL(ctx context.Context, key, message, url string) (Action, error) {
	var res ElicitResult
	if err := Ask(ctx, AskElicitationURL(key, message, url, &res)); err != nil {
		return "", err
	}
	return res.Action, nil
}

// AskElicitation is a form-mode question: schema is the requestedSchema (the
// restricted subset: a flat object of primitive properties). An accepted answer's
// content is validated against it; one that does not match is asked again
// (2026-07-28) or fails with ErrInvalidAnswer (2025-11-25).
func AskElicitation(key, message string, schema json.RawMessage, dst *ElicitResult) Question {
	return Question{ask.Question{Key: key, Method: "elicitation/create", Need: clientcaps.ElicitForm,
		Params: func(bool) any {
			return ask.ElicitParams{Message: message, RequestedSchema: schema}
		},
		Accept: func(raw json.RawMessage) error {
			return acceptElicit(raw, true, func(content json.RawMessage) error { return validateContent(schema, content) }, dst)
		},
	}}
}

// AskElicitationURL is a URL-mode question. 2025-11-25 requests get a fresh
// elicitationId; 2026-07-28 ones have none (the round is correlated by requestState).
func AskElicitationURL(key, message, url string, dst *ElicitResult) Question {
	return Question{ask.Question{Key: key, Method: "elicitation/create", Need: clientcaps.ElicitURL,
		Params: func(modern bool) any { return ask.URLParams(message, url, modern) },
		Accept: func(raw json.RawMessage) error { return acceptElicit(raw, false, nil, dst) },
	}}
}

// acceptElicit decodes an answer into dst (internal/ask checks it).
func acceptElicit(raw json.RawMessage, form bool, validate func(json.RawMessage) error, dst *ElicitResult) error {
	action, content, err := ask.AcceptElicit(raw, form, validate)
	if err == nil {
		*dst = ElicitResult{Action: Action(action), Content: content}
	}
	return err
}

// validateContent checks form content against the requested schema
// (internal/toolschema).
func validateContent(schema, content json.RawMessage) error {
	return toolschema.CheckForm(schema, content, errMalformed, ErrInvalidAnswer)
}
