package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpgen/mcpgen/runtime/auth/authtest"
)

// fakeClock is a Config.Now the test moves.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Now().UnixNano())
	return c
}
func (c *fakeClock) now() time.Time       { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) add(d time.Duration)  { c.ns.Add(int64(d)) }
func (c *fakeClock) setOn(cfg *Config)    { cfg.Now = c.now }
func (c *fakeClock) longLived() time.Time { return c.now().Add(24 * time.Hour) }
func (is *testIssuer) at(c map[string]any, exp time.Time) map[string]any {
	c["exp"] = exp.Unix()
	return c
}

// call sends a create_incident p1 call with token and returns status, headers, body.
func (p *protected) call(t *testing.T, token string) (int, http.Header, string) {
	t.Helper()
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+token)
	return send(t, p.ts.URL+"/mcp", body, hdr)
}

// TestIssuerOutage (issue 32, defect 4): while the authorization server is
// down and no key is cached, a valid JWT gets 503 with Retry-After (not 401);
// further requests within the backoff do not reach the issuer; once it is back
// the next request after the backoff is served (not a minute later); keys
// already cached keep verifying through a later outage, even past MaxKeyAge.
func TestIssuerOutage(t *testing.T) {
	is := newTestIssuer(t)
	clock := newFakeClock()
	p := newProtected(t, is, clock.setOn)
	is.SetDown(http.StatusServiceUnavailable)
	tok := is.mint(is.at(is.claims(p.aud, "incident:create:p1"), clock.longLived()), is.kid, is.key, jose.RS256)

	status, h, body := p.call(t, tok)
	if status != 503 || h.Get("Retry-After") != "1" || !strings.Contains(body, `"temporarily_unavailable"`) {
		t.Fatalf("issuer down, no keys: %d Retry-After %q %s, want 503 Retry-After 1", status, h.Get("Retry-After"), body)
	}
	hits := is.Hits("metadata")
	for range 5 {
		if status, _, _ := p.call(t, tok); status != 503 {
			t.Fatalf("within the backoff: status %d, want 503", status)
		}
	}
	if n := is.Hits("metadata"); n != hits {
		t.Errorf("the issuer was asked %d more times within the backoff, want 0", n-hits)
	}

	is.SetDown(0)
	clock.add(2 * time.Second)
	if status, _, body := p.call(t, tok); status != 200 || !strings.Contains(body, "opened by alice") {
		t.Fatalf("issuer back, 2 s later: %d %s, want 200", status, body)
	}

	// Keys cached; a second outage, past MaxKeyAge: the cached key verifies a
	// new token (not in the verified-token cache), and the failed refresh is
	// not retried on every request.
	is.SetDown(http.StatusServiceUnavailable)
	clock.add(2 * time.Hour)
	jwks := is.Hits("jwks") + is.Hits("metadata")
	for i := range 4 {
		c := is.at(is.claims(p.aud, "incident:create:p1"), clock.longLived())
		c["jti"] = fmt.Sprint("outage-", i)
		if status, _, body := p.call(t, is.mint(c, is.kid, is.key, jose.RS256)); status != 200 {
			t.Fatalf("stale cached key during an outage: %d %s, want 200", status, body)
		}
	}
	if n := is.Hits("jwks") + is.Hits("metadata"); n-jwks > 1 {
		t.Errorf("%d fetch attempts during the backoff, want at most 1", n-jwks)
	}
}

