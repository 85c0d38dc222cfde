package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// copying hides Memory's Owner and DigestStore methods: the ledger then takes
// the plain Store path (as on Redis).
type copying struct{ store.Store }

// ownerOnly hides Memory's DigestStore methods: the ledger then takes the
// Owner path with string keys.
type ownerOnly struct {
	store.Store
	store.Owner
}

// stores runs fn on the in-memory store, through each of the ledger's paths:
// digest keys and recycled claims (store.Memory), string keys on an Owner
// store, string keys on a plain Store.
func stores(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Run("memory", func(t *testing.T) { fn(t, store.NewMemory()) })
	t.Run("owner", func(t *testing.T) {
		m := store.NewMemory()
		fn(t, ownerOnly{m, m})
	})
	t.Run("copying", func(t *testing.T) { fn(t, copying{store.NewMemory()}) })
}

const resultJSON = `{"content":[{"type":"text","text":"done"},{"type":"text","text":"two"}],"structured":{"id":"n-1"},"meta":{"a":1,"dev.mcpgen/receipt":{"action_id":"act_x"}}}`

func appendResult(b []byte) ([]byte, error) { return append(b, resultJSON...), nil }

// TestLifecycle walks one key through claim, done, replay and conflict, and a
// released key through a new claim.
func TestLifecycle(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		l := New(st, Config{})
		ctx := context.Background()
		args, other := ArgsDigest([]byte(`{"a":1}`)), ArgsDigest([]byte(`{"a":2}`))
		d := l.Begin(ctx, Who{Subject: "alice"}, "write", "k1", args, "act_1", false)
		if d.Outcome != Fresh || d.Claim == nil || d.Claim.Action() != "act_1" {
			t.Fatalf("first call: %+v, want Fresh with a claim", d)
		}
		// A claim on the in-process store is held without renewals (its
		// record says leaseHeld); elsewhere the lease sweep renews it.
		renewed := 1
		if l.ds != nil {
			renewed = 0
		}
		if n := l.heldClaims(); n != renewed {
			t.Errorf("%d claims renewed, want %d (digest store %v)", n, renewed, l.ds != nil)
		}
		if raw, _, _ := st.Get(ctx, Key(Who{Subject: "alice"}, "write", "k1")); l.ds != nil && !bytes.Contains(raw, []byte(`"lease":`+strconv.FormatInt(leaseHeld, 10)+`}`)) {
			t.Errorf("held claim on the in-process store: %s, want lease %d", raw, int64(leaseHeld))
		}
		if err := d.Claim.Done(appendResult); err != nil {
			t.Fatal(err)
		}
		if n := l.heldClaims(); n != 0 {
			t.Errorf("%d claims renewed after Done, want 0", n)
		}
		// The record is under Key(subject, tool, key), as an earlier ledger wrote it.
		raw, ok, err := st.Get(ctx, Key(Who{Subject: "alice"}, "write", "k1"))
		if err != nil || !ok {
			t.Fatalf("record not under Key: %v %v", ok, err)
		}
		want := `{"state":"done","args":"` + args + `","action":"act_1","result":` + resultJSON + `}`
		if string(raw) != want {
			t.Errorf("record:\n%s\nwant\n%s", raw, want)
		}
		d = l.Begin(ctx, Who{Subject: "alice"}, "write", "k1", args, "act_1", false)
		if d.Outcome != Replayed {
			t.Fatalf("repeat: %v, want Replayed", d.Outcome)
		}
		got := d.Result
		if len(got.Content) != 2 || string(got.Content[1]) != `{"type":"text","text":"two"}` ||
			string(got.Structured) != `{"id":"n-1"}` || len(got.Meta) != 2 || got.Meta[0].Key != "a" ||
			got.Meta[1].Key != "dev.mcpgen/receipt" || string(got.Meta[1].Value) != `{"action_id":"act_x"}` {
			t.Errorf("stored result: %+v", got)
		}
		if d := l.Begin(ctx, Who{Subject: "alice"}, "write", "k1", other, "act_2", false); d.Outcome != Conflict {
			t.Errorf("other arguments: %v, want Conflict", d.Outcome)
		}
		if d := l.Begin(ctx, Who{Subject: "bob"}, "write", "k1", other, "act_3", false); d.Outcome != Fresh {
			t.Errorf("another subject's key: %v, want Fresh", d.Outcome)
		} else {
			d.Claim.Release()
		}
		if d := l.Begin(ctx, Who{Subject: "bob"}, "write", "k1", args, "act_4", false); d.Outcome != Fresh {
			t.Errorf("after Release: %v, want Fresh", d.Outcome)
		}
	})
}

