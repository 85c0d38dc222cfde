// Package auth makes an mcpgen server an OAuth 2.1 resource server over HTTP, as
// the MCP authorization specification (2026-07-28) asks:
//
//   - it serves the protected resource metadata (RFC 9728) at the well-known paths
//     and points clients to it from every 401 (WWW-Authenticate: Bearer
//     resource_metadata="...");
//   - it verifies each request's bearer token: a JWT access token against the
//     issuer's JWKS (discovered from the issuer's metadata, cached, refreshed on an
//     unknown kid at most once per RefreshInterval), signed with an allowed
//     asymmetric algorithm (never "none", never HMAC), typed at+jwt (RFC 9068),
//     with the issuer, the audience (RFC 8707: this server's resource URI) and
//     the validity window checked; or an opaque token through RFC 7662
//     introspection, which must describe an access token (not a refresh
//     token), results cached briefly;
//   - when the authorization server cannot be reached, cached keys go on
//     verifying, what cannot be checked is a 503 with Retry-After, and fetches
//     are retried with a short backoff (one at a time, no lock over the I/O);
//   - it puts the verified runtime.Principal (never the token) in the request
//     context, with the scope challenge the runtime answers a missing scope with:
//     403 insufficient_scope naming every scope the operation needs.
//
// Tokens are never logged and never passed on. JOSE is go-jose v4: the JWS parser
// takes the allowed algorithms up front, so a token signed otherwise is refused
// before any key is looked at.
//
// A program wires it with Handler; a generated server main imports this package
// and gets the flags -auth-issuer, -auth-audience, -auth-introspection,
// -auth-jwt-typ and -auth-allow-http (or the environment variables
// MCP_AUTH_ISSUER, MCP_AUTH_AUDIENCE, MCP_AUTH_INTROSPECTION_URL,
// MCP_AUTH_JWT_TYP, MCP_AUTH_ALLOW_HTTP, MCP_AUTH_CLIENT_ID,
// MCP_AUTH_CLIENT_SECRET). Package authtest is a test authorization server.
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Config configures a resource server.
type Config struct {
	// Issuer is the authorization server's issuer identifier (required); its
	// metadata is read from the RFC 8414 or OpenID Connect well-known URL.
	Issuer string
	// Audience is this server's canonical resource URI (required), e.g.
	// https://mcp.example.com/mcp: tokens must name it in "aud" (RFC 8707).
	Audience string
	// ScopesSupported are advertised in the metadata; nil means every scope the
	// server's tools, resources and prompts can require (Server.ScopesSupported).
	ScopesSupported []string
	// JWTTypes are further values of a JWT access token's typ header accepted
	// besides "at+jwt" (RFC 9068, always accepted, as is
	// "application/at+jwt"); compared without case and without an
	// "application/" prefix, and a token without typ counts as "JWT". Ory Hydra
	// v2, Keycloak and Azure AD sign access tokens with typ "JWT": list "JWT"
	// for them. nil accepts at+jwt only, so an ID token or another JWT of the
	// issuer is never taken for an access token.
	JWTTypes []string
	// AllowInsecureHTTP accepts an http:// issuer, introspection endpoint and
	// discovered jwks_uri/introspection_endpoint on a host that is not
	// loopback. Without it they must be https (http to localhost or a loopback
	// address is always accepted: a local test issuer).
	AllowInsecureHTTP bool
	// Algorithms are the accepted JWS algorithms; nil means RS256, RS384, RS512,
	// PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA. "none" and the HMAC
	// algorithms are refused whatever this says.
	Algorithms []jose.SignatureAlgorithm
	// IntrospectionURL is the RFC 7662 endpoint for opaque tokens; empty means the
	// issuer metadata's introspection_endpoint, if any (else opaque tokens are
	// refused). ClientID and ClientSecret authenticate to it (HTTP Basic) when set.
	IntrospectionURL       string
	ClientID, ClientSecret string
	// IntrospectionCacheTTL bounds how long an introspection result is reused
	// (never past the token's expiry); 0 means 30 seconds, negative no cache.
	// A token revoked at the authorization server may be accepted that long.
	IntrospectionCacheTTL time.Duration
	// RefreshInterval is the least time between two JWKS fetches caused by
	// unknown key ids; 0 means one minute. The key set is also fetched again
	// once it is older than MaxKeyAge (0: one hour).
	RefreshInterval, MaxKeyAge time.Duration
	// Leeway tolerates clock skew on exp, nbf and iat; 0 means 30 seconds.
	Leeway time.Duration
	// Claims names further claims copied into Principal.Claims (e.g. "tenant").
	Claims []string
	// HTTPClient fetches metadata, keys and introspection results; nil means a
	// client with a 10-second timeout.
	HTTPClient *http.Client
	// Logger receives refusals (reasons only, never tokens); nil means slog.Default.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now (tests).
	Now func() time.Time
}

