package primitive

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MaxCompletionValues is the most values one completion/complete result carries.
const MaxCompletionValues = 100

// CompleteParams is the params of completion/complete.
type CompleteParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
}

// ParseComplete decodes completion/complete params; the error is the -32602 message.
func ParseComplete(params json.RawMessage) (*CompleteParams, error) {
	var p CompleteParams
	if err := json.Unmarshal(params, &p); err != nil || p.Argument == nil {
		return nil, errors.New("completion/complete: params need ref and argument {name, value}")
	}
	return &p, nil
}

// Target finds what p completes: the prompt argument (prompt and the argument's
// index) or the template variable (t); all empty with no problem for a plain
// resource, which has nothing to complete. A problem is the -32602 message.
func (s *Set[R, T, P]) Target(p *CompleteParams) (prompt *Prompt[P], arg int, t *Template[T], problem string) {
	name := p.Argument.Name
	switch p.Ref.Type {
	case "ref/prompt":
		e, ok := s.Prompts().Get(p.Ref.Name)
		if !ok {
			return nil, 0, nil, fmt.Sprintf("Unknown prompt: %s", p.Ref.Name)
		}
		for i, a := range e.Args {
			if a.Name == name {
				return e, i, nil, ""
			}
		}
		return nil, 0, nil, fmt.Sprintf("prompt %s has no argument %q", p.Ref.Name, name)
	case "ref/resource":
		if e, ok := s.Templates().Get(p.Ref.URI); ok {
			for _, v := range e.Vars {
				if v == name {
					return nil, 0, e, ""
				}
			}
			return nil, 0, nil, fmt.Sprintf("template %s has no variable %q", p.Ref.URI, name)
		}
		if _, ok := s.Resources().Get(p.Ref.URI); ok {
			return nil, 0, nil, ""
		}
		return nil, 0, nil, fmt.Sprintf("Unknown resource or template: %s", p.Ref.URI)
	}
	return nil, 0, nil, fmt.Sprintf("completion/complete: unknown ref type %q", p.Ref.Type)
}

// WithPrefix returns, in order, the values that start with typed
// (case-insensitively); never nil.
func WithPrefix(values []string, typed string) []string {
	prefix := strings.ToLower(typed)
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			out = append(out, v)
		}
	}
	return out
}

// EncodeCompletion encodes a CompleteResult body, capping the values at
// MaxCompletionValues (then hasMore, and total at least their number).
func EncodeCompletion(values []string, total int, more bool) []byte {
	if values == nil {
		values = []string{}
	}
	if len(values) > MaxCompletionValues {
		total = max(total, len(values))
		values, more = values[:MaxCompletionValues], true
	}
	type completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total,omitempty"`
		HasMore bool     `json:"hasMore,omitempty"`
	}
	return mustMarshal(struct {
		Completion completion `json:"completion"`
	}{completion{values, total, more}})
}
