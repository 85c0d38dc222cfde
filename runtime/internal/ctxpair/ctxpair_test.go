package ctxpair

import (
	"context"
	"testing"
)

type (
	keyA  struct{}
	keyB  struct{}
	other struct{}
)

// TestContext: both values under their keys, the parent's for others, the
// parent's cancellation, and the name.
func TestContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), other{}, "o"))
	c := &Context{Context: parent, K1: keyA{}, V1: 1, K2: keyB{}, V2: "two", Name: "WithPair"}
	if c.Value(keyA{}) != 1 || c.Value(keyB{}) != "two" || c.Value(other{}) != "o" || c.Value("nope") != nil {
		t.Fatalf("values: %v %v %v", c.Value(keyA{}), c.Value(keyB{}), c.Value(other{}))
	}
	child, stop := context.WithCancel(c)
	defer stop()
	cancel()
	<-child.Done()
	if got := (&Context{Context: context.Background(), Name: "X"}).String(); got != "context.Background.X" {
		t.Fatalf("String: %q", got)
	}
}
