package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/auth/authtest"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// A testIssuer is runtime/auth/authtest's issuer with an RSA key "k1" and
// introspection behind HTTP Basic rs:rs-secret, plus the helpers these tests
// mint their good and bad tokens with.
type testIssuer struct {
	*authtest.Issuer
	t   *testing.T
	key *rsa.PrivateKey
	kid string
}

func newTestIssuer(t *testing.T) *testIssuer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := authtest.Start(t, &authtest.Options{Key: key, KeyID: "k1", IntrospectionClientID: "rs", IntrospectionClientSecret: "rs-secret"})
	return &testIssuer{Issuer: is, t: t, key: key, kid: "k1"}
}

// claims are a token's claims: the defaults of a valid token for aud, edited.
func (is *testIssuer) claims(aud string, scopes string) map[string]any {
	now := time.Now()
	return map[string]any{"iss": is.URL(), "sub": "alice", "client_id": "agent", "aud": []string{aud},
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "scope": scopes}
}

// mint signs claims with key (the issuer's, or another) under kid and alg.
func (is *testIssuer) mint(claims map[string]any, kid string, key any, alg jose.SignatureAlgorithm) string {
	is.t.Helper()
	tok, err := is.Sign(claims, authtest.Header{Key: key, KeyID: kid, Algorithm: alg})
	if err != nil {
		is.t.Fatal(err)
	}
	return tok
}

// valid mints a valid token for aud with scopes.
func (is *testIssuer) valid(aud, scopes string) string {
	return is.mint(is.claims(aud, scopes), is.kid, is.key, jose.RS256)
}

// protected is an MCP server with two tools behind a ResourceServer.
type protected struct {
	ts   *httptest.Server
	rs   *ResourceServer
	aud  string
	runs atomic.Int32
}

func newProtected(t *testing.T, is *testIssuer, edit func(*Config)) *protected {
	p := &protected{}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "auth-test", Version: "1"}, nil)
	s.AddTool(&mcpruntime.Tool{Name: "create_incident", Description: "Opens an incident.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"severity":{"type":"string","enum":["p1","p2"]},"title":{"type":"string"}},"required":["severity","title"],"additionalProperties":false}`),
		Scopes:      []string{"incident:create:{severity}"},
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			p.runs.Add(1)
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("opened by " + mcpruntime.PrincipalFrom(ctx).Subject)}}, nil
		}})
	p.ts = httptest.NewServer(nil)
	t.Cleanup(p.ts.Close)
	p.aud = p.ts.URL + "/mcp"
	cfg := Config{Issuer: is.URL(), Audience: p.aud, ClientID: "rs", ClientSecret: "rs-secret", Claims: []string{"tenant"},
		Logger: slogTo(io.Discard)}
	if edit != nil {
		edit(&cfg)
	}
	rs, err := New(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.rs = rs
	p.ts.Config.Handler = rs.Handler("/mcp", s.HTTPHandler(nil))
	return p
}

// modernCall is a 2026-07-28 tools/call of create_incident.
func modernCall(severity string) (string, http.Header) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_incident","arguments":{"severity":"` + severity +
		`","title":"DB down"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", "create_incident")
	return body, h
}