// TestRunningAndLapsed: a live claim is in progress (after waiting), a lapsed one
// unknown, or taken over by a caller that can reconcile; an abandoned claim lapses.
func TestRunningAndLapsed(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		l := New(st, Config{Wait: 20 * time.Millisecond, Lease: time.Hour})
		ctx := context.Background()
		args := ArgsDigest([]byte(`{}`))
		first := l.Begin(ctx, Who{}, "w", "k", args, "act_first", false)
		if first.Outcome != Fresh {
			t.Fatal(first.Outcome)
		}
		start := time.Now()
		d := l.Begin(ctx, Who{}, "w", "k", args, "act_first", true)
		if d.Outcome != InProgress || d.Action != "act_first" {
			t.Fatalf("repeat while running: %+v, want InProgress with the action id", d)
		}
		// The polls sleep 1+2+4+8 ms before the next would pass Config.Wait; the
		// bound is lower, as timers on a loaded machine were seen to come out
		// short of it (13 ms; an answer without waiting takes well under 1 ms).
		if waited := time.Since(start); waited < 10*time.Millisecond {
			t.Errorf("in progress after %v, want a wait of about Config.Wait", waited)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if d := l.Begin(cctx, Who{}, "w", "k", args, "act_first", false); d.Outcome != InProgress {
			t.Errorf("cancelled caller: %v, want InProgress", d.Outcome)
		}
		// A waiter sees the first call's result as soon as it is recorded.
		l2 := New(st, Config{Wait: 5 * time.Second, Lease: time.Hour})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(20 * time.Millisecond)
			if err := first.Claim.Done(appendResult); err != nil {
				t.Error(err)
			}
		}()
		if d := l2.Begin(ctx, Who{}, "w", "k", args, "act_first", false); d.Outcome != Replayed {
			t.Errorf("waiter: %v, want Replayed", d.Outcome)
		}
		wg.Wait()

		// A claim whose process died: its lease is in the past.
		dead := AppendRunning(nil, args, "act_dead", time.Now().Add(-time.Second))
		if ok, err := st.PutIfAbsent(ctx, Key(Who{}, "w", "dead"), dead, time.Hour); err != nil || !ok {
			t.Fatal(ok, err)
		}
		if d := l.Begin(ctx, Who{}, "w", "dead", args, "act_new", false); d.Outcome != Unknown || d.Action != "act_dead" {
			t.Errorf("lapsed claim: %+v, want Unknown with the dead call's action id", d)
		}
		d = l.Begin(ctx, Who{}, "w", "dead", args, "act_new", true)
		if d.Outcome != Reconcile || d.Claim == nil {
			t.Fatalf("lapsed claim, reconciling caller: %+v, want Reconcile", d)
		}
		if d := l.Begin(ctx, Who{}, "w", "dead", args, "act_new", true); d.Outcome != InProgress {
			t.Errorf("while reconciling: %v, want InProgress (the claim was taken over)", d.Outcome)
		}
		if err := d.Claim.Done(appendResult); err != nil {
			t.Fatal(err)
		}
		if d := l.Begin(ctx, Who{}, "w", "dead", args, "act_new", false); d.Outcome != Replayed {
			t.Errorf("after reconciling: %v, want Replayed", d.Outcome)
		}

		// An abandoned claim is no longer renewed: once its lease passes, unknown.
		short := New(st, Config{Lease: 30 * time.Millisecond, Wait: time.Millisecond})
		d = short.Begin(ctx, Who{}, "w", "gone", args, "act_gone", false)
		d.Claim.Abandon()
		time.Sleep(60 * time.Millisecond)
		if d := short.Begin(ctx, Who{}, "w", "gone", args, "act_gone", false); d.Outcome != Unknown {
			t.Errorf("abandoned claim: %v, want Unknown", d.Outcome)
		}
	})
}

// TestLeaseSweep: the ledger's one sweep renews a claim held longer than its
// lease, so a repeat finds it running, not lapsed; the sweep stops with the claims.
func TestLeaseSweep(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		l := New(st, Config{Lease: 60 * time.Millisecond, Wait: time.Millisecond})
		ctx := context.Background()
		args := ArgsDigest([]byte(`{}`))
		var claims []*Claim
		for i := range 3 {
			d := l.Begin(ctx, Who{}, "w", "k"+strconv.Itoa(i), args, "act_"+strconv.Itoa(i), false)
			claims = append(claims, d.Claim)
		}
		time.Sleep(200 * time.Millisecond) // more than three leases
		for i := range 3 {
			if d := l.Begin(ctx, Who{}, "w", "k"+strconv.Itoa(i), args, "act_x", false); d.Outcome != InProgress {
				t.Errorf("claim %d after 3 leases: %v, want InProgress (renewed)", i, d.Outcome)
			}
		}
		claims[1].Release()
		if err := claims[0].Done(appendResult); err != nil {
			t.Errorf("Done after renewals: %v", err)
		}
		claims[2].Abandon()
		if n := l.heldClaims(); n != 0 {
			t.Errorf("%d claims still renewed", n)
		}
		time.Sleep(100 * time.Millisecond)
		l.leases.mu.Lock()
		armed := l.leases.armed
		l.leases.mu.Unlock()
		if armed {
			t.Error("the sweep is still armed with no claim held")
		}
		if d := l.Begin(ctx, Who{}, "w", "k2", args, "act_2", false); d.Outcome != Unknown {
			t.Errorf("abandoned claim: %v, want Unknown", d.Outcome)
		}
	})
}

