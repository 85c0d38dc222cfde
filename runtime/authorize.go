package runtime

// authorize.go: who may call what. A tool, resource or prompt lists the OAuth
// scopes a request needs (Tool.Scopes); a tool's scope may name a top-level string
// argument, "incident:create:{severity}", so what a call needs depends on its
// arguments. The check runs after argument validation and before the handler
// (and before any consent question): a refused call never reaches the handler.
//
// Where the caller comes from: runtime/auth puts the verified token's Principal in
// the request context over HTTP (and WithScopeChallenge, so that a refusal
// becomes the spec's 403 insufficient_scope challenge naming every required
// scope); stdio requests run as Options.StdioPrincipal (default: every scope).
// A request without a principal (HTTP without runtime/auth) holds no scope.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// CodeForbidden is the JSON-RPC error of a request refused for a missing scope
// where no tool result can carry the refusal (resources/read, prompts/get), and
// the body of an HTTP 403 insufficient_scope answer.
const CodeForbidden = -32003

// ScopeImplies is the default scope hierarchy: granted implies required when
// they are equal or required extends granted after a ':' ("incident:create"
// implies "incident:create:p1", not "incident:created").
func ScopeImplies(granted, required string) bool {
	return granted == required ||
		len(required) > len(granted) && required[len(granted)] == ':' && strings.HasPrefix(required, granted)
}

// A scopeChallengeKey is the context key of WithScopeChallenge's function.
type scopeChallengeKey struct{}

// WithScopeChallenge returns a context whose requests answer a missing scope at
// the transport level: HTTP 403 with the WWW-Authenticate value challenge(required)
// returns, required naming every scope the operation needs. runtime/auth sets it
// next to the principal.
func WithScopeChallenge(ctx context.Context, challenge func(required []string) string) context.Context {
	return context.WithValue(ctx, scopeChallengeKey{}, challenge)
}

// A scopeDenial is a refusal for missing scopes.
type scopeDenial struct {
	required  []string
	challenge string // WWW-Authenticate value, when the transport answers it
}

func (d *scopeDenial) Error() string {
	return "insufficient scope: this request needs " + strings.Join(d.required, " ")
}

// toolError is the refusal as a tool result's error.
func (d *scopeDenial) toolError() *ToolError {
	return &ToolError{Code: ErrCodeForbidden, Message: d.Error(),
		Details: map[string]any{"requiredScopes": d.required}}
}

// rpc is the refusal as a JSON-RPC error, answered with 403 over HTTP.
func (d *scopeDenial) rpc() *rpcError {
	e := &rpcError{code: CodeForbidden, msg: d.Error(), data: map[string]any{"requiredScopes": d.required}}
	e.challenge = d.challenge
	return e
}

// RequireScope checks that the caller of the request ctx belongs to holds every
// scope (broader scopes implying narrower ones), for checks that depend on
// business state. It returns nil, or an error the handler returns as is: a
// *ToolError "forbidden" naming the scopes (over HTTP with runtime/auth, the
// request is answered with a 403 insufficient_scope challenge instead).
func RequireScope(ctx context.Context, scopes ...string) error {
	c := callFrom(ctx)
	implies := ScopeImplies
	if c != nil && c.srv.opts.ScopeImplies != nil {
		implies = c.srv.opts.ScopeImplies
	}
	if grants(PrincipalFrom(ctx), scopes, implies) {
		return nil
	}
	d := denial(ctx, scopes)
	if c != nil && d.challenge != "" {
		c.mu.Lock()
		c.denied = d
		c.mu.Unlock()
		return d
	}
	return d.toolError()
}

// denial builds the refusal of a request that lacks scopes.
func denial(ctx context.Context, required []string) *scopeDenial {
	d := &scopeDenial{required: required}
	if fn, ok := ctx.Value(scopeChallengeKey{}).(func([]string) string); ok && fn != nil {
		d.challenge = fn(required)
	}
	return d
}

// grants reports whether p holds every required scope.
func grants(p *Principal, required []string, implies func(granted, required string) bool) bool {
	if p.Unrestricted() {
		return true
	}
	if p == nil {
		return len(required) == 0
	}
	for _, r := range required {
		if !holds(p.Scopes, r, implies) {
			return false
		}
	}
	return true
}

// holds reports whether some granted scope implies required.
func holds(granted []string, required string, implies func(granted, required string) bool) bool {
	for _, g := range granted {
		if implies(g, required) {
			return true
		}
	}
	return false
}

// implies returns the server's scope hierarchy.
func (s *Server) implies() func(granted, required string) bool {
	if s.opts.ScopeImplies != nil {
		return s.opts.ScopeImplies
	}
	return ScopeImplies
}