// send POSTs body to path with hdr and returns status, headers and body.
func send(t *testing.T, url, body string, hdr http.Header) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestValidTokensReachTheTool(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+is.valid(p.aud, "incident:create:p1"))
	status, _, resp := send(t, p.ts.URL+"/mcp", body, hdr)
	if status != 200 || !strings.Contains(resp, `"opened by alice"`) {
		t.Fatalf("JWT: %d %s", status, resp)
	}
	is.SetIntrospection("ory_at_opaque1", map[string]any{"active": true, "sub": "bob", "client_id": "agent", "scope": "incident:create",
		"aud": []string{p.aud}, "iss": is.URL(), "exp": time.Now().Add(time.Hour).Unix(), "token_type": "access_token"})
	for range 3 {
		hdr.Set("Authorization", "Bearer ory_at_opaque1")
		status, _, resp = send(t, p.ts.URL+"/mcp", body, hdr)
		if status != 200 || !strings.Contains(resp, `"opened by bob"`) {
			t.Fatalf("opaque: %d %s", status, resp)
		}
	}
	if n := is.Hits("introspect"); n != 1 {
		t.Errorf("introspection requests = %d, want 1 (cached)", n)
	}
	if p.runs.Load() != 4 {
		t.Errorf("runs = %d", p.runs.Load())
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(p.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"resource":"` + p.aud + `","authorization_servers":["` + is.URL() + `"],"scopes_supported":["incident:create:p1","incident:create:p2"],"bearer_methods_supported":["header"]}`
		if resp.StatusCode != 200 || string(b) != want {
			t.Errorf("GET %s = %d %s, want %s", path, resp.StatusCode, b, want)
		}
	}
	if got, want := p.rs.MetadataURL(), p.ts.URL+"/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("MetadataURL = %s, want %s", got, want)
	}
}

// TestUnknownKidRefreshIsRateLimited: an unknown kid fetches the JWKS again, at
// most once per RefreshInterval; a rotated key is found by that refresh.
func TestUnknownKidRefreshIsRateLimited(t *testing.T) {
	is := newTestIssuer(t)
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	p := newProtected(t, is, func(c *Config) { c.Now = func() time.Time { return time.Unix(0, clock.Load()) } })
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+is.valid(p.aud, "incident:create:p1"))
	if status, _, _ := send(t, p.ts.URL+"/mcp", body, hdr); status != 200 {
		t.Fatalf("status %d", status)
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	forged := is.mint(is.claims(p.aud, "incident:create:p1"), "k2", other, jose.RS256)
	for range 5 {
		hdr.Set("Authorization", "Bearer "+forged)
		if status, _, _ := send(t, p.ts.URL+"/mcp", body, hdr); status != 401 {
			t.Fatalf("forged kid: status %d", status)
		}
	}
	if n := is.Hits("jwks"); n != 1 {
		t.Errorf("JWKS fetched %d times within the interval, want 1", n)
	}
	// The issuer rotates to k2; after the interval the unknown kid triggers one refresh.
	if err := is.Rotate(other, "k2"); err != nil {
		t.Fatal(err)
	}
	clock.Add(int64(2 * time.Minute))
	hdr.Set("Authorization", "Bearer "+forged)
	if status, _, resp := send(t, p.ts.URL+"/mcp", body, hdr); status != 200 {
		t.Fatalf("rotated key: %d %s", status, resp)
	}
	if n := is.Hits("jwks"); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
}

func TestNewRefusesHMACAndNone(t *testing.T) {
	for _, alg := range []jose.SignatureAlgorithm{jose.HS256, "none"} {
		if _, err := New(nil, Config{Issuer: "https://as", Audience: "https://rs/mcp", Algorithms: []jose.SignatureAlgorithm{alg}}); err == nil {
			t.Errorf("New accepted %s", alg)
		}
	}
	if _, err := New(nil, Config{Issuer: "https://as", Audience: "rs/mcp"}); err == nil {
		t.Error("New accepted a relative audience")
	}
}

// pubPEM is the issuer's public key as PEM: what an attacker signs HS256 with.
func (is *testIssuer) pubPEM() []byte {
	der, _ := x509.MarshalPKIXPublicKey(&is.key.PublicKey)
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// noneToken is an unsigned token (alg "none").
func noneToken(claims map[string]any) string {
	h, _ := json.Marshal(map[string]any{"alg": "none", "kid": "k1", "typ": "at+jwt"})
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

// tamper replaces the payload of a signed token, keeping the signature.
func tamper(token string, claims map[string]any) string {
	parts := strings.Split(token, ".")
	c, _ := json.Marshal(claims)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(c) + "." + parts[2]
}

func TestTokensAreNeverLogged(t *testing.T) {
	var logs strings.Builder
	is := newTestIssuer(t)
	p := newProtected(t, is, func(c *Config) {
		c.Logger = slogTo(&logs)
	})
	c := is.claims(p.aud, "incident:create:p1")
	c["exp"] = time.Now().Add(-time.Hour).Unix()
	tok := is.mint(c, is.kid, is.key, jose.RS256)
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+tok)
	send(t, p.ts.URL+"/mcp", body, hdr)
	hdr.Set("Authorization", "Bearer ory_at_secret_opaque")
	send(t, p.ts.URL+"/mcp", body, hdr)
	if !strings.Contains(logs.String(), "expired") {
		t.Fatalf("no refusal logged: %s", logs.String())
	}
	for _, secret := range []string{tok, strings.Split(tok, ".")[2], "ory_at_secret_opaque"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log contains a token: %s", logs.String())
		}
	}
}
