package runtime

// completion.go: completion/complete: the Completer helpers and the routing of a
// request to the completer of a prompt argument or template variable.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxCompletionValues is the most values one completion/complete result may
// carry.
const maxCompletionValues = 100

// A Completer suggests values for one prompt argument or template variable
// (completion/complete). Suggestions should come most relevant first; the
// runtime sends at most 100 and sets hasMore beyond that.
type Completer func(ctx context.Context, req *CompleteRequest) (*Completion, error)

// A CompleteRequest asks for values of one argument.
type CompleteRequest struct {
	// Argument is the argument or variable name, Value what the user typed.
	Argument, Value string
	// Arguments are the values already chosen for the other arguments.
	Arguments map[string]string
}

// A Completion is a list of suggestions.
type Completion struct {
	Values []string
	// Total is the number of suggestions available, if known (0: unknown).
	Total int
	// HasMore reports suggestions beyond Values.
	HasMore bool
}

// CompleteFrom returns a Completer suggesting, in order, the values that start
// with what the user typed (case-insensitively): the completer generated for
// enum-typed arguments.
func CompleteFrom(values ...string) Completer {
	return func(_ context.Context, req *CompleteRequest) (*Completion, error) {
		prefix := strings.ToLower(req.Value)
		out := []string{}
		for _, v := range values {
			if strings.HasPrefix(strings.ToLower(v), prefix) {
				out = append(out, v)
			}
		}
		return &Completion{Values: out}, nil
	}
}

// CompleteFunc adapts a function from the typed value to suggestions into a
// Completer: the completer generated for //mcp:complete.
func CompleteFunc(f func(ctx context.Context, value string) ([]string, error)) Completer {
	return func(ctx context.Context, req *CompleteRequest) (*Completion, error) {
		values, err := f(ctx, req.Value)
		if err != nil {
			return nil, err
		}
		return &Completion{Values: values}, nil
	}
}

// completeParams is the params of completion/complete.
type completeParams struct {
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

// complete answers completion/complete for a prompt argument or a template
// variable.
func (s *Server) complete(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p completeParams
	if err := json.Unmarshal(c.msg.Params, &p); err != nil || p.Argument == nil {
		return nil, errorf(CodeInvalidParams, "completion/complete: params need ref and argument {name, value}")
	}
	completer, rerr := s.completerFor(&p)
	if rerr != nil {
		return nil, rerr
	}
	comp := &Completion{Values: []string{}}
	if completer != nil {
		var err error
		comp, err = s.invokeCompleter(ctx, completer, &CompleteRequest{Argument: p.Argument.Name,
			Value: p.Argument.Value, Arguments: p.Context.Arguments})
		if err != nil {
			return nil, errorf(CodeInternalError, "complete %s: %v", p.Argument.Name, err)
		}
	}
	return s.modernResult(c, encodeCompletion(comp)), nil
}

// completerFor finds the completer the reference and argument name; nil with
// no error means the argument exists but has no suggestions.
func (s *Server) completerFor(p *completeParams) (Completer, *rpcError) {
	arg := p.Argument.Name
	switch p.Ref.Type {
	case "ref/prompt":
		e, ok := s.prims.prompts.Load().Get(p.Ref.Name)
		if !ok {
			return nil, errorf(CodeInvalidParams, "Unknown prompt: %s", p.Ref.Name)
		}
		for _, a := range e.prompt.Arguments {
			if a.Name == arg {
				return orValues(a.Complete, a.Values), nil
			}
		}
		return nil, errorf(CodeInvalidParams, "prompt %s has no argument %q", p.Ref.Name, arg)
	case "ref/resource":
		if e, ok := s.prims.templates.Load().Get(p.Ref.URI); ok {
			for _, v := range e.parsed.Vars {
				if v == arg {
					return orValues(e.tpl.Complete[arg], e.tpl.Values[arg]), nil
				}
			}
			return nil, errorf(CodeInvalidParams, "template %s has no variable %q", p.Ref.URI, arg)
		}
		if _, ok := s.prims.resources.Load().Get(p.Ref.URI); ok {
			return nil, nil // a plain URI has nothing to complete
		}
		return nil, errorf(CodeInvalidParams, "Unknown resource or template: %s", p.Ref.URI)
	}
	return nil, errorf(CodeInvalidParams, "completion/complete: unknown ref type %q", p.Ref.Type)
}

// invokeCompleter calls a completer, recovering a panic.
func (s *Server) invokeCompleter(ctx context.Context, f Completer, req *CompleteRequest) (comp *Completion, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("completer panicked", "argument", req.Argument, "panic", fmt.Sprint(r))
			comp, err = nil, errPanic
		}
	}()
	comp, err = f(ctx, req)
	if err == nil && comp == nil {
		err = errors.New("completer returned no result")
	}
	return comp, err
}

// encodeCompletion encodes a CompleteResult body, capping the values at 100.
func encodeCompletion(comp *Completion) []byte {
	values, total, more := comp.Values, comp.Total, comp.HasMore
	if values == nil {
		values = []string{}
	}
	if len(values) > maxCompletionValues {
		total = max(total, len(values))
		values, more = values[:maxCompletionValues], true
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

// orValues returns f, or a completer over values when f is nil and values are
// set.
func orValues(f Completer, values []string) Completer {
	if f == nil && values != nil {
		return CompleteFrom(values...)
	}
	return f
}
