package primitive

import (
	"encoding/json"
	"fmt"
	"slices"
)

// An Arg is a prompt argument as prompts/list shows it, with the values it
// accepts (nil: any).
type Arg struct {
	Name        string   `json:"name"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Values      []string `json:"-"`
}

// A Prompt is a registered prompt with its listing.
type Prompt[H any] struct {
	Name   string
	Args   []Arg
	Scopes []string
	Src    H // the runtime's Prompt
	Wire   []byte
}

// NewPrompt checks a prompt's arguments (unique non-empty names) and makes its
// entry.
func NewPrompt[H any](name, title, description string, args []Arg, scopes []string, src H) (*Prompt[H], error) {
	seen := map[string]bool{}
	for _, a := range args {
		if a.Name == "" || seen[a.Name] {
			return nil, fmt.Errorf("prompt %q: empty or duplicate argument name %q", name, a.Name)
		}
		seen[a.Name] = true
	}
	wire := mustMarshal(struct {
		Name        string `json:"name"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		Arguments   []Arg  `json:"arguments,omitempty"`
	}{name, title, description, args})
	return &Prompt[H]{Name: name, Args: args, Scopes: scopes, Src: src, Wire: wire}, nil
}

// Arguments decodes prompts/get arguments (an object of strings) and checks them
// against the declared ones: every required one present, no unknown ones, enum
// values respected. The error is the -32602 message.
func (p *Prompt[H]) Arguments(raw json.RawMessage) (map[string]string, error) {
	args := map[string]string{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("prompt %s: arguments must be an object of strings", p.Name)
		}
	}
	for k := range args {
		if !slices.ContainsFunc(p.Args, func(a Arg) bool { return a.Name == k }) {
			return nil, fmt.Errorf("prompt %s: unknown argument %q%s", p.Name, k, p.argumentList())
		}
	}
	for _, a := range p.Args {
		v, ok := args[a.Name]
		switch {
		case a.Required && !ok:
			return nil, fmt.Errorf("prompt %s: missing required argument %q", p.Name, a.Name)
		case ok && !only(a.Values, v):
			return nil, fmt.Errorf("prompt %s: argument %q must be one of %q, got %q", p.Name, a.Name, a.Values, v)
		}
	}
	return args, nil
}

// argumentList names the prompt's arguments for an error message.
func (p *Prompt[H]) argumentList() string {
	if len(p.Args) == 0 {
		return " (this prompt takes no arguments)"
	}
	names := make([]string, len(p.Args))
	for i, a := range p.Args {
		names[i] = a.Name
	}
	return fmt.Sprintf(" (valid arguments: %v)", names)
}