// TestKeyRefreshHoldsNoLock (issue 32, risk 11): a JWKS refresh in progress
// (an unknown kid, the issuer slow to answer) does not hold up requests whose
// key is cached.
func TestKeyRefreshHoldsNoLock(t *testing.T) {
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	ts := httptest.NewServer(nil)
	defer ts.Close()
	inner, err := authtest.New(ts.URL, &authtest.Options{Key: key, KeyID: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	var block atomic.Bool
	entered, release := make(chan struct{}, 1), make(chan struct{})
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == authtest.PathJWKS && block.Load() {
			entered <- struct{}{}
			<-release
		}
		inner.Handler().ServeHTTP(w, r)
	})
	is := &testIssuer{Issuer: inner, t: t, key: key, kid: "k1"}
	clock := newFakeClock()
	p := newProtected(t, is, clock.setOn)
	if status, _, body := p.call(t, is.valid(p.aud, "incident:create:p1")); status != 200 {
		t.Fatalf("warm-up: %d %s", status, body)
	}
	clock.add(2 * time.Minute) // past RefreshInterval: an unknown kid refreshes
	block.Store(true)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	unknown := is.mint(is.claims(p.aud, "incident:create:p1"), "k9", other, jose.RS256)
	done := make(chan int)
	go func() {
		body, hdr := modernCall("p1")
		hdr.Set("Authorization", "Bearer "+unknown)
		req, _ := http.NewRequest(http.MethodPost, p.ts.URL+"/mcp", strings.NewReader(body))
		req.Header = hdr
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the unknown kid did not refresh the JWKS")
	}
	// The refresh hangs at the issuer. A new token with the cached kid must be
	// served now, before the refresh is released (a lock held over the fetch
	// would make it wait until then: the client gives up after 10 s).
	c := is.claims(p.aud, "incident:create:p1")
	c["jti"] = "second"
	body, hdr := modernCall("p1")
	hdr.Set("Authorization", "Bearer "+is.mint(c, is.kid, is.key, jose.RS256))
	req, _ := http.NewRequest(http.MethodPost, p.ts.URL+"/mcp", strings.NewReader(body))
	req.Header = hdr
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	close(release)
	if err != nil {
		t.Fatalf("a request with a cached key waited for the JWKS refresh: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("cached key during a refresh: %d", resp.StatusCode)
	}
	if st := <-done; st != 401 {
		t.Errorf("unknown kid after the refresh: %d, want 401", st)
	}
}

// TestIntrospectionMetadataBackoff (issue 32, risk 11): with the introspection
// endpoint discovered from the issuer's metadata and the issuer down, opaque
// tokens get 503 with Retry-After and the metadata is not fetched again for
// each of them; once the issuer is back they are introspected.
func TestIntrospectionMetadataBackoff(t *testing.T) {
	is := newTestIssuer(t)
	clock := newFakeClock()
	p := newProtected(t, is, clock.setOn)
	is.SetDown(http.StatusServiceUnavailable)
	for i := range 5 {
		status, h, _ := p.call(t, "ory_at_opaque_during_outage")
		if status != 503 || h.Get("Retry-After") == "" {
			t.Fatalf("request %d: %d Retry-After %q, want 503 with Retry-After", i, status, h.Get("Retry-After"))
		}
	}
	if n := is.Hits("metadata"); n != 2 { // one attempt: RFC 8414, then OpenID Connect
		t.Errorf("metadata fetched %d times for 5 requests within the backoff, want 2", n)
	}
	is.SetDown(0)
	clock.add(2 * time.Second)
	tok, err := is.Opaque(authtest.Token{Subject: "alice", Audience: []string{p.aud}, Scopes: []string{"incident:create"}})
	if err != nil {
		t.Fatal(err)
	}
	if status, _, body := p.call(t, tok); status != 200 || !strings.Contains(body, "opened by alice") {
		t.Fatalf("issuer back: %d %s", status, body)
	}
}

// TestPlainHTTPIssuerRefused (issue 32): an http:// issuer or introspection
// endpoint on a host that is not loopback is refused by New unless
// AllowInsecureHTTP says so; loopback http (a local test issuer) is accepted.
func TestPlainHTTPIssuerRefused(t *testing.T) {
	aud := "https://mcp.example.com/mcp"
	for _, tc := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{Issuer: "http://as.example.com"}, false},
		{Config{Issuer: "http://10.0.0.5:4444"}, false},
		{Config{Issuer: "ftp://as.example.com"}, false},
		{Config{Issuer: "https://user:pw@as.example.com"}, false},
		{Config{Issuer: "https://as.example.com", IntrospectionURL: "http://as.example.com/introspect"}, false},
		{Config{Issuer: "http://as.example.com", AllowInsecureHTTP: true}, true},
		{Config{Issuer: "http://127.0.0.1:4444"}, true},
		{Config{Issuer: "http://[::1]:4444"}, true},
		{Config{Issuer: "http://localhost:4444"}, true},
		{Config{Issuer: "https://as.example.com", IntrospectionURL: "https://as.example.com/introspect"}, true},
	} {
		tc.cfg.Audience = aud
		tc.cfg.Logger = slogTo(&strings.Builder{})
		_, err := New(nil, tc.cfg)
		if (err == nil) != tc.ok {
			t.Errorf("New(issuer %s, introspection %q, allow %v): err %v, want ok=%v", tc.cfg.Issuer, tc.cfg.IntrospectionURL, tc.cfg.AllowInsecureHTTP, err, tc.ok)
		}
	}
}