// A ResourceServer verifies bearer tokens for one MCP server.
type ResourceServer struct {
	cfg      Config
	srv      *mcpruntime.Server
	metaURL  string // the protected resource metadata URL
	metaPath string // its path
	algs     []jose.SignatureAlgorithm
	jwtTypes map[string]bool // accepted typ headers, normalized (normalTyp)
	log      *slog.Logger
	issuer   *issuerMeta
	keys     *keySet
	intro    *introspector
	verified verifiedCache // JWTs verified recently
	// challengeFn is scopeChallenge as a value, made once (a method value per
	// request would allocate).
	challengeFn func(required []string) string
}

// Default values.
const (
	defaultRefresh  = time.Minute
	defaultKeyAge   = time.Hour
	defaultLeeway   = 30 * time.Second
	defaultIntroTTL = 30 * time.Second
	maxTokenBytes   = 16 << 10 // a longer Authorization value is refused unread
)

// defaultAlgorithms are the asymmetric JWS algorithms accepted by default.
var defaultAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// New returns a resource server for s. Nothing is fetched yet: the issuer's
// metadata and keys are read on first use (and again after a failure).
func New(s *mcpruntime.Server, cfg Config) (*ResourceServer, error) {
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("auth: Issuer and Audience are required")
	}
	aud, err := url.Parse(cfg.Audience)
	if err != nil || aud.Scheme == "" || aud.Host == "" || aud.Fragment != "" {
		return nil, fmt.Errorf("auth: Audience %q is not an absolute URI without fragment", cfg.Audience)
	}
	if err := checkEndpoint("Issuer", cfg.Issuer, cfg.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	if cfg.IntrospectionURL != "" {
		if err := checkEndpoint("IntrospectionURL", cfg.IntrospectionURL, cfg.AllowInsecureHTTP); err != nil {
			return nil, err
		}
	}
	setDefault(&cfg.RefreshInterval, defaultRefresh)
	setDefault(&cfg.MaxKeyAge, defaultKeyAge)
	setDefault(&cfg.Leeway, defaultLeeway)
	setDefault(&cfg.IntrospectionCacheTTL, defaultIntroTTL)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	algs := cfg.Algorithms
	if algs == nil {
		algs = defaultAlgorithms
	}
	for _, a := range algs {
		switch a {
		case "none", jose.HS256, jose.HS384, jose.HS512:
			return nil, fmt.Errorf("auth: algorithm %s is not allowed for access tokens", a)
		}
	}
	rs := &ResourceServer{cfg: cfg, srv: s, algs: algs, log: cfg.Logger, jwtTypes: map[string]bool{"at+jwt": true}}
	for _, t := range cfg.JWTTypes {
		rs.jwtTypes[normalTyp(t)] = true
	}
	for _, u := range []string{cfg.Issuer, cfg.IntrospectionURL} {
		if cfg.AllowInsecureHTTP && strings.HasPrefix(u, "http://") && checkEndpoint("", u, false) != nil {
			rs.log.Warn("auth: the authorization server is reached over plain HTTP (AllowInsecureHTTP): tokens and keys can be read or replaced on the way", "url", u)
		}
	}
	rs.metaPath = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(aud.Path, "/")
	rs.metaURL = aud.Scheme + "://" + aud.Host + rs.metaPath
	rs.issuer = &issuerMeta{rs: rs}
	rs.keys = &keySet{rs: rs}
	rs.intro = newIntrospector(rs)
	rs.challengeFn = rs.scopeChallenge
	return rs, nil
}

// setDefault sets *d to def when it is zero; negative stays (meaning "none").
func setDefault(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// MetadataURL is the protected resource metadata URL named in challenges.
func (rs *ResourceServer) MetadataURL() string { return rs.metaURL }

// Handler returns mcp (served at mcpPath) behind bearer authentication, plus the
// protected resource metadata at its well-known paths (both
// /.well-known/oauth-protected-resource and that followed by the endpoint's
// path). Mount it at "/".
func (rs *ResourceServer) Handler(mcpPath string, mcp http.Handler) http.Handler {
	mux := http.NewServeMux()
	rs.Mount(mux, mcpPath, mcp)
	return mux
}

// Middleware authenticates every request before next: a request without a
// valid token is answered 401 with the challenge; one with a valid token reaches
// next with the principal in its context.
func (rs *ResourceServer) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := rs.authenticate(r)
		if err != nil {
			rs.refuse(w, err)
			return
		}
		// One context value for both (WithPrincipal plus WithScopeChallenge).
		next.ServeHTTP(w, r.WithContext(mcpruntime.WithAuthorization(r.Context(), p, rs.challengeFn)))
	})
}

// An authError is why a request is refused: a 401 (invalid_token or no token)
// or 400 (invalid_request).
type authError struct {
	status int
	code   string // RFC 6750 error code; "" for a request without credentials
	desc   string
}

