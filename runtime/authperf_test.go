package runtime

import (
	"context"
	"strings"
	"testing"
	"time"
)

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
	if d := denial(ctx, []string{"x"}); d.Challenge != "challenge x" {
		t.Fatalf("challenge %q", d.Challenge)
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
	if d := denial(WithAuthorization(context.Background(), p, nil), []string{"x"}); d.Challenge != "" {
		t.Fatal("nil challenge")
	}
}