// A scopeTemplate is one compiled Tool.Scopes entry: literals and field names.
type scopeTemplate struct {
	raw    string
	parts  []string // literal, field, literal, field, ... (even: literal)
	lower  []bool   // per field: {field|lower}, the value in lower case
	fields int
}

// compileScopes checks a tool's scopes against its input schema: every {field}
// names a top-level string property that is required.
func compileScopes(scopes []string, inputSchema json.RawMessage) ([]scopeTemplate, error) {
	if len(scopes) == 0 {
		return nil, nil
	}
	var sch struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(inputSchema, &sch)
	var out []scopeTemplate
	for _, raw := range scopes {
		t := scopeTemplate{raw: raw}
		rest := raw
		for {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				t.parts = append(t.parts, rest)
				break
			}
			end := strings.IndexByte(rest[open:], '}')
			if end < 0 {
				return nil, fmt.Errorf("scope %q: unclosed {", raw)
			}
			field, mod, hasMod := strings.Cut(rest[open+1:open+end], "|")
			if hasMod && mod != "lower" {
				return nil, fmt.Errorf("scope %q: unknown modifier |%s (only |lower)", raw, mod)
			}
			if _, ok := sch.Properties[field]; !ok || !slices.Contains(sch.Required, field) {
				return nil, fmt.Errorf("scope %q: {%s} is not a required top-level input field", raw, field)
			}
			t.parts = append(t.parts, rest[:open], field)
			t.lower = append(t.lower, hasMod)
			t.fields++
			rest = rest[open+end+1:]
		}
		if strings.ContainsAny(raw, " \t\"\\") || raw == "" {
			return nil, fmt.Errorf("scope %q is not a scope token", raw)
		}
		out = append(out, t)
	}
	return out, nil
}

// requiredScopes returns the scopes a call with args needs; an argument that
// cannot be part of a scope (not a string, or a space or quote in it) is an error.
// The {field} values are read from args in place (one scan, no decoding unless a
// value holds escapes), and every scope is built into one buffer: a call
// allocates the result slice and one string.
func requiredScopes(ts []scopeTemplate, args json.RawMessage) ([]string, error) {
	var vbuf [4]fieldValue
	values := vbuf[:0] // the top-level string members the templates name
	scanned := false
	var bbuf [64]byte
	buf := bbuf[:0]
	var ends [4]int
	end := ends[:0] // where each scope ends in buf
	for _, t := range ts {
		if t.fields == 0 {
			buf = append(buf, t.raw...)
			end = append(end, len(buf))
			continue
		}
		if !scanned {
			scanned = true
			jsonwire.EachMember(args, func(key, val []byte) {
				name, ok := namedField(ts, key)
				if !ok {
					return
				}
				if v, ok := stringBytes(val); ok {
					values = append(values, fieldValue{name, v})
				}
			})
		}
		for i, p := range t.parts {
			if i%2 == 0 {
				buf = append(buf, p...)
				continue
			}
			v, ok := lookupField(values, p)
			if !ok || !scopeValue(v) {
				return nil, fmt.Errorf("argument %s cannot be part of scope %s", p, t.raw)
			}
			if t.lower[i/2] {
				for _, c := range v { // printable ASCII (scopeValue)
					if 'A' <= c && c <= 'Z' {
						c += 'a' - 'A'
					}
					buf = append(buf, c)
				}
			} else {
				buf = append(buf, v...)
			}
		}
		end = append(end, len(buf))
	}
	all := string(buf)
	out := make([]string, len(end))
	from := 0
	for i, e := range end {
		out[i] = all[from:e]
		from = e
	}
	return out, nil
}

// A fieldValue is a top-level string argument named in a scope template: the
// name is the template's, the value the argument's bytes (unescaped).
type fieldValue struct {
	name  string
	value []byte
}

// namedField returns the template field name equal to the member key, if any.
func namedField(ts []scopeTemplate, key []byte) (string, bool) {
	for _, t := range ts {
		for i := 1; i < len(t.parts); i += 2 {
			if t.parts[i] == string(key) {
				return t.parts[i], true
			}
		}
	}
	return "", false
}

// stringBytes returns the value of the JSON string raw: its inner bytes in place
// when it holds no escapes, else the decoded string's bytes.
func stringBytes(raw []byte) ([]byte, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && !hasEscape(raw[1:len(raw)-1]) {
		return raw[1 : len(raw)-1], true
	}
	s, ok := rawString(raw)
	return []byte(s), ok
}

// hasEscape reports whether the inside of a JSON string holds a backslash or quote.
func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' {
			return true
		}
	}
	return false
}

