package auth

import (
	"crypto/rand"
	"crypto/rsa"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/auth/authtest"
)

// slogTo is a logger writing text to w.
func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// The authentication part of the bad-input matrix (runtime/badinput_test.go has
// the rest): each bad credential with the exact status, WWW-Authenticate and body
// owed, and the handler never reached.
func TestBadCredentials(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	meta := `Bearer resource_metadata="` + p.ts.URL + `/.well-known/oauth-protected-resource/mcp"`
	invalid := func(desc string) (int, string, string) {
		return 401, meta + `, error="invalid_token", error_description="` + desc + `"`,
			`{"error":"invalid_token","error_description":"` + desc + `"}` + "\n"
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	edit := func(f func(map[string]any)) string {
		c := is.claims(p.aud, "incident:create:p1")
		f(c)
		return is.mint(c, is.kid, is.key, jose.RS256)
	}
	hmacKey := is.pubPEM()
	is.SetIntrospection("ory_at_revoked", map[string]any{"active": false})
	is.SetIntrospection("ory_at_wrong_aud", map[string]any{"active": true, "sub": "bob", "scope": "incident:create:p1",
		"aud": []string{"https://elsewhere.example/mcp"}, "exp": time.Now().Add(time.Hour).Unix()})
	// Active answers for tokens that are not access tokens, as authorization
	// servers report them: Ory Hydra's refresh token (token_use; its
	// token_type is Bearer for both), the RFC 7009 hint in token_type,
	// Keycloak's typ, and a DPoP-bound token (its proof is not checked here).
	notAccess := func(k, v string) map[string]any {
		a := map[string]any{"active": true, "sub": "bob", "client_id": "agent", "scope": "incident:create:p1",
			"aud": []string{p.aud}, "iss": is.URL() + "/", "exp": time.Now().Add(time.Hour).Unix(), "token_type": "Bearer"}
		a[k] = v
		return a
	}
	is.SetIntrospection("ory_rt_refresh", notAccess("token_use", "refresh_token"))
	is.SetIntrospection("rt_hint_type", notAccess("token_type", "refresh_token"))
	is.SetIntrospection("kc_refresh", notAccess("typ", "Refresh"))
	is.SetIntrospection("dpop_bound", notAccess("token_type", "DPoP"))

	type badAuth struct {
		name   string
		auth   []string // Authorization header values
		query  string
		status int
		www    string // exact WWW-Authenticate
		body   string // exact body
	}
	cases := []badAuth{
		{name: "missing Authorization", status: 401, www: meta,
			body: `{"error":"unauthorized","error_description":"no access token"}` + "\n"},
		{name: "two Authorization headers", auth: []string{"Bearer " + is.valid(p.aud, "x"), "Bearer " + is.valid(p.aud, "x")},
			status: 400, www: meta + `, error="invalid_request", error_description="more than one Authorization header"`,
			body: `{"error":"invalid_request","error_description":"more than one Authorization header"}` + "\n"},
		{name: "Basic scheme", auth: []string{"Basic YWxpY2U6c2VjcmV0"}, status: 401, www: meta,
			body: `{"error":"unauthorized","error_description":"the Authorization scheme must be Bearer"}` + "\n"},
		{name: "token in the query string", query: "?access_token=" + is.valid(p.aud, "incident:create:p1"),
			auth: []string{"Bearer " + is.valid(p.aud, "incident:create:p1")}, status: 400,
			www:  meta + `, error="invalid_request", error_description="access tokens are accepted in the Authorization header only"`,
			body: `{"error":"invalid_request","error_description":"access tokens are accepted in the Authorization header only"}` + "\n"},
	}
	add := func(name string, auth string, desc string) {
		st, www, body := invalid(desc)
		cases = append(cases, badAuth{name: name, auth: []string{auth}, status: st, www: www, body: body})
	}
	add("empty token", "Bearer ", "malformed access token")
	add("64 KiB token", "Bearer "+strings.Repeat("a", 64<<10), "the access token is too long")
	add("token with a space", "Bearer abc def", "malformed access token")
	add("expired", "Bearer "+edit(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), "the access token expired")
	add("not yet valid", "Bearer "+edit(func(c map[string]any) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), "the access token is not valid yet")
	add("no expiry", "Bearer "+edit(func(c map[string]any) { delete(c, "exp") }), "the access token has no expiry")
	add("wrong aud", "Bearer "+edit(func(c map[string]any) { c["aud"] = []string{"https://elsewhere.example/mcp"} }), "the access token is not meant for this server (aud)")
	add("no aud", "Bearer "+edit(func(c map[string]any) { delete(c, "aud") }), "the access token is not meant for this server (aud)")
	add("wrong iss", "Bearer "+edit(func(c map[string]any) { c["iss"] = "https://evil.example" }), "the access token was issued by another issuer")
	add("unknown kid", "Bearer "+is.mint(is.claims(p.aud, "incident:create:p1"), "k9", other, jose.RS256), "the access token is signed with an unknown key")
	add("known kid, other key", "Bearer "+is.mint(is.claims(p.aud, "incident:create:p1"), is.kid, other, jose.RS256), "the access token's signature does not verify")
	add("alg none", "Bearer "+noneToken(is.claims(p.aud, "incident:create:p1")), "the access token is not a JWT signed with an accepted algorithm")
	add("HS256 signed with the public key", "Bearer "+is.mint(is.claims(p.aud, "incident:create:p1"), is.kid, hmacKey, jose.HS256), "the access token is not a JWT signed with an accepted algorithm")
	add("tampered payload", "Bearer "+tamper(is.valid(p.aud, "incident:create:p2"), is.claims(p.aud, "incident:create:p1 admin")), "the access token's signature does not verify")
	add("revoked opaque token (introspection inactive)", "Bearer ory_at_revoked", "the access token is not active")
	add("unknown opaque token", "Bearer ory_at_never_issued", "the access token is not active")
	add("opaque token for another audience", "Bearer ory_at_wrong_aud", "the access token is not meant for this server (aud)")
	add("refresh token (Hydra token_use)", "Bearer ory_rt_refresh", "the token is not an access token")
	add("refresh token (token_type hint)", "Bearer rt_hint_type", "the token is not an access token")
	add("refresh token (Keycloak typ)", "Bearer kc_refresh", "the token is not an access token")
	add("DPoP-bound opaque token", "Bearer dpop_bound", "the token is not an access token")
	typJWT, _ := is.Sign(is.claims(p.aud, "incident:create:p1"), authtest.Header{Typ: "JWT"})
	add("JWT with typ JWT (an ID token's)", "Bearer "+typJWT, "the token is not a JWT access token (typ must be at+jwt)")

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, hdr := modernCall("p1")
			for _, v := range tc.auth {
				hdr.Add("Authorization", v)
			}
			status, h, resp := send(t, p.ts.URL+"/mcp"+tc.query, body, hdr)
			if status != tc.status || h.Get("WWW-Authenticate") != tc.www || resp != tc.body {
				t.Errorf("got %d\nWWW-Authenticate: %s\n%s\nwant %d\nWWW-Authenticate: %s\n%s", status, h.Get("WWW-Authenticate"), resp, tc.status, tc.www, tc.body)
			}
		})
	}
	if p.runs.Load() != 0 {
		t.Errorf("the handler ran %d times", p.runs.Load())
	}
}

