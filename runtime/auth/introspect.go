package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// maxIntroCache bounds the cached introspection results.
const maxIntroCache = 4096

// An introspector verifies opaque tokens with RFC 7662 and caches the answers
// by the token's SHA-256 (the token itself is not kept).
type introspector struct {
	rs *ResourceServer

	mu    sync.Mutex
	cache map[[32]byte]introEntry
	calls int // introspection requests sent (tests)
}

type introEntry struct {
	p     *mcpruntime.Principal // nil: inactive
	until time.Time
}

func newIntrospector(rs *ResourceServer) *introspector {
	return &introspector{rs: rs, cache: map[[32]byte]introEntry{}}
}

// introResponse is the RFC 7662 response.
type introResponse struct {
	Active    bool             `json:"active"`
	Scope     string           `json:"scope"`
	ClientID  string           `json:"client_id"`
	Subject   string           `json:"sub"`
	Issuer    string           `json:"iss"`
	Audience  jwt.Audience     `json:"aud"`
	Expiry    *jwt.NumericDate `json:"exp"`
	NotBefore *jwt.NumericDate `json:"nbf"`
	TokenType string           `json:"token_type"`
	TokenUse  string           `json:"token_use"` // Ory Hydra: access_token or refresh_token
	Typ       string           `json:"typ"`       // Keycloak: Bearer, Refresh, ID, ...
}

// verify introspects token (or reuses a recent answer).
func (in *introspector) verify(ctx context.Context, token string) (*mcpruntime.Principal, error) {
	rs := in.rs
	key := sha256.Sum256([]byte(token))
	now := rs.cfg.Now()
	in.mu.Lock()
	e, ok := in.cache[key]
	in.mu.Unlock()
	if !ok || !now.Before(e.until) {
		var err error
		if e, err = in.ask(ctx, token, now); err != nil {
			return nil, err
		}
	}
	if e.p == nil {
		return nil, unauthorized("invalid_token", "the access token is not active")
	}
	if !e.p.Expiry.IsZero() && now.After(e.p.Expiry.Add(rs.cfg.Leeway)) {
		return nil, unauthorized("invalid_token", "the access token expired")
	}
	return e.p, nil
}

// ask sends the introspection request and caches the answer.
func (in *introspector) ask(ctx context.Context, token string, now time.Time) (introEntry, error) {
	rs := in.rs
	endpoint := rs.cfg.IntrospectionURL
	if endpoint == "" {
		_, discovered, err := rs.issuer.get(ctx)
		if err != nil {
			return introEntry{}, err
		}
		if discovered == "" {
			return introEntry{}, unauthorized("invalid_token", "the access token is not a JWT and no introspection endpoint is configured")
		}
		endpoint = discovered
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return introEntry{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if rs.cfg.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(rs.cfg.ClientID), url.QueryEscape(rs.cfg.ClientSecret))
	}
	in.mu.Lock()
	in.calls++
	in.mu.Unlock()
	resp, err := rs.cfg.HTTPClient.Do(req)
	if err != nil {
		return introEntry{}, fmt.Errorf("auth: introspection: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return introEntry{}, fmt.Errorf("auth: introspection: %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes))
	if err != nil {
		return introEntry{}, fmt.Errorf("auth: introspection: %w", err)
	}
	var r introResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return introEntry{}, fmt.Errorf("auth: introspection: %w", err)
	}
	e := introEntry{until: now.Add(rs.cfg.IntrospectionCacheTTL)}
	if r.Active {
		p, err := rs.introPrincipal(&r, now)
		if err != nil {
			return introEntry{}, err
		}
		e.p = p
		if !p.Expiry.IsZero() && p.Expiry.Before(e.until) {
			e.until = p.Expiry
		}
	}
	if rs.cfg.IntrospectionCacheTTL > 0 {
		in.mu.Lock()
		if len(in.cache) >= maxIntroCache {
			for k, old := range in.cache {
				if !now.Before(old.until) || len(in.cache) >= maxIntroCache {
					delete(in.cache, k)
				}
			}
		}
		in.cache[sha256.Sum256([]byte(token))] = e
		in.mu.Unlock()
	}
	return e, nil
}

// isAccessToken reports whether an active introspection answer describes a
// bearer access token, from the fields authorization servers use for it:
// token_use (Ory Hydra: "access_token", "refresh_token"), token_type (RFC
// 7662: the RFC 6749 type, "Bearer"; some servers use the RFC 7009 hints
// "access_token"/"refresh_token"; "DPoP" and other proof-of-possession types
// are refused, their proof is not checked here) and typ (Keycloak: "Bearer",
// "Refresh", "ID", "Offline"). Each that is present must agree; an answer
// with none of them is taken as an access token (the request asked with
// token_type_hint=access_token).
func isAccessToken(r *introResponse) bool {
	if r.TokenUse != "" && !strings.EqualFold(r.TokenUse, "access_token") {
		return false
	}
	if r.TokenType != "" && !strings.EqualFold(r.TokenType, "Bearer") && !strings.EqualFold(r.TokenType, "access_token") {
		return false
	}
	if r.Typ != "" && !strings.EqualFold(r.Typ, "Bearer") && normalTyp(r.Typ) != "at+jwt" {
		return false
	}
	return true
}

// introPrincipal checks an active introspection answer: issuer (when given),
// audience, validity window.
func (rs *ResourceServer) introPrincipal(r *introResponse, now time.Time) (*mcpruntime.Principal, error) {
	if r.Issuer != "" && !sameIssuer(r.Issuer, rs.cfg.Issuer) {
		return nil, unauthorized("invalid_token", "the access token was issued by another issuer")
	}
	if !r.Audience.Contains(rs.cfg.Audience) {
		return nil, unauthorized("invalid_token", "the access token is not meant for this server (aud)")
	}
	if r.NotBefore != nil && now.Add(rs.cfg.Leeway).Before(r.NotBefore.Time()) {
		return nil, unauthorized("invalid_token", "the access token is not valid yet")
	}
	if !isAccessToken(r) {
		return nil, unauthorized("invalid_token", "the token is not an access token")
	}
	p := &mcpruntime.Principal{Subject: r.Subject, ClientID: r.ClientID, Scopes: strings.Fields(r.Scope)}
	if r.Expiry != nil {
		p.Expiry = r.Expiry.Time()
	}
	if p.Subject == "" {
		p.Subject = p.ClientID
	}
	if p.Subject == "" {
		return nil, errors.New("auth: introspection names no subject")
	}
	return p, nil
}
