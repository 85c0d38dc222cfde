package runtime

// authorize.go: who may call what: the scopes a tool (after argument
// validation, before consent and the handler), resource or prompt request needs
// against the caller's grants (internal/scope), and the refusal: an isError
// "forbidden", a -32003, or over HTTP with runtime/auth a 403 challenge
// (DESIGN.md, "Who may call what"). A request without a principal holds no scope.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/scope"
)

// CodeForbidden is the JSON-RPC error of a request refused for a missing scope
// where no tool result can carry the refusal (resources/read, prompts/get), and
// the body of an HTTP 403 insufficient_scope answer.
const CodeForbidden = -32003

// ScopeImplies is the default scope hierarchy: granted implies required when
// they are equal or required extends granted after a ':' ("incident:create"
// implies "incident:create:p1", not "incident:created").
func ScopeImplies(granted, required string) bool { return scope.Implies(granted, required) }

// A scopeChallengeKey is the context key of WithScopeChallenge's function.
type scopeChallengeKey struct{}

// WithScopeChallenge returns a context whose requests answer a missing scope at
// the transport level: HTTP 403 with the WWW-Authenticate value challenge(required)
// returns, required naming every scope the operation needs. runtime/auth sets it
// next to the principal.
func WithScopeChallenge(ctx context.Context, challenge func(required []string) string) context.Context {
	return context.WithValue(ctx, scopeChallengeKey{}, challenge)
}

// A scopeDenial is a refusal for missing scopes (internal/scope).
type scopeDenial = scope.Denial

// deniedTool is the refusal as a tool result's error.
func deniedTool(d *scopeDenial) *ToolError {
	return &ToolError{Code: ErrCodeForbidden, Message: d.Error(),
		Details: map[string]any{"requiredScopes": d.Required}}
}

// deniedRPC is the refusal as a JSON-RPC error, answered with 403 over HTTP.
func deniedRPC(d *scopeDenial) *rpcError {
	return &rpcError{code: CodeForbidden, msg: d.Error(), data: map[string]any{"requiredScopes": d.Required}, challenge: d.Challenge}
}

// RequireScope checks that the caller of the request ctx belongs to holds every
// scope (broader scopes implying narrower ones), for checks that depend on
// business state. It returns nil, or an error the handler returns as is: a
// *ToolError "forbidden" naming the scopes (over HTTP with runtime/auth, the
// request is answered with a 403 insufficient_scope challenge instead).
func RequireScope(ctx context.Context, scopes ...string) error {
	c, implies := callFrom(ctx), ScopeImplies
	if c != nil {
		implies = c.srv.implies()
	}
	if scopeCaller(PrincipalFrom(ctx)).Allows(scopes, implies) {
		return nil
	}
	d := denial(ctx, scopes)
	if c != nil && d.Challenge != "" {
		c.mu.Lock()
		c.denied = d
		c.mu.Unlock()
		return d
	}
	return deniedTool(d)
}

// denial builds the refusal of a request that lacks scopes.
func denial(ctx context.Context, required []string) *scopeDenial {
	d := &scopeDenial{Required: required}
	if fn, ok := ctx.Value(scopeChallengeKey{}).(func([]string) string); ok && fn != nil {
		d.Challenge = fn(required)
	}
	return d
}

// scopeCaller is p as internal/scope decides on it.
func scopeCaller(p *Principal) scope.Caller {
	if p == nil {
		return scope.Caller{}
	}
	return scope.Caller{Known: true, All: p.every, Scopes: p.Scopes}
}

// implies returns the server's scope hierarchy.
func (s *Server) implies() func(granted, required string) bool {
	if s.opts.ScopeImplies != nil {
		return s.opts.ScopeImplies
	}
	return ScopeImplies
}