// lookupField returns the value of the named argument.
func lookupField(values []fieldValue, name string) ([]byte, bool) {
	for _, v := range values {
		if v.name == name {
			return v.value, true
		}
	}
	return nil, false
}

// scopeValue reports whether an argument value can be part of a scope: not
// empty, printable ASCII without quotes, backslashes or braces.
func scopeValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' || c == '{' || c == '}' {
			return false
		}
	}
	return true
}

// authorizeTool checks the caller's scopes for a call with validated args: nil
// when the call may go on.
func (s *Server) authorizeTool(ctx context.Context, e *toolEntry, args json.RawMessage) error {
	if len(e.scopes) == 0 {
		return nil
	}
	required, err := requiredScopes(e.scopes, args)
	if err != nil {
		return &ToolError{Code: ErrCodeForbidden, Message: err.Error()}
	}
	if grants(PrincipalFrom(ctx), required, s.implies()) {
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
		if d.challenge != "" {
			return nil, d.rpc()
		}
		err = d.toolError()
	}
	return handlerErrorResult(e, err), nil // a *ToolError: forbidden, not_confirmed
}

// authorizeStatic checks the scopes of a resource or prompt request.
func (s *Server) authorizeStatic(ctx context.Context, scopes []string) *rpcError {
	if len(scopes) == 0 || grants(PrincipalFrom(ctx), scopes, s.implies()) {
		return nil
	}
	return denial(ctx, scopes).rpc()
}

// mayList reports whether the caller of ctx may use a tool with scopes ts: for
// each scope some value of its fields is granted (enum values from the schema;
// a free string field: a granted scope extending the literal prefix).
func (s *Server) mayList(ctx context.Context, e *toolEntry) bool {
	p := PrincipalFrom(ctx)
	if len(e.scopes) == 0 || p.Unrestricted() {
		return true
	}
	if p == nil {
		return false
	}
	implies := s.implies()
	for _, t := range e.scopes {
		ok := false
		for _, cand := range e.scopeAlts[t.raw] {
			if grants(p, []string{cand}, implies) {
				ok = true
				break
			}
		}
		if !ok && t.fields > 0 && len(e.scopeAlts[t.raw]) == 0 {
			prefix := t.parts[0]
			ok = slices.ContainsFunc(p.Scopes, func(g string) bool {
				return strings.HasPrefix(g, prefix) || ScopeImplies(g, strings.TrimSuffix(prefix, ":"))
			})
		}
		if !ok {
			return false
		}
	}
	return true
}

// expandScopes lists, per template, every scope it can require when all its
// fields are enums in the input schema (nil for a template with a free string).
func expandScopes(ts []scopeTemplate, inputSchema json.RawMessage) (map[string][]string, []string) {
	var sch struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(inputSchema, &sch)
	alts := map[string][]string{}
	var all []string
	for _, t := range ts {
		cur := []string{""}
		for i, p := range t.parts {
			if i%2 == 0 {
				for j := range cur {
					cur[j] += p
				}
				continue
			}
			vals := sch.Properties[p].Enum
			if len(vals) == 0 {
				cur = nil
				break
			}
			var next []string
			for _, c := range cur {
				for _, v := range vals {
					if t.lower[i/2] {
						v = strings.ToLower(v)
					}
					next = append(next, c+v)
				}
			}
			cur = next
		}
		alts[t.raw] = cur
		all = append(all, cur...)
	}
	return alts, all
}

// ScopesSupported lists every scope the registered tools, resources and prompts
// can require (enum fields expanded; a scope with a free string field is not
// listed: its values are open), sorted: for protected resource metadata's scopes_supported.
func (s *Server) ScopesSupported() []string {
	var all []string
	for _, e := range s.tools.Load().list {
		all = append(all, e.scopeList...)
	}
	all = append(all, s.primitiveScopes()...)
	slices.Sort(all)
	return slices.Compact(all)
}

// primitiveScopes lists the scopes of the registered resources, templates and prompts.
func (s *Server) primitiveScopes() []string {
	var all []string
	if c := s.prims.resources.Load(); c != nil {
		for _, e := range c.All() {
			all = append(all, e.res.Scopes...)
		}
	}
	if c := s.prims.templates.Load(); c != nil {
		for _, e := range c.All() {
			all = append(all, e.tpl.Scopes...)
		}
	}
	if c := s.prims.prompts.Load(); c != nil {
		for _, e := range c.All() {
			all = append(all, e.prompt.Scopes...)
		}
	}
	return all
}

// principalID identifies a principal in sealed requestState and session
// bindings: subject and client; "" for none.
func principalID(p *Principal) string {
	if p == nil {
		return ""
	}
	return p.Subject + "\x00" + p.ClientID
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
