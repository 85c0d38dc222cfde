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

// issuerMeta is the authorization server's metadata, read once it is needed
// (one fetch at a time, failed ones spaced by the flight's backoff).
type issuerMeta struct {
	rs     *ResourceServer
	flight flight

	mu  sync.Mutex
	doc *issuerDoc // nil until fetched
}

// issuerDoc is the part of the metadata mcpgen reads.
type issuerDoc struct {
	Issuer        string `json:"issuer"`
	JWKSURI       string `json:"jwks_uri"`
	Introspection string `json:"introspection_endpoint"`
}

// get returns the metadata's endpoints, fetching it on first use (and again
// after a failure, at most once per backoff).
func (m *issuerMeta) get(ctx context.Context) (jwksURI, introspection string, err error) {
	m.mu.Lock()
	d := m.doc
	m.mu.Unlock()
	if d == nil {
		if err := m.flight.do(ctx, m.rs.cfg.Now, m.fetch); err != nil {
			return "", "", err
		}
		m.mu.Lock()
		d = m.doc
		m.mu.Unlock()
	}
	return d.JWKSURI, d.Introspection, nil
}

// fetch reads the metadata: RFC 8414
// (/.well-known/oauth-authorization-server{path}), else OpenID Connect
// Discovery ({issuer}/.well-known/openid-configuration). Its issuer must be
// the configured one, and its endpoints https (or loopback, or allowed).
func (m *issuerMeta) fetch(ctx context.Context) error {
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
		var doc issuerDoc
		if err := getJSON(ctx, m.rs.cfg.HTTPClient, u, &doc); err != nil {
			errs = append(errs, err)
			continue
		}
		if !sameIssuer(doc.Issuer, iss) {
			return fmt.Errorf("auth: metadata at %s names issuer %q, want %q", u, doc.Issuer, m.rs.cfg.Issuer)
		}
		for _, e := range [][2]string{{"jwks_uri", doc.JWKSURI}, {"introspection_endpoint", doc.Introspection}} {
			if e[1] != "" {
				if err := checkEndpoint("the issuer metadata's "+e[0], e[1], m.rs.cfg.AllowInsecureHTTP); err != nil {
					return err
				}
			}
		}
		m.mu.Lock()
		m.doc = &doc
		m.mu.Unlock()
		return nil
	}
	return fmt.Errorf("auth: issuer metadata: %w", errors.Join(errs...))
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
// RefreshInterval after a successful fetch, so forged kids cannot make the
// server hammer the issuer). A failed fetch keeps the keys it has (they go on
// verifying) and is retried after the flight's backoff, not RefreshInterval:
// a recovered issuer is used within seconds. Fetches run without the lock.
type keySet struct {
	rs     *ResourceServer
	flight flight

	mu        sync.Mutex
	keys      []jose.JSONWebKey
	fetchedAt time.Time // of the last successful fetch
	fetches   int       // successful fetches (tests, metrics)
}

// lookup returns the verification keys for kid ("" matches every key). An
// error (*unavailableError) means the issuer cannot be reached and no cached
// key matches: whether the token is good cannot be told now.
func (ks *keySet) lookup(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	cfg := &ks.rs.cfg
	now := cfg.Now()
	ks.mu.Lock()
	have, age := !ks.fetchedAt.IsZero(), now.Sub(ks.fetchedAt)
	found := ks.match(kid)
	ks.mu.Unlock()
	fresh := have && age <= cfg.MaxKeyAge
	if fresh && len(found) > 0 {
		return found, nil
	}
	if fresh && age < cfg.RefreshInterval {
		return nil, nil // unknown kid, refreshed too recently
	}
	err := ks.flight.do(ctx, cfg.Now, ks.fetch)
	ks.mu.Lock()
	found = ks.match(kid)
	ks.mu.Unlock()
	if err != nil && len(found) == 0 {
		return nil, err
	}
	return found, nil // with err: the cached keys keep verifying
}

// match returns the signing keys with the given kid (all of them for "");
// called with mu held.
func (ks *keySet) match(kid string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range ks.keys {
		if (kid == "" || k.KeyID == kid) && (k.Use == "" || k.Use == "sig") && k.IsPublic() {
			out = append(out, k)
		}
	}
	return out
}

// fetch reads the JWKS (in the flight: no lock held over the I/O).
func (ks *keySet) fetch(ctx context.Context) error {
	jwksURI, _, err := ks.rs.issuer.get(ctx)
	if err == nil && jwksURI == "" {
		err = errors.New("auth: the issuer's metadata has no jwks_uri")
	}
	var set jose.JSONWebKeySet
	if err == nil {
		if err = getJSON(ctx, ks.rs.cfg.HTTPClient, jwksURI, &set); err != nil {
			err = fmt.Errorf("auth: JWKS: %w", err)
		}
	}
	if err != nil {
		ks.rs.log.Error("auth: fetching the issuer's keys failed; cached keys stay in use", "err", err)
		return err
	}
	ks.mu.Lock()
	ks.keys, ks.fetchedAt, ks.fetches = set.Keys, ks.rs.cfg.Now(), ks.fetches+1
	ks.mu.Unlock()
	return nil
}

// sameIssuer compares issuer identifiers, ignoring one trailing slash (Ory
// Hydra's metadata and tokens differ there).
func sameIssuer(a, b string) bool {
	return a != "" && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// normalTyp is a typ header value as compared: lower case, without the
// "application/" prefix (RFC 7515 4.1.9).
func normalTyp(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	return strings.TrimPrefix(t, "application/")
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
	typ, _ := tok.Headers[0].ExtraHeaders[jose.HeaderType].(string)
	if _, present := tok.Headers[0].ExtraHeaders[jose.HeaderType]; !present {
		typ = "JWT" // RFC 7519 5.1: typ is optional, "JWT" is what it would say
	}
	if !rs.jwtTypes[normalTyp(typ)] {
		return nil, unauthorized("invalid_token", "the token is not a JWT access token (typ must be at+jwt)")
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
