package ledger

import (
	"context"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// TestPeek: a look-up without a claim finds a done key with the same
// arguments (its result) or other arguments (a conflict), and nothing for a
// free key or one still running; it never claims.
func TestPeek(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		l := New(st, Config{})
		ctx := context.Background()
		args, other := ArgsDigest([]byte(`{"a":1}`)), ArgsDigest([]byte(`{"a":2}`))
		if d := l.Peek(ctx, "alice", "write", "k1", args); d.Outcome != 0 {
			t.Errorf("free key: %v, want 0", d.Outcome)
		}
		if _, found, _ := st.Get(ctx, Key("alice", "write", "k1")); found {
			t.Fatal("Peek claimed the key")
		}
		d := l.Begin(ctx, "alice", "write", "k1", args, "act_1", false)
		if d.Outcome != Fresh {
			t.Fatalf("Begin: %v", d.Outcome)
		}
		if p := l.Peek(ctx, "alice", "write", "k1", args); p.Outcome != 0 {
			t.Errorf("running key, same arguments: %v, want 0 (the claim decides)", p.Outcome)
		}
		if p := l.Peek(ctx, "alice", "write", "k1", other); p.Outcome != Conflict {
			t.Errorf("running key, other arguments: %v, want Conflict", p.Outcome)
		}
		if err := d.Claim.Done(appendResult); err != nil {
			t.Fatal(err)
		}
		p := l.Peek(ctx, "alice", "write", "k1", args)
		if p.Outcome != Replayed || len(p.Result.Content) != 2 || string(p.Result.Structured) != `{"id":"n-1"}` {
			t.Errorf("done key, same arguments: %+v, want Replayed with the result", p)
		}
		if p := l.Peek(ctx, "alice", "write", "k1", other); p.Outcome != Conflict {
			t.Errorf("done key, other arguments: %v, want Conflict", p.Outcome)
		}
		if p := l.Peek(ctx, "bob", "write", "k1", other); p.Outcome != 0 {
			t.Errorf("another subject: %v, want 0", p.Outcome)
		}
	})
}
