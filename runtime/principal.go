package runtime

// principal.go: who is calling. The seam between the transports' authentication
// (runtime/auth for OAuth over HTTP; Options for stdio) and everything that decides
// by identity (scopes, idempotency ledgers, task ownership, audit records).

import (
	"context"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/ctxpair"
)

// A Principal is the authenticated caller of a request. It never holds the raw
// token: only what was verified from it.
type Principal struct {
	// Subject identifies the user or service (the token's "sub").
	Subject string
	// ClientID is the OAuth client the token was issued to, when known.
	ClientID string
	// Scopes are the granted scopes.
	Scopes []string
	// Expiry is when the credentials stop being valid; zero means never (stdio).
	Expiry time.Time
	// Claims are selected further claims (e.g. "tenant"); never the token itself.
	Claims map[string]any

	every bool // holds every scope (UnrestrictedPrincipal)
}

// UnrestrictedPrincipal returns a principal that holds every scope: the default
// of stdio, where the process runs with the user's own authority.
func UnrestrictedPrincipal(subject string) *Principal {
	return &Principal{Subject: subject, every: true}
}

// Unrestricted reports whether p holds every scope.
func (p *Principal) Unrestricted() bool { return p != nil && p.every }

// HasScope reports whether p was granted scope exactly (or holds every scope).
func (p *Principal) HasScope(scope string) bool {
	return p != nil && (p.every || slices.Contains(p.Scopes, scope))
}

type principalKey struct{}

// WithPrincipal returns a context that carries p. Transports and authentication
// middleware call it; handlers read it with PrincipalFrom.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// WithAuthorization returns a context that carries p and the scope challenge
// (WithPrincipal followed by WithScopeChallenge) in one context value: what an
// authentication middleware sets on every request.
func WithAuthorization(ctx context.Context, p *Principal, challenge func(required []string) string) context.Context {
	return &ctxpair.Context{Context: ctx, K1: principalKey{}, V1: p, K2: scopeChallengeKey{}, V2: challenge,
		Name: "WithAuthorization"} // one allocation for both values
}

// PrincipalFrom returns the caller of the request ctx belongs to, or nil when
// the request is unauthenticated.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
