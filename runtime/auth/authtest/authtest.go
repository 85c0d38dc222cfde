// Package authtest is a small OAuth authorization server for tests and local
// trials of an mcpgen server's -auth-issuer: it serves RFC 8414 and OpenID
// Connect discovery metadata, a JWKS, a client-credentials token endpoint, and
// an RFC 7662 introspection endpoint, and mints signed JWT access tokens
// (RFC 9068, typ "at+jwt") for a subject, client, scopes and audience.
//
// It is for tests and development only: its token endpoint issues a token to
// any client that asks, for any subject and scope. `mcpgen issuer` serves one
// on a loopback address; Go tests start one with Start (an httptest server):
//
//	is := authtest.Start(t, &authtest.Options{Audience: srv.URL + "/mcp"})
//	rs, _ := auth.New(s, auth.Config{Issuer: is.URL(), Audience: srv.URL + "/mcp"})
//	tok := is.Token(t, authtest.Token{Subject: "alice", Scopes: []string{"notes:read"}})
//
// Tests of a resource server's failure handling use the rest: Sign (any
// header, key and claims), Rotate, SetDown, SetMetadata, SetIntrospection and
// Hits.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// TB is the part of testing.TB Start and Token use (so that this package does
// not import testing).
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// Options configure an Issuer; the zero value is usable.
type Options struct {
	// Key signs the tokens: an *ecdsa.PrivateKey (P-256, P-384, P-521), an
	// *rsa.PrivateKey or an ed25519.PrivateKey; nil means a new P-256 key.
	Key crypto.Signer
	// KeyID is the key's kid; "" means its RFC 7638 thumbprint.
	KeyID string
	// Audience is the aud of tokens that name none (a resource server's
	// canonical URI, e.g. http://127.0.0.1:8080/mcp).
	Audience string
	// TTL is the lifetime of tokens that give none; 0 means one hour.
	TTL time.Duration
	// IntrospectionClientID and IntrospectionClientSecret, when set, are the
	// HTTP Basic credentials the introspection endpoint requires.
	IntrospectionClientID, IntrospectionClientSecret string
}

// Endpoint paths, below the issuer URL.
const (
	PathMetadata      = "/.well-known/oauth-authorization-server"
	PathOpenID        = "/.well-known/openid-configuration"
	PathJWKS          = "/jwks"
	PathToken         = "/token"
	PathIntrospection = "/introspect"
)

// An Issuer is a test authorization server.
type Issuer struct {
	url  string
	opts Options
	ts   *httptest.Server // when started by Start

	mu       sync.Mutex
	key      crypto.Signer
	kid      string
	alg      jose.SignatureAlgorithm
	down     int            // status every endpoint answers; 0: up
	metadata map[string]any // replaces the metadata document when set
	opaque   map[string]map[string]any
	hits     map[string]int
}

// New returns an issuer whose identifier is issuerURL (e.g.
// "http://127.0.0.1:9400"); serve Handler at that URL.
func New(issuerURL string, opts *Options) (*Issuer, error) {
	is := &Issuer{url: strings.TrimSuffix(issuerURL, "/"), opaque: map[string]map[string]any{}, hits: map[string]int{}}
	if opts != nil {
		is.opts = *opts
	}
	if is.opts.TTL == 0 {
		is.opts.TTL = time.Hour
	}
	key := is.opts.Key
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		key = k
	}
	if err := is.Rotate(key, is.opts.KeyID); err != nil {
		return nil, err
	}
	return is, nil
}

// Start serves a new issuer on a loopback httptest server, closed at the end
// of the test.
func Start(t TB, opts *Options) *Issuer {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	ts.Start()
	is, err := New(ts.URL, opts)
	if err != nil {
		ts.Close()
		t.Fatalf("authtest: %v", err)
	}
	is.ts = ts
	ts.Config.Handler = is.Handler()
	t.Cleanup(ts.Close)
	return is
}

// URL is the issuer identifier (what -auth-issuer names).
func (is *Issuer) URL() string { return is.url }

// Close stops the server Start started.
func (is *Issuer) Close() {
	if is.ts != nil {
		is.ts.Close()
	}
}

// algorithmOf is the JWS algorithm for a key.
func algorithmOf(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("authtest: unsupported key type %T", key)
}

// Rotate replaces the signing key (and the JWKS, which then holds only it);
// kid "" means the key's thumbprint.
func (is *Issuer) Rotate(key crypto.Signer, kid string) error {
	alg, err := algorithmOf(key)
	if err != nil {
		return err
	}
	if kid == "" {
		tp, err := (&jose.JSONWebKey{Key: key.Public()}).Thumbprint(crypto.SHA256)
		if err != nil {
			return err
		}
		kid = base64.RawURLEncoding.EncodeToString(tp)
	}
	is.mu.Lock()
	is.key, is.kid, is.alg = key, kid, alg
	is.mu.Unlock()
	return nil
}

