package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// requiredScopes reads the {field} values in place: literals, several fields,
// |lower, escaped values and keys, and the values a scope cannot hold.
func TestRequiredScopesInPlace(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"]}`
	ts, err := compileScopes([]string{"lit", "x:{a}", "y:{b|lower}:{a}"}, json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		want []string // nil: an error
	}{
		{`{"a":"p1","b":"TeAm"}`, []string{"lit", "x:p1", "y:team:p1"}},
		{`{ "b" : "Q" , "a" : "z" }`, []string{"lit", "x:z", "y:q:z"}},
		{`{"a":"\u0070\u0031","b":"x"}`, []string{"lit", "x:p1", "y:x:p1"}},
		{`{"\u0061":"k","b":"x"}`, []string{"lit", "x:k", "y:x:k"}},
		{`{"a":1,"b":"x"}`, nil},
		{`{"a":"","b":"x"}`, nil},
		{`{"a":"p 1","b":"x"}`, nil},
		{`{"a":"p\"1","b":"x"}`, nil},
		{`{"a":"p\\1","b":"x"}`, nil},
		{`{"a":"{b}","b":"x"}`, nil},
		{`{"a":"é","b":"x"}`, nil},
		{`{"a":"p1"}`, nil},
		{`{"a":"` + strings.Repeat("v", 100) + `","b":"x"}`, []string{"lit", "x:" + strings.Repeat("v", 100), "y:x:" + strings.Repeat("v", 100)}},
	} {
		got, err := requiredScopes(ts, json.RawMessage(c.args))
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: got %q, want an error", c.args, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	// The strings returned do not alias the arguments.
	args := []byte(`{"a":"p1","b":"x"}`)
	got, _ := requiredScopes(ts, args)
	copy(args, strings.Repeat("#", len(args)))
	if got[1] != "x:p1" {
		t.Errorf("result aliases the arguments: %q", got)
	}
}

// The scope check of a call allocates the result and one string.
func TestRequiredScopesAllocs(t *testing.T) {
	ts, _ := compileScopes([]string{"incident:create:{severity}"}, json.RawMessage(incidentSchema))
	args := json.RawMessage(`{"severity":"p1","title":"Disk full"}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = requiredScopes(ts, args) }); n > 2 {
		t.Errorf("%v allocations, want at most 2", n)
	}
}

// WithAuthorization is WithPrincipal plus WithScopeChallenge, and passes on its
// parent's cancellation and values.
func TestWithAuthorization(t *testing.T) {
	type k struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), k{}, "v"))
	p := &Principal{Subject: "alice", Scopes: []string{"s"}}
	ctx := WithAuthorization(parent, p, func(req []string) string { return "challenge " + strings.Join(req, " ") })
	if PrincipalFrom(ctx) != p || ctx.Value(k{}) != "v" {
		t.Fatal("values lost")
	}
	if d := denial(ctx, []string{"x"}); d.challenge != "challenge x" {
		t.Fatalf("challenge %q", d.challenge)
	}
	child, cancelChild := context.WithTimeout(ctx, time.Hour)
	defer cancelChild()
	cancel()
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation not propagated")
	}
	if PrincipalFrom(WithAuthorization(context.Background(), nil, nil)) != nil {
		t.Fatal("nil principal")
	}
	if d := denial(WithAuthorization(context.Background(), p, nil), []string{"x"}); d.challenge != "" {
		t.Fatal("nil challenge")
	}
}