// TestBadRecords: a record the ledger cannot read is a store error, never a
// run of the handler or a panic.
func TestBadRecords(t *testing.T) {
	ctx := context.Background()
	args := ArgsDigest([]byte(`{}`))
	for _, rec := range []string{
		``, `null`, `[1]`, `{"state":"done"`, `{"state":"weird","args":"` + args + `"}`,
		`{"state":"done","args":"` + args + `","action":"a"}`,
		`{"state":"done","args":"` + args + `","action":"a","result":{"content":"x"}}`,
		`{"state":"done","args":"` + args + `","action":"a","result":[1]}`,
		`{"state":"running","args":"` + args + `","action":"a","lease":"soon"}`,
		`{"state":"running","args":"a\u0062","action":"a","lease":1}`,
	} {
		st := store.NewMemory()
		st.PutIfAbsent(ctx, Key(Who{}, "w", "k"), []byte(rec), time.Hour)
		l := New(st, Config{Wait: time.Millisecond})
		if d := l.Begin(ctx, Who{}, "w", "k", args, "act", true); d.Outcome != StoreError || d.Err == nil {
			t.Errorf("record %s: %+v, want StoreError", rec, d)
		}
	}
}

// TestDigests checks Key, ActionID and ArgsDigest against their first
// (hash.Hash) implementation: ledgers and receipts keep their keys and ids.
func TestDigests(t *testing.T) {
	old := func(prefix string, n int, parts ...string) string {
		h := sha256.New()
		for _, part := range parts {
			h.Write([]byte(strconv.Itoa(len(part))))
			h.Write([]byte{':'})
			h.Write([]byte(part))
		}
		return prefix + hex.EncodeToString(h.Sum(nil)[:n])
	}
	long := strings.Repeat("é", 300)
	at := func(n int) string { return strings.Repeat("k", n) } // lengths where the decimal form gains a digit
	for _, p := range [][4]string{{"note", "", "abc", ""}, {"t", "alice", strings.Repeat("0", 64), "key-1"}, {long, long, "", long},
		{at(9), at(10), at(99), at(100)}, {at(999), at(1000), at(10), at(9)}} {
		if got, want := ActionID(p[0], Who{Subject: p[1]}, p[2], p[3]), old("act_", 16, p[0], p[1], p[2], p[3]); got != want {
			t.Errorf("ActionID%q = %s, want %s", p, got, want)
		}
		if got, want := Key(Who{Subject: p[0]}, p[1], p[3]), old("mcpgen:idem:", 20, p[0], p[1], p[3]); got != want {
			t.Errorf("Key%q = %s, want %s", p, got, want)
		}
	}
	// A client is one more part: keys of one subject's clients differ, and a
	// principal without a client keeps the keys above.
	if got, want := Key(Who{Subject: "alice", Client: "app"}, "t", "k"), old("mcpgen:idem:", 20, "alice", "t", "k", "app"); got != want || got == Key(Who{Subject: "alice"}, "t", "k") {
		t.Errorf("Key with a client = %s, want %s", got, want)
	}
	if got, want := ActionID("t", Who{Subject: "alice", Client: "app"}, "d", "k"), old("act_", 16, "t", "alice", "d", "k", "app"); got != want {
		t.Errorf("ActionID with a client = %s, want %s", got, want)
	}
	sum := sha256.Sum256([]byte(`{"a":"x","b":1}`))
	if got := ArgsDigest([]byte(`{"b":1,"a":"x"}`)); got != hex.EncodeToString(sum[:]) {
		t.Errorf("ArgsDigest = %s", got)
	}
}