// KeyID is the current signing key's kid.
func (is *Issuer) KeyID() string {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.kid
}

// SetDown makes every endpoint answer status (e.g. 503) until SetDown(0): an
// outage of the authorization server.
func (is *Issuer) SetDown(status int) {
	is.mu.Lock()
	is.down = status
	is.mu.Unlock()
}

// SetMetadata replaces the discovery document both well-known URLs serve
// (nil restores the default): a misconfigured or hostile issuer.
func (is *Issuer) SetMetadata(doc map[string]any) {
	is.mu.Lock()
	is.metadata = doc
	is.mu.Unlock()
}

// Hits returns how many requests reached an endpoint: "metadata" (both
// well-known URLs), "jwks", "token" or "introspect".
func (is *Issuer) Hits(endpoint string) int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.hits[endpoint]
}

// A Token describes an access token to mint.
type Token struct {
	// Subject is the sub claim; "" means ClientID, or "test-user" when that
	// is empty too.
	Subject string
	// ClientID is the client_id claim; "" means "test-client".
	ClientID string
	// Scopes are granted (the space-separated scope claim).
	Scopes []string
	// Audience is aud; nil means Options.Audience.
	Audience []string
	// TTL is the lifetime; 0 means Options.TTL.
	TTL time.Duration
	// Use is the token_use the introspection endpoint reports for an Opaque
	// token: "" means "access_token"; "refresh_token" makes a refresh token.
	Use string
	// Claims are further claims, added last (they override the others).
	Claims map[string]any
}

// Claims returns the claims Mint signs for tok (iss, sub, client_id, aud, exp,
// iat, nbf, jti and scope, plus tok.Claims): a starting point for Sign.
func (is *Issuer) Claims(tok Token) (map[string]any, error) {
	if tok.ClientID == "" {
		tok.ClientID = "test-client"
	}
	if tok.Subject == "" {
		tok.Subject = tok.ClientID
	}
	if tok.Audience == nil && is.opts.Audience != "" {
		tok.Audience = []string{is.opts.Audience}
	}
	if len(tok.Audience) == 0 {
		return nil, errors.New("authtest: the token has no audience (set Token.Audience or Options.Audience)")
	}
	if tok.TTL == 0 {
		tok.TTL = is.opts.TTL
	}
	now := time.Now()
	jti := make([]byte, 12)
	_, _ = rand.Read(jti)
	c := map[string]any{"iss": is.url, "sub": tok.Subject, "client_id": tok.ClientID, "aud": tok.Audience,
		"exp": now.Add(tok.TTL).Unix(), "iat": now.Unix(), "nbf": now.Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti)}
	if len(tok.Scopes) > 0 {
		c["scope"] = strings.Join(tok.Scopes, " ")
	}
	for k, v := range tok.Claims {
		c[k] = v
	}
	return c, nil
}

// Mint returns a JWT access token for tok, signed with the issuer's key, with
// the header typ "at+jwt" and the key's kid.
func (is *Issuer) Mint(tok Token) (string, error) {
	c, err := is.Claims(tok)
	if err != nil {
		return "", err
	}
	return is.Sign(c, Header{})
}

// Token is Mint for tests: it fails t on an error.
func (is *Issuer) Token(t TB, tok Token) string {
	t.Helper()
	s, err := is.Mint(tok)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return s
}

// A Header chooses how Sign signs; its zero value is the issuer's own key,
// algorithm and kid with typ "at+jwt".
type Header struct {
	Key       any                     // nil: the issuer's key; else any go-jose signing key
	Algorithm jose.SignatureAlgorithm // "": the issuer's algorithm
	KeyID     string                  // "": the issuer's kid
	Typ       string                  // "": "at+jwt"; "-" for no typ header
}

// Sign signs claims as a JWS in compact form: with the zero Header, a valid
// token of this issuer; otherwise whatever a test needs (another key, another
// algorithm, an unknown kid, another typ).
func (is *Issuer) Sign(claims map[string]any, h Header) (string, error) {
	is.mu.Lock()
	key, alg, kid := any(is.key), is.alg, is.kid
	is.mu.Unlock()
	if h.Key != nil {
		key = h.Key
	}
	if h.Algorithm != "" {
		alg = h.Algorithm
	}
	if h.KeyID != "" {
		kid = h.KeyID
	}
	opts := (&jose.SignerOptions{}).WithHeader("kid", kid)
	switch h.Typ {
	case "":
		opts = opts.WithType("at+jwt")
	case "-":
	default:
		opts = opts.WithType(jose.ContentType(h.Typ))
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", err
	}
	return jwt.Signed(sig).Claims(claims).Serialize()
}

