package authtest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpgen/mcpgen/runtime/auth/authtest"
)

// getJSON GETs u into v.
func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestTokenEndpoint: discovery leads to the JWKS, and a token from the token
// endpoint verifies against it with typ at+jwt and the claims asked for
// (resource and audience, scope, the test-only subject, the client id).
func TestTokenEndpoint(t *testing.T) {
	is := authtest.Start(t, &authtest.Options{Audience: "http://127.0.0.1:8080/mcp"})
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
		Token   string `json:"token_endpoint"`
	}
	getJSON(t, is.URL()+"/.well-known/openid-configuration", &meta)
	if meta.Issuer != is.URL() || meta.JWKSURI != is.URL()+authtest.PathJWKS {
		t.Fatalf("metadata %+v", meta)
	}
	var set jose.JSONWebKeySet
	getJSON(t, meta.JWKSURI, &set)

	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"agent"}, "subject": {"alice"},
		"scope": {"notes:read notes:write"}, "resource": {"https://a.example/mcp"}, "audience": {"https://b.example/mcp"}}
	resp, err := http.PostForm(meta.Token, form)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tr)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || tr.TokenType != "Bearer" {
		t.Fatalf("token: %d %+v %v", resp.StatusCode, tr, err)
	}
	tok, err := jwt.ParseSigned(tr.AccessToken, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	if typ := tok.Headers[0].ExtraHeaders[jose.HeaderType]; typ != "at+jwt" || tok.Headers[0].KeyID != is.KeyID() {
		t.Errorf("header typ %v kid %s", typ, tok.Headers[0].KeyID)
	}
	keys := set.Key(tok.Headers[0].KeyID)
	if len(keys) != 1 {
		t.Fatalf("the JWKS has no key %s", tok.Headers[0].KeyID)
	}
	var c struct {
		jwt.Claims
		Scope    string `json:"scope"`
		ClientID string `json:"client_id"`
	}
	if err := tok.Claims(keys[0].Key, &c); err != nil {
		t.Fatal(err)
	}
	if c.Issuer != is.URL() || c.Subject != "alice" || c.ClientID != "agent" || c.Scope != "notes:read notes:write" ||
		!slices.Equal([]string(c.Audience), []string{"https://a.example/mcp", "https://b.example/mcp"}) {
		t.Errorf("claims %+v", c)
	}

	// Other grants are refused; without a resource the default audience is used.
	resp, err = http.PostForm(meta.Token, url.Values{"grant_type": {"password"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("password grant: %d", resp.StatusCode)
	}
	claims, err := is.Claims(authtest.Token{})
	if err != nil || !slices.Equal(claims["aud"].([]string), []string{"http://127.0.0.1:8080/mcp"}) || claims["sub"] != "test-client" {
		t.Errorf("default claims %v %v", claims, err)
	}
}

// TestIntrospection: opaque tokens are answered with their token_use, an
// unknown one inactive; the endpoint wants its client credentials when set;
// SetDown makes every endpoint fail.
func TestIntrospection(t *testing.T) {
	is := authtest.Start(t, &authtest.Options{Audience: "https://rs.example/mcp", IntrospectionClientID: "rs", IntrospectionClientSecret: "pw"})
	refresh, err := is.Opaque(authtest.Token{Subject: "bob", Use: "refresh_token"})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(token, user string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, is.URL()+authtest.PathIntrospection, strings.NewReader(url.Values{"token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(user, "pw")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	if st, m := ask(refresh, "rs"); st != 200 || m["active"] != true || m["token_use"] != "refresh_token" || m["sub"] != "bob" {
		t.Errorf("refresh token: %d %v", st, m)
	}
	if st, m := ask("never-issued", "rs"); st != 200 || m["active"] != false {
		t.Errorf("unknown token: %d %v", st, m)
	}
	if st, _ := ask(refresh, "someone"); st != 401 {
		t.Errorf("wrong client: %d", st)
	}
	is.SetDown(http.StatusServiceUnavailable)
	if st, _ := ask(refresh, "rs"); st != 503 {
		t.Errorf("down: %d", st)
	}
	if n := is.Hits("introspect"); n != 4 {
		t.Errorf("hits %d, want 4", n)
	}
}