// TestHandedOver: a record handed to an Owner store (kept without a copy, its
// key sharing its buffer) is never changed afterwards, and the claim's key is Key.
func TestHandedOver(t *testing.T) {
	m := store.NewMemory()
	st := ownerOnly{m, m}
	l := New(st, Config{})
	ctx := context.Background()
	args := ArgsDigest([]byte(`{}`))
	d := l.Begin(ctx, Who{}, "w", "k", args, "act", false)
	if d.Claim.key != Key(Who{}, "w", "k") {
		t.Errorf("claim key %q", d.Claim.key)
	}
	held, _, _ := st.GetShared(ctx, Key(Who{}, "w", "k"))
	before := bytes.Clone(held)
	if err := d.Claim.Done(appendResult); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(held, before) {
		t.Error("the claim's buffer changed after it was handed to the store")
	}
}

// TestRecycledClaims: on store.Memory (digest keys) claims are recycled after
// Done, Release and Abandon; a recycled claim serves its next key, not its last.
func TestRecycledClaims(t *testing.T) {
	st := store.NewMemory()
	l := New(st, Config{})
	ctx := context.Background()
	args := ArgsDigest([]byte(`{}`))
	for i := range 200 {
		key := "k" + strconv.Itoa(i)
		d := l.Begin(ctx, Who{}, "w", key, args, "act_"+key, false)
		if d.Outcome != Fresh {
			t.Fatalf("%s: %v", key, d.Outcome)
		}
		switch i % 3 {
		case 0:
			if err := d.Claim.Done(appendResult); err != nil {
				t.Fatal(err)
			}
		case 1:
			d.Claim.Release()
		default:
			d.Claim.Abandon()
		}
		raw, ok, _ := st.Get(ctx, Key(Who{}, "w", key))
		switch rec, _ := parseRecord(raw); {
		case i%3 == 1 && ok:
			t.Fatalf("%s: released, still %s", key, raw)
		case i%3 == 0 && (string(rec.state) != stateDone || string(rec.action) != "act_"+key):
			t.Fatalf("%s: %s", key, raw)
		case i%3 == 2 && (string(rec.state) != stateRunning || string(rec.action) != "act_"+key):
			t.Fatalf("%s: %s", key, raw)
		}
	}
	if n := l.heldClaims(); n != 0 {
		t.Fatalf("%d claims still renewed", n)
	}
}

// TestMembers checks the scanner against json.Unmarshal into a map.
func TestMembers(t *testing.T) {
	old := func(args json.RawMessage, name string) (str, id string) {
		var m map[string]json.RawMessage
		if json.Unmarshal(args, &m) != nil {
			return "", ""
		}
		_ = json.Unmarshal(m[name], &str)
		raw := bytes.TrimSpace(m[name])
		switch {
		case len(raw) == 0:
		case json.Unmarshal(raw, &id) == nil:
		case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
			id = string(raw)
		}
		return str, id
	}
	for _, in := range []string{
		`{"k":"v"}`, ` { "a" : 1 , "k" : "v\u0041" } `, `{"k":"a","k":"b"}`, `{"k":12.50}`, `{"k":-3}`,
		`{"k":null}`, `{"k":true}`, `{"k":{"k":"x"}}`, `{"\u006b":"esc"}`, `[1]`, `null`, `"k"`, `{"k":"v"`, ``,
		`{"x":"k","k":"<&>"}`, `{"k":"v"} x`,
	} {
		wantS, wantID := old(json.RawMessage(in), "k")
		if s, id := stringMember([]byte(in), "k"), IDMember([]byte(in), "k"); s != wantS || id != wantID {
			t.Errorf("%s: stringMember %q IDMember %q, want %q %q", in, s, id, wantS, wantID)
		}
	}
}

// TestKeyArgument: the key of arguments the schema accepted, as stringMember
// finds it.
func TestKeyArgument(t *testing.T) {
	for _, in := range []string{`{"k":"v"}`, ` { "a" : 1 , "k" : "v\u0041" } `, `{"k":"a","k":"b"}`, `{"k":1}`, `{}`, `{"\u006b":"esc"}`} {
		if got, want := KeyArgument([]byte(in), "k"), stringMember([]byte(in), "k"); got != want {
			t.Errorf("%s: KeyArgument %q, want %q", in, got, want)
		}
	}
}

// TestKeyArgumentNoCopy: a key without escapes is read in place (no
// allocation); one with escapes is decoded.
func TestKeyArgumentNoCopy(t *testing.T) {
	args := []byte(`{"note":"hello","k":"key-123"}`)
	var got string
	if n := testing.AllocsPerRun(100, func() { got = KeyArgument(args, "k") }); n != 0 || got != "key-123" {
		t.Fatalf("KeyArgument = %q with %v allocations, want key-123 with none", got, n)
	}
	if got := KeyArgument([]byte(`{"k":"a\"b"}`), "k"); got != `a"b` {
		t.Fatalf("escaped key: %q", got)
	}
	if got := KeyArgument([]byte(`{"k":""}`), "k"); got != "" {
		t.Fatalf("empty key: %q", got)
	}
}