// Opaque returns a random opaque token that the introspection endpoint
// answers as active with tok's claims (token_type "Bearer", token_use
// tok.Use or "access_token"), until its expiry.
func (is *Issuer) Opaque(tok Token) (string, error) {
	c, err := is.Claims(tok)
	if err != nil {
		return "", err
	}
	c["active"] = true
	c["token_type"] = "Bearer"
	c["token_use"] = "access_token"
	if tok.Use != "" {
		c["token_use"] = tok.Use
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	token := "authtest_" + base64.RawURLEncoding.EncodeToString(b)
	is.SetIntrospection(token, c)
	return token, nil
}

// SetIntrospection makes the introspection endpoint answer answer for token
// (nil: {"active": false}, e.g. a revoked token).
func (is *Issuer) SetIntrospection(token string, answer map[string]any) {
	is.mu.Lock()
	if answer == nil {
		delete(is.opaque, token)
	} else {
		is.opaque[token] = answer
	}
	is.mu.Unlock()
}

// Handler serves the issuer's endpoints.
func (is *Issuer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathMetadata, is.serveMetadata)
	mux.HandleFunc("GET "+PathOpenID, is.serveMetadata)
	mux.HandleFunc("GET "+PathJWKS, is.serveJWKS)
	mux.HandleFunc("POST "+PathToken, is.serveToken)
	mux.HandleFunc("POST "+PathIntrospection, is.serveIntrospection)
	return mux
}

// count records a hit and reports whether the issuer is down (and answered).
func (is *Issuer) count(w http.ResponseWriter, endpoint string) bool {
	is.mu.Lock()
	is.hits[endpoint]++
	down := is.down
	is.mu.Unlock()
	if down != 0 {
		http.Error(w, "authtest: the issuer is down", down)
		return true
	}
	return false
}

func (is *Issuer) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	if is.count(w, "metadata") {
		return
	}
	is.mu.Lock()
	doc := is.metadata
	is.mu.Unlock()
	if doc == nil {
		doc = is.Metadata()
	}
	writeJSON(w, http.StatusOK, doc)
}

// Metadata is the default discovery document.
func (is *Issuer) Metadata() map[string]any {
	is.mu.Lock()
	alg := is.alg
	is.mu.Unlock()
	return map[string]any{
		"issuer":                                is.url,
		"jwks_uri":                              is.url + PathJWKS,
		"token_endpoint":                        is.url + PathToken,
		"introspection_endpoint":                is.url + PathIntrospection,
		"grant_types_supported":                 []string{"client_credentials"},
		"response_types_supported":              []string{"token"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{string(alg)},
	}
}

func (is *Issuer) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	if is.count(w, "jwks") {
		return
	}
	is.mu.Lock()
	k := jose.JSONWebKey{Key: is.key.Public(), KeyID: is.kid, Algorithm: string(is.alg), Use: "sig"}
	is.mu.Unlock()
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{k}})
}

// serveToken is a client-credentials token endpoint that trusts every
// client: the client id comes from HTTP Basic or the client_id parameter,
// the audience from resource (RFC 8707) or audience (Ory Hydra's name), the
// scopes from scope, and the subject from the test-only parameter subject
// (default: the client id).
func (is *Issuer) serveToken(w http.ResponseWriter, r *http.Request) {
	if is.count(w, "token") {
		return
	}
	if err := r.ParseForm(); err != nil {
		tokenError(w, "invalid_request", err.Error())
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != "client_credentials" {
		tokenError(w, "unsupported_grant_type", "this test issuer grants client_credentials only")
		return
	}
	tok := Token{ClientID: r.PostForm.Get("client_id"), Subject: r.PostForm.Get("subject"), Scopes: strings.Fields(r.PostForm.Get("scope"))}
	if id, _, ok := r.BasicAuth(); ok {
		tok.ClientID = id
	}
	tok.Audience = r.PostForm["resource"]
	for _, a := range r.PostForm["audience"] {
		tok.Audience = append(tok.Audience, strings.Fields(a)...)
	}
	s, err := is.Mint(tok)
	if err != nil {
		tokenError(w, "invalid_target", err.Error())
		return
	}
	resp := map[string]any{"access_token": s, "token_type": "Bearer", "expires_in": int(is.opts.TTL / time.Second)}
	if len(tok.Scopes) > 0 {
		resp["scope"] = strings.Join(tok.Scopes, " ")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

func tokenError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": code, "error_description": desc})
}

func (is *Issuer) serveIntrospection(w http.ResponseWriter, r *http.Request) {
	if is.count(w, "introspect") {
		return
	}
	if is.opts.IntrospectionClientID != "" {
		user, pass, ok := r.BasicAuth()
		if !ok || user != is.opts.IntrospectionClientID || pass != is.opts.IntrospectionClientSecret {
			w.Header().Set("WWW-Authenticate", `Basic realm="introspection"`)
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
			return
		}
	}
	is.mu.Lock()
	ans, ok := is.opaque[r.PostFormValue("token")]
	is.mu.Unlock()
	if exp, isNum := ans["exp"].(int64); ok && isNum && time.Now().Unix() >= exp {
		ok = false
	}
	if !ok {
		ans = map[string]any{"active": false}
	}
	writeJSON(w, http.StatusOK, ans)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