// TestInsufficientScopeChallenge: a valid token without the scope the arguments
// need is a 403 naming exactly that scope; the handler does not run.
func TestInsufficientScopeChallenge(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+is.valid(p.aud, "incident:create:p2"))
	status, h, resp := send(t, p.ts.URL+"/mcp", body, hdr)
	want := `Bearer resource_metadata="` + p.ts.URL + `/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="incident:create:p1", error_description="this operation needs more scopes"`
	if status != 403 || h.Get("WWW-Authenticate") != want {
		t.Errorf("got %d %q, want 403 %q", status, h.Get("WWW-Authenticate"), want)
	}
	if wantBody := `{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"insufficient scope: this request needs incident:create:p1","data":{"requiredScopes":["incident:create:p1"]}}}`; resp != wantBody {
		t.Errorf("body %s, want %s", resp, wantBody)
	}
	if p.runs.Load() != 0 {
		t.Errorf("the handler ran")
	}
}

// TestLegacySessionBoundToSubject: a 2025-11-25 session opened with alice's token
// is refused (403) with bob's valid token, and goes on with alice's.
func TestLegacySessionBoundToSubject(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	legacy := func(tok, session, body string) (int, http.Header, string) {
		h := http.Header{}
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		h.Set("Authorization", "Bearer "+tok)
		if session != "" {
			h.Set("Mcp-Session-Id", session)
			h.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		return send(t, p.ts.URL+"/mcp", body, h)
	}
	alice := is.valid(p.aud, "incident:create")
	bobClaims := is.claims(p.aud, "incident:create")
	bobClaims["sub"] = "bob"
	bob := is.mint(bobClaims, is.kid, is.key, jose.RS256)
	status, h, resp := legacy(alice, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := h.Get("Mcp-Session-Id")
	if status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", status, resp)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	status, _, resp = legacy(bob, sid, list)
	if want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"forbidden: this session belongs to another caller"}}`; status != 403 || resp != want {
		t.Errorf("bob on alice's session: %d %s, want 403 %s", status, resp, want)
	}
	if status, _, resp = legacy(alice, sid, list); status != 200 || !strings.Contains(resp, "create_incident") {
		t.Errorf("alice on her session: %d %s", status, resp)
	}
}
