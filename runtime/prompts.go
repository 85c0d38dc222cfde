package runtime

// prompts.go: prompts/list and prompts/get, and registering prompts.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
)

// A promptEntry is a registered prompt with its pre-serialised listing.
type promptEntry struct {
	prompt *Prompt
	wire   []byte
}

// wirePrompt is the JSON shape of a Prompt in prompts/list.
type wirePrompt struct {
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Arguments   []wireArgument `json:"arguments,omitempty"`
}

// wireArgument is the JSON shape of a PromptArgument.
type wireArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// AddPrompt registers p. It panics on a programmer error: an empty or
// duplicate name, a nil handler, or two arguments with one name.
func (s *Server) AddPrompt(p *Prompt) {
	e, err := newPromptEntry(p)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddPrompt: %v", err))
	}
	s.register(kindPrompts, func(ps *primitives) bool {
		next, ok := ps.prompts.Load().With(p.Name, e)
		ps.prompts.Store(next)
		return ok
	}, fmt.Sprintf("AddPrompt: duplicate prompt name %q", p.Name))
}

// newPromptEntry checks p and pre-serialises its listing.
func newPromptEntry(p *Prompt) (*promptEntry, error) {
	switch {
	case p == nil || p.Name == "":
		return nil, errors.New("prompt without a name")
	case p.Handler == nil:
		return nil, fmt.Errorf("prompt %q has no handler", p.Name)
	}
	w := wirePrompt{Name: p.Name, Title: p.Title, Description: p.Description}
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if a.Name == "" || seen[a.Name] {
			return nil, fmt.Errorf("prompt %q: empty or duplicate argument name %q", p.Name, a.Name)
		}
		seen[a.Name] = true
		w.Arguments = append(w.Arguments, wireArgument{a.Name, a.Title, a.Description, a.Required})
	}
	return &promptEntry{prompt: p, wire: mustMarshal(w)}, nil
}

// PutPrompt registers p, replacing a prompt of the same name (AddPrompt
// panics on a duplicate instead); listeners are told the prompt list changed.
func (s *Server) PutPrompt(p *Prompt) {
	e, err := newPromptEntry(p)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: PutPrompt: %v", err))
	}
	s.register(kindPrompts, func(ps *primitives) bool {
		cur := ps.prompts.Load()
		if _, ok := cur.Get(p.Name); ok {
			cur, _ = cur.Without(p.Name) // replaced entries move to the end
		}
		next, _ := cur.With(p.Name, e)
		ps.prompts.Store(next)
		return true
	}, "")
}

// RemovePrompt unregisters the named prompt, reporting whether there was
// one; listeners are told the prompt list changed.
func (s *Server) RemovePrompt(name string) bool {
	return s.unregister(kindPrompts, func(ps *primitives) bool {
		next, ok := ps.prompts.Load().Without(name)
		ps.prompts.Store(next)
		return ok
	})
}

// listPrompts answers prompts/list: one page of prompts in registration order.
func (s *Server) listPrompts(_ context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, c, s.prims.prompts.Load(), "prompts", func(e *promptEntry) []byte { return e.wire })
}

// getPrompt answers prompts/get: check the arguments, render, encode.
func (s *Server) getPrompt(ctx context.Context, c *call) ([]byte, *rpcError) {
	name := c.msg.params.Name
	e, ok := s.prims.prompts.Load().Get(name)
	if !ok {
		return nil, errorf(CodeInvalidParams, "Unknown prompt: %s", name)
	}
	if rerr := s.authorizeStatic(ctx, e.prompt.Scopes); rerr != nil {
		return nil, rerr
	}
	args, rerr := promptArguments(e.prompt, c.msg.params.Arguments)
	if rerr != nil {
		return nil, rerr
	}
	r, rerr := s.openRound(c, name, c.msg.params.Arguments)
	if rerr != nil {
		return nil, rerr
	}
	res, err := s.invokePrompt(withRound(ctx, r), e.prompt, &PromptRequest{Name: name, Arguments: args})
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	switch {
	case errors.Is(err, ErrInvalidArgument):
		return nil, errorf(CodeInvalidParams, "prompt %s: %v", name, err)
	case errors.Is(err, errPanic):
		return nil, errorf(CodeInternalError, "internal error in prompt %s", name)
	case err != nil:
		return nil, errorf(CodeInternalError, "prompt %s: %v", name, err)
	case res == nil:
		s.logger.Error("prompt handler returned no result", "prompt", name)
		return nil, errorf(CodeInternalError, "internal error: prompt %s returned no result", name)
	}
	return s.encodePrompt(c, res)
}

// promptArguments decodes prompts/get arguments (an object of strings) and
// checks them against the declared ones: every required one present, no
// unknown ones.
func promptArguments(p *Prompt, raw json.RawMessage) (map[string]string, *rpcError) {
	args := map[string]string{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, errorf(CodeInvalidParams, "prompt %s: arguments must be an object of strings", p.Name)
		}
	}
	for k := range args {
		if !slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			return nil, errorf(CodeInvalidParams, "prompt %s: unknown argument %q%s", p.Name, k, argumentList(p))
		}
	}
	for _, a := range p.Arguments {
		v, ok := args[a.Name]
		switch {
		case a.Required && !ok:
			return nil, errorf(CodeInvalidParams, "prompt %s: missing required argument %q", p.Name, a.Name)
		case ok && a.Values != nil && !slices.Contains(a.Values, v):
			return nil, errorf(CodeInvalidParams, "prompt %s: argument %q must be one of %q, got %q", p.Name, a.Name, a.Values, v)
		}
	}
	return args, nil
}

// argumentList names a prompt's arguments for an error message.
func argumentList(p *Prompt) string {
	if len(p.Arguments) == 0 {
		return " (this prompt takes no arguments)"
	}
	names := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		names[i] = a.Name
	}
	return fmt.Sprintf(" (valid arguments: %v)", names)
}

// invokePrompt calls the handler, recovering a panic into errPanic.
func (s *Server) invokePrompt(ctx context.Context, p *Prompt, req *PromptRequest) (res *PromptResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("prompt handler panicked", "prompt", p.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, errPanic
		}
	}()
	return p.Handler(ctx, req)
}

// encodePrompt encodes a GetPromptResult.
func (s *Server) encodePrompt(c *call, res *PromptResult) ([]byte, *rpcError) {
	msgs := res.Messages
	if msgs == nil {
		msgs = []PromptMessage{}
	}
	body, err := json.Marshal(struct {
		Description string          `json:"description,omitempty"`
		Messages    []PromptMessage `json:"messages"`
	}{res.Description, msgs})
	if err != nil {
		s.logger.Error("prompt messages unusable", "prompt", c.msg.params.Name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: unencodable prompt messages")
	}
	return s.finishResult(c, body[:len(body)-1], res.Meta)
}
