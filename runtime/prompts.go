package runtime

// prompts.go: registering prompts, and answering prompts/list and prompts/get
// (the entries and the argument checks are internal/primitive's).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/primitive"
)

// A promptEntry is a registered prompt with its listing.
type promptEntry = primitive.Prompt[*Prompt]

// AddPrompt registers p. It panics on a programmer error: an empty or
// duplicate name, a nil handler, or two arguments with one name.
func (s *Server) AddPrompt(p *Prompt) {
	e, err := newPromptEntry(p)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddPrompt: %v", err))
	}
	s.register(kindPrompts, s.prims.AddPrompt(e), fmt.Sprintf("AddPrompt: duplicate prompt name %q", p.Name))
}

// newPromptEntry checks p and makes its entry.
func newPromptEntry(p *Prompt) (*promptEntry, error) {
	switch {
	case p == nil || p.Name == "":
		return nil, errors.New("prompt without a name")
	case p.Handler == nil:
		return nil, fmt.Errorf("prompt %q has no handler", p.Name)
	}
	args := make([]primitive.Arg, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = primitive.Arg{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required, Values: a.Values}
	}
	return primitive.NewPrompt(p.Name, p.Title, p.Description, args, p.Scopes, p)
}

// PutPrompt registers p, replacing a prompt of the same name (AddPrompt
// panics on a duplicate instead); listeners are told the prompt list changed.
func (s *Server) PutPrompt(p *Prompt) {
	e, err := newPromptEntry(p)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: PutPrompt: %v", err))
	}
	s.prims.PutPrompt(e)
	s.register(kindPrompts, true, "")
}

// RemovePrompt unregisters the named prompt, reporting whether there was
// one; listeners are told the prompt list changed.
func (s *Server) RemovePrompt(name string) bool {
	return s.unregister(kindPrompts, s.prims.RemovePrompt(name))
}

// listPrompts answers prompts/list: one page of prompts in registration order.
func (s *Server) listPrompts(ctx context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, ctx, c, s.prims.Prompts(), "prompts", func(e *promptEntry) ([]byte, []string) { return e.Wire, e.Scopes })
}

// getPrompt answers prompts/get: check the arguments, render, encode.
func (s *Server) getPrompt(ctx context.Context, c *call) ([]byte, *rpcError) {
	name := c.msg.params.Name
	e, ok := s.prims.Prompts().Get(name)
	if !ok {
		return nil, errorf(CodeInvalidParams, "Unknown prompt: %s", name)
	}
	if rerr := s.authorizeStatic(ctx, e.Scopes); rerr != nil {
		return nil, rerr
	}
	args, err := e.Arguments(c.msg.params.Arguments)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	r, rerr := s.openRound(c, name, c.msg.params.Arguments)
	if rerr != nil {
		return nil, rerr
	}
	rctx, req := withRound(ctx, r), &PromptRequest{Name: name, Arguments: args}
	h := e.Src.Handler
	if x := s.exts.Load(); x != nil && len(x.promptGet) > 0 {
		h = wrap(x.promptGet, h) // extension.go
	}
	res, err := recovered(s, "prompt handler panicked", "prompt", name, func() (*PromptResult, error) { return h(rctx, req) })
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	switch {
	case errors.Is(err, ErrInvalidArgument):
		return nil, errorf(CodeInvalidParams, "prompt %s: %v", name, err)
	case errors.Is(err, errPanic):
		return nil, errorf(CodeInternalError, "internal error in prompt %s", name)
	case errors.As(err, new(*RPCError)):
		return nil, extError(c, "prompt "+name, err)
	case err != nil:
		return nil, errorf(CodeInternalError, "prompt %s: %v", name, err)
	case res == nil:
		s.logger.Error("prompt handler returned no result", "prompt", name)
		return nil, errorf(CodeInternalError, "internal error: prompt %s returned no result", name)
	}
	return s.encodePrompt(c, res)
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
