package runtime

// completion.go: completion/complete: the Completer helpers and the call of the
// completer of a prompt argument or template variable (internal/primitive finds
// which and encodes the result).

import (
	"context"
	"errors"

	"github.com/mcpgen/mcpgen/runtime/internal/primitive"
)

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
		return &Completion{Values: primitive.WithPrefix(values, req.Value)}, nil
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

// complete answers completion/complete for a prompt argument or a template
// variable.
func (s *Server) complete(ctx context.Context, c *call) ([]byte, *rpcError) {
	p, err := primitive.ParseComplete(c.msg.Params)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	prompt, i, tpl, problem := s.prims.Target(p)
	var completer Completer
	switch arg := p.Argument.Name; {
	case problem != "":
		return nil, &rpcError{code: CodeInvalidParams, msg: problem}
	case prompt != nil:
		if rerr := s.authorizeStatic(ctx, prompt.Scopes); rerr != nil {
			return nil, rerr // the completer's values are the prompt's: its scopes guard them
		}
		a := prompt.Src.Arguments[i]
		completer = orValues(a.Complete, a.Values)
	case tpl != nil:
		if rerr := s.authorizeStatic(ctx, tpl.Scopes); rerr != nil {
			return nil, rerr
		}
		completer = orValues(tpl.Src.Complete[arg], tpl.Src.Values[arg])
	}
	comp := &Completion{Values: []string{}}
	if completer != nil {
		req := &CompleteRequest{Argument: p.Argument.Name, Value: p.Argument.Value, Arguments: p.Context.Arguments}
		comp, err = recovered(s, "completer panicked", "argument", req.Argument, func() (*Completion, error) { return completer(ctx, req) })
		if err == nil && comp == nil {
			err = errors.New("completer returned no result")
		}
		if err != nil {
			return nil, errorf(CodeInternalError, "complete %s: %v", p.Argument.Name, err)
		}
	}
	return s.modernResult(c, primitive.EncodeCompletion(comp.Values, comp.Total, comp.HasMore)), nil
}

// orValues returns f, or a completer over values when f is nil and values are
// set.
func orValues(f Completer, values []string) Completer {
	if f == nil && values != nil {
		return CompleteFrom(values...)
	}
	return f
}
