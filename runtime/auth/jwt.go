package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// maxDocBytes bounds a metadata, JWKS or introspection response.
const maxDocBytes = 1 << 20

// issuerMeta is the authorization server's metadata, read once it is needed.
type issuerMeta struct {
	rs *ResourceServer

	mu      sync.Mutex
	fetched bool
	doc     struct {
		Issuer        string `json:"issuer"`
		JWKSURI       string `json:"jwks_uri"`
		Introspection string `json:"introspection_endpoint"`
	}
}

// get returns the metadata, fetching it on first use: RFC 8414
// (/.well-known/oauth-authorization-server{path}), else OpenID Connect
// Discovery ({issuer}/.well-known/openid-configuration). Its issuer must be
// the configured one.
func (m *issuerMeta) get(ctx context.Context) (jwksURI, introspection string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fetched {
		return m.doc.JWKSURI, m.doc.Introspection, nil
	}
	iss := strings.TrimSuffix(m.rs.cfg.Issuer, "/")
	var urls []string
	if scheme, rest, ok := strings.Cut(iss, "://"); ok {
		host, path, _ := strings.Cut(rest, "/")
		if path != "" {
			path = "/" + path
		}
		urls = append(urls, scheme+"://"+host+"/.well-known/oauth-authorization-server"+path)
	}
	urls = append(urls, iss+"/.well-known/openid-configuration")
	var errs []error
	for _, u := range urls {
		if err := getJSON(ctx, m.rs.cfg.HTTPClient, u, &m.doc); err != nil {
			errs = append(errs, err)
			continue
		}
		if !sameIssuer(m.doc.Issuer, iss) {
			return "", "", fmt.Errorf("auth: metadata at %s names issuer %q, want %q", u, m.doc.Issuer, m.rs.cfg.Issuer)
		}
		m.fetched = true
		return m.doc.JWKSURI, m.doc.Introspection, nil
	}
	return "", "", fmt.Errorf("auth: issuer metadata: %w", errors.Join(errs...))
}

// getJSON fetches a JSON document.
func getJSON(ctx context.Context, c *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}

// A keySet is the issuer's JWKS: fetched on first use, fetched again when it is
// older than MaxKeyAge or a token names an unknown kid (at most once per
// RefreshInterval, so forged kids cannot make the server hammer the issuer).
type keySet struct {
	rs *ResourceServer

	mu        sync.Mutex
	keys      []jose.JSONWebKey
	fetchedAt time.Time
	fetches   int // how many times the set was fetched (tests, metrics)
}

// lookup returns the verification keys for kid ("" matches every key).
func (ks *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	now := ks.rs.cfg.Now()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	stale := ks.fetchedAt.IsZero() || now.Sub(ks.fetchedAt) > ks.rs.cfg.MaxKeyAge
	if !stale {
		if found := ks.match(kid); len(found) > 0 {
			return found, nil
		}
		if now.Sub(ks.fetchedAt) < ks.rs.cfg.RefreshInterval {
			return nil, nil // unknown kid, refreshed too recently
		}
	}
	if err := ks.fetch(ctx, now); err != nil {
		if ks.fetchedAt.IsZero() {
			return nil, err
		}
		ks.rs.log.Error("auth: refreshing the JWKS failed; keeping the old keys", "err", err)
	}
	return ks.match(kid), nil
}

// match returns the signing keys with the given kid (all of them for "").
func (ks *keySet) match(kid string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range ks.keys {
		if (kid == "" || k.KeyID == kid) && (k.Use == "" || k.Use == "sig") && k.IsPublic() {
			out = append(out, k)
		}
	}
	return out
}

// fetch reads the JWKS; called with mu held.
func (ks *keySet) fetch(ctx context.Context, now time.Time) error {
	ks.fetchedAt = now // a failed fetch also counts against the rate limit
	jwksURI, _, err := ks.rs.issuer.get(ctx)
	if err != nil {
		return err
	}
	if jwksURI == "" {
		return errors.New("auth: the issuer's metadata has no jwks_uri")
	}
	var set jose.JSONWebKeySet
	if err := getJSON(ctx, ks.rs.cfg.HTTPClient, jwksURI, &set); err != nil {
		return fmt.Errorf("auth: JWKS: %w", err)
	}
	ks.keys, ks.fetches = set.Keys, ks.fetches+1
	return nil
}

// sameIssuer compares issuer identifiers, ignoring one trailing slash (Ory
// Hydra's metadata and tokens differ there).
func sameIssuer(a, b string) bool {
	return a != "" && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// accessClaims are the claims of a JWT access token mcpgen reads (RFC 9068).
type accessClaims struct {
	jwt.Claims
	Scope    string   `json:"scope"`
	Scp      []string `json:"scp"` // Ory Hydra, Azure AD
	ClientID string   `json:"client_id"`
}

// verifyJWT verifies a JWT access token.
func (rs *ResourceServer) verifyJWT(ctx context.Context, token string) (*mcpruntime.Principal, error) {
	tok, err := jwt.ParseSigned(token, rs.algs)
	if err != nil {
		return nil, unauthorized("invalid_token", "the access token is not a JWT signed with an accepted algorithm")
	}
	if len(tok.Headers) != 1 {
		return nil, unauthorized("invalid_token", "the access token has more than one signature")
	}
	keys, err := rs.keys.lookup(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, err // the issuer cannot be reached: 503
	}
	if len(keys) == 0 {
		return nil, unauthorized("invalid_token", "the access token is signed with an unknown key")
	}
	var claims accessClaims
	var extra map[string]any
	verified := false
	for _, k := range keys {
		if tok.Claims(k.Key, &claims, &extra) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, unauthorized("invalid_token", "the access token's signature does not verify")
	}
	return rs.principalOf(&claims, extra)
}

// principalOf checks the verified claims and builds the principal.
func (rs *ResourceServer) principalOf(c *accessClaims, extra map[string]any) (*mcpruntime.Principal, error) {
	now := rs.cfg.Now()
	if c.Expiry == nil {
		return nil, unauthorized("invalid_token", "the access token has no expiry")
	}
	err := c.ValidateWithLeeway(jwt.Expected{Time: now}, rs.cfg.Leeway)
	if err == nil && !sameIssuer(c.Issuer, rs.cfg.Issuer) {
		err = jwt.ErrInvalidIssuer
	}
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, unauthorized("invalid_token", "the access token expired")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return nil, unauthorized("invalid_token", "the access token is not valid yet")
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return nil, unauthorized("invalid_token", "the access token was issued by another issuer")
	case err != nil:
		return nil, unauthorized("invalid_token", "the access token's claims are invalid")
	}
	if !c.Audience.Contains(rs.cfg.Audience) {
		return nil, unauthorized("invalid_token", "the access token is not meant for this server (aud)")
	}
	p := &mcpruntime.Principal{Subject: c.Subject, ClientID: c.ClientID, Expiry: c.Expiry.Time()}
	p.Scopes = append(strings.Fields(c.Scope), c.Scp...)
	for _, name := range rs.cfg.Claims {
		if v, ok := extra[name]; ok {
			if p.Claims == nil {
				p.Claims = map[string]any{}
			}
			p.Claims[name] = v
		}
	}
	if p.Subject == "" {
		p.Subject = p.ClientID
	}
	if p.Subject == "" {
		return nil, unauthorized("invalid_token", "the access token names no subject")
	}
	return p, nil
}