func (e *authError) Error() string { return e.code + ": " + e.desc }

// unauthorized and badRequest build the refusals.
func unauthorized(code, format string, args ...any) *authError {
	return &authError{status: http.StatusUnauthorized, code: code, desc: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *authError {
	return &authError{status: http.StatusBadRequest, code: "invalid_request", desc: fmt.Sprintf(format, args...)}
}

// authenticate reads and verifies the request's bearer token (RFC 6750 2.1: the
// Authorization header only; a token in the query is refused).
func (rs *ResourceServer) authenticate(r *http.Request) (*mcpruntime.Principal, error) {
	if r.URL.RawQuery != "" && r.URL.Query().Has("access_token") {
		return nil, badRequest("access tokens are accepted in the Authorization header only")
	}
	vals := r.Header.Values("Authorization")
	switch {
	case len(vals) == 0:
		return nil, unauthorized("", "no access token")
	case len(vals) > 1:
		return nil, badRequest("more than one Authorization header")
	case len(vals[0]) > maxTokenBytes:
		return nil, unauthorized("invalid_token", "the access token is too long")
	}
	scheme, token, _ := strings.Cut(vals[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, unauthorized("", "the Authorization scheme must be Bearer")
	}
	token = strings.TrimSpace(token)
	// A token verified before is found without the syntax scan: only
	// b64token-shaped JWTs are ever cached (Verify).
	if p := rs.verified.get(token, rs.cfg.Now()); p != nil {
		return p, nil
	}
	if token == "" || !isToken68(token) {
		return nil, unauthorized("invalid_token", "malformed access token")
	}
	return rs.Verify(r.Context(), token)
}

// token68 marks the bytes of the RFC 6750 b64token syntax.
var token68 = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", byte(c)) >= 0
	}
	return t
}()

// isToken68 reports whether s has the RFC 6750 b64token syntax.
func isToken68(s string) bool {
	for i := 0; i < len(s); i++ {
		if !token68[s[i]] {
			return false
		}
	}
	return true
}

// Verify verifies an access token and returns its principal: a JWT (three
// dot-separated parts) against the JWKS, anything else by introspection.
func (rs *ResourceServer) Verify(ctx context.Context, token string) (*mcpruntime.Principal, error) {
	if strings.Count(token, ".") != 2 {
		return rs.intro.verify(ctx, token)
	}
	if p := rs.verified.get(token, rs.cfg.Now()); p != nil {
		return p, nil
	}
	p, err := rs.verifyJWT(ctx, token)
	if err == nil && isToken68(token) { // the cache holds b64tokens only (authenticate)
		rs.verified.put(token, p, rs.cfg.Now())
	}
	return p, err
}

// refuse answers a request that is not authenticated.
func (rs *ResourceServer) refuse(w http.ResponseWriter, err error) {
	var ae *authError
	if !errors.As(err, &ae) {
		rs.log.Error("auth: cannot verify access token", "err", err)
		ae = &authError{status: http.StatusServiceUnavailable, code: "temporarily_unavailable",
			desc: "the authorization server cannot be reached"}
		retry := time.Second
		if ue := (*unavailableError)(nil); errors.As(err, &ue) {
			retry = max(ue.retry, time.Second)
		}
		w.Header().Set("Retry-After", strconv.Itoa(int((retry+time.Second-1)/time.Second)))
	} else if ae.code != "" {
		rs.log.Info("auth: refused", "status", ae.status, "error", ae.code, "reason", ae.desc)
	}
	if ae.status != http.StatusServiceUnavailable {
		desc := ae.desc
		if ae.code == "" { // no credentials: the challenge carries no error (RFC 6750 3.1)
			desc = ""
		}
		w.Header().Set("WWW-Authenticate", rs.challenge(ae.code, desc, ""))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(ae.status)
	body := `{"error":` + quote(orDefault(ae.code, "unauthorized")) + `,"error_description":` + quote(ae.desc) + "}\n"
	_, _ = w.Write([]byte(body))
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// challenge is a WWW-Authenticate Bearer value with resource_metadata and, when
// set, error, error_description and scope.
func (rs *ResourceServer) challenge(code, desc, scope string) string {
	var b strings.Builder
	b.WriteString("Bearer resource_metadata=")
	b.WriteString(quote(rs.metaURL))
	if code != "" {
		b.WriteString(", error=" + quote(code))
	}
	if scope != "" {
		b.WriteString(", scope=" + quote(scope))
	}
	if desc != "" {
		b.WriteString(", error_description=" + quote(desc))
	}
	return b.String()
}

// scopeChallenge is the runtime's 403 insufficient_scope challenge.
func (rs *ResourceServer) scopeChallenge(required []string) string {
	return rs.challenge("insufficient_scope", "this operation needs more scopes", strings.Join(required, " "))
}

// quote is an RFC 9110 quoted-string: backslash before " and \, other control
// characters dropped.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