// TestDiscoveredPlainHTTPEndpointRefused (issue 32): a jwks_uri the issuer's
// metadata names over plain HTTP to a host that is not loopback is not used
// (503, the error logged), though it would answer.
func TestDiscoveredPlainHTTPEndpointRefused(t *testing.T) {
	is := newTestIssuer(t)
	addr := strings.TrimPrefix(is.URL(), "http://")
	// Every host name resolves to the test issuer, as a DNS the attacker
	// controls would make it.
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	for _, allow := range []bool{false, true} {
		var logs strings.Builder
		p := newProtected(t, is, func(c *Config) {
			c.HTTPClient, c.Logger, c.AllowInsecureHTTP = client, slogTo(&logs), allow
		})
		doc := is.Metadata()
		doc["jwks_uri"] = "http://keys.example.com" + authtest.PathJWKS
		is.SetMetadata(doc)
		status, _, body := p.call(t, is.valid(p.aud, "incident:create:p1"))
		if !allow && (status != 503 || !strings.Contains(logs.String(), "plain HTTP")) {
			t.Errorf("http jwks_uri: %d %s, log %s; want 503 and the reason logged", status, body, logs.String())
		}
		if allow && status != 200 {
			t.Errorf("http jwks_uri with AllowInsecureHTTP: %d %s, want 200", status, body)
		}
	}
}

// TestJWTTypeHeader (issue 32): RFC 9068's typ. at+jwt and application/at+jwt
// pass; typ JWT, a missing typ or another type are refused unless JWTTypes
// lists them (JWT standing for a missing typ too).
func TestJWTTypeHeader(t *testing.T) {
	is := newTestIssuer(t)
	strict := newProtected(t, is, nil)
	lenient := newProtected(t, is, func(c *Config) { c.JWTTypes = []string{"JWT"} })
	for _, tc := range []struct {
		typ             string
		strict, lenient int
	}{
		{"", 200, 200}, // authtest's default: at+jwt
		{"application/at+jwt", 200, 200},
		{"AT+JWT", 200, 200},
		{"JWT", 401, 200},
		{"-", 401, 200}, // no typ header
		{"application/jwt", 401, 200},
		{"id_token+jwt", 401, 401},
	} {
		for _, p := range []*protected{strict, lenient} {
			want := tc.strict
			if p == lenient {
				want = tc.lenient
			}
			tok, err := is.Sign(is.claims(p.aud, "incident:create:p1"), authtest.Header{Typ: tc.typ})
			if err != nil {
				t.Fatal(err)
			}
			status, h, _ := p.call(t, tok)
			if status != want {
				t.Errorf("typ %q (JWTTypes %v): %d, want %d", tc.typ, p.rs.cfg.JWTTypes, status, want)
			}
			if want == 401 && !strings.Contains(h.Get("WWW-Authenticate"), "typ must be at+jwt") {
				t.Errorf("typ %q: challenge %s", tc.typ, h.Get("WWW-Authenticate"))
			}
		}
	}
}

// TestIntrospectionAccessTokenShapes: the answers real servers give for access
// tokens pass the token-type check: Ory Hydra's (token_use access_token,
// token_type Bearer, iss with a trailing slash), Keycloak's (typ Bearer), and
// an answer that names no type at all.
func TestIntrospectionAccessTokenShapes(t *testing.T) {
	is := newTestIssuer(t)
	p := newProtected(t, is, nil)
	for name, extra := range map[string]map[string]any{
		"hydra":    {"token_use": "access_token", "token_type": "Bearer", "iss": is.URL() + "/"},
		"keycloak": {"typ": "Bearer", "token_type": "Bearer"},
		"minimal":  {},
	} {
		a := map[string]any{"active": true, "sub": "alice", "scope": "incident:create:p1",
			"aud": []string{p.aud}, "exp": time.Now().Add(time.Hour).Unix()}
		for k, v := range extra {
			a[k] = v
		}
		is.SetIntrospection("tok_"+name, a)
		if status, _, body := p.call(t, "tok_"+name); status != 200 {
			t.Errorf("%s access token: %d %s", name, status, body)
		}
	}
}