// authorizeTool checks the caller's scopes for a call with validated args: nil
// when the call may go on.
func (s *Server) authorizeTool(ctx context.Context, e *toolEntry, args json.RawMessage) error {
	if len(e.scopes) == 0 {
		return nil
	}
	required, err := scope.Required(e.scopes, args)
	if err != nil {
		return &ToolError{Code: ErrCodeForbidden, Message: err.Error()}
	}
	if scopeCaller(PrincipalFrom(ctx)).Allows(required, s.implies()) {
		return nil
	}
	return denial(ctx, required)
}

// gateFailed turns a failure of the steps between validation and the handler
// (authorization, consent) into the call's outcome: a 403 challenge, an isError
// result, or a round outcome (input_required, missing capability) that closeRound
// answers.
func gateFailed(e *toolEntry, err error) (*ToolResult, *rpcError) {
	var d *scopeDenial
	if errors.As(err, &d) {
		if d.Challenge != "" {
			return nil, deniedRPC(d)
		}
		err = deniedTool(d)
	}
	return handlerErrorResult(e, err), nil // a *ToolError: forbidden, not_confirmed
}

// authorizeStatic checks the scopes of a resource or prompt request.
func (s *Server) authorizeStatic(ctx context.Context, scopes []string) *rpcError {
	if len(scopes) == 0 || scopeCaller(PrincipalFrom(ctx)).Allows(scopes, s.implies()) {
		return nil
	}
	return deniedRPC(denial(ctx, scopes))
}

// mayList reports whether the caller of ctx may use a tool with scopes ts: for
// each scope some value of its fields is granted (enum values from the schema;
// a free string field: a granted scope extending the literal prefix).
func (s *Server) mayList(ctx context.Context, e *toolEntry) bool {
	return scopeCaller(PrincipalFrom(ctx)).MayList(e.scopes, e.scopeAlts, s.implies())
}

// ScopesSupported lists every scope the registered tools, resources and prompts
// can require (enum fields expanded; a scope with a free string field is not
// listed: its values are open), sorted: for protected resource metadata's scopes_supported.
func (s *Server) ScopesSupported() []string {
	var all []string
	for _, e := range s.tools.Load().List() {
		all = append(all, e.scopeList...)
	}
	all = append(all, s.prims.Scopes()...)
	slices.Sort(all)
	return slices.Compact(all)
}

// principalID identifies a principal in sealed requestState, session, task and
// listen-stream bindings: subject and client, length-prefixed (ask.PrincipalID);
// "" for none.
func principalID(p *Principal) string {
	if p == nil {
		return ""
	}
	return ask.PrincipalID(p.Subject, p.ClientID)
}

// caller is the principal of the call.
func (c *call) caller() *Principal {
	if c.ctx.Context == nil {
		return nil
	}
	return PrincipalFrom(c.ctx.Context)
}

// deniedScope returns the refusal RequireScope recorded, or nil.
func (c *call) deniedScope() *scopeDenial {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.denied
}

// listCacheScope is the cacheScope member of tools/list: "private" when the list
// depends on the caller (Options.HideUnauthorized).
func listCacheScope(perCaller bool) string {
	if perCaller {
		return `,"cacheScope":"private"`
	}
	return `,"cacheScope":"public"`
}

// sessionOtherCaller refuses a 2025-11-25 session id presented by a caller
// other than the one that opened the session.
const sessionOtherCaller = "forbidden: this session belongs to another caller"

// boundTo reports whether r comes from the caller that opened the session hs.
func boundTo(hs *httpSession, r *http.Request) bool {
	return hs.Caller == principalID(PrincipalFrom(r.Context()))
}

// stdioContext gives stdio requests their principal: Options.StdioPrincipal, by
// default one holding every scope (unless ctx already carries one).
func (s *Server) stdioContext(ctx context.Context) context.Context {
	if PrincipalFrom(ctx) != nil {
		return ctx
	}
	p := s.opts.StdioPrincipal
	if p == nil {
		p = UnrestrictedPrincipal("stdio")
	}
	return WithPrincipal(ctx, p)
}
