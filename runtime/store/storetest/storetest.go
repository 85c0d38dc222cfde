// Package storetest is the contract every store.Store implementation passes: the
// same tests run against the in-memory store and against a real Redis.
package storetest

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// Run runs the contract against the store s. Keys are prefixed with prefix so that
// runs sharing a server do not meet. It runs twice: with short keys, and (the
// subtest DigestKeys) with keys shaped like the idempotency ledger's, a prefix
// ending in ':' and 40 lowercase hex digits, which store.Memory keeps apart.
func Run(t *testing.T, s store.Store, prefix string) {
	run(t, s, func(name string) string { return prefix + name })
	t.Run("DigestKeys", func(t *testing.T) {
		run(t, s, func(name string) string {
			sum := sha1.Sum([]byte(name))
			return prefix + "dk:" + hex.EncodeToString(sum[:])
		})
	})
}

func run(t *testing.T, s store.Store, k func(string) string) {
	ctx := context.Background()
	t.Run("PutIfAbsent", func(t *testing.T) {
		if ok, err := s.PutIfAbsent(ctx, k("p"), []byte("one"), time.Hour); err != nil || !ok {
			t.Fatalf("first put: %v %v, want true", ok, err)
		}
		if ok, err := s.PutIfAbsent(ctx, k("p"), []byte("two"), time.Hour); err != nil || ok {
			t.Fatalf("second put: %v %v, want false", ok, err)
		}
		mustGet(t, s, k("p"), "one")
		if _, ok, err := s.Get(ctx, k("absent")); err != nil || ok {
			t.Fatalf("get absent: %v %v", ok, err)
		}
	})
	t.Run("CompareAndSet", func(t *testing.T) {
		if ok, err := s.CompareAndSet(ctx, k("c"), []byte("x"), []byte("y"), time.Hour); err != nil || ok {
			t.Fatalf("CAS on a missing key: %v %v, want false", ok, err)
		}
		mustPut(t, s, k("c"), "a")
		if ok, err := s.CompareAndSet(ctx, k("c"), []byte("b"), []byte("z"), time.Hour); err != nil || ok {
			t.Fatalf("CAS with a wrong old value: %v %v, want false", ok, err)
		}
		if ok, err := s.CompareAndSet(ctx, k("c"), []byte("a"), []byte("b"), time.Hour); err != nil || !ok {
			t.Fatalf("CAS with the right old value: %v %v, want true", ok, err)
		}
		mustGet(t, s, k("c"), "b")
	})
	t.Run("Delete", func(t *testing.T) {
		mustPut(t, s, k("d"), "v")
		if err := s.Delete(ctx, k("d")); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Get(ctx, k("d")); ok {
			t.Fatal("value still there after Delete")
		}
		if err := s.Delete(ctx, k("d")); err != nil {
			t.Fatalf("delete of a missing key: %v", err)
		}
		mustPut(t, s, k("d"), "again") // a deleted key can be put again
	})
	t.Run("BinaryValues", func(t *testing.T) {
		v := []byte{0, 1, 2, 0xff, '\n', '"'}
		if ok, err := s.PutIfAbsent(ctx, k("b"), v, time.Hour); err != nil || !ok {
			t.Fatal(ok, err)
		}
		got, _, err := s.Get(ctx, k("b"))
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("got %q %v, want %q", got, err, v)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		if ok, err := s.PutIfAbsent(ctx, k("e"), []byte("v"), 20*time.Millisecond); err != nil || !ok {
			t.Fatal(ok, err)
		}
		waitGone(t, s, k("e")) // bounded wait, no timing asserted
		if ok, err := s.PutIfAbsent(ctx, k("e"), []byte("w"), time.Hour); err != nil || !ok {
			t.Fatalf("put after expiry: %v %v, want true", ok, err)
		}
		// CompareAndSet sets the new expiry.
		if ok, err := s.CompareAndSet(ctx, k("e"), []byte("w"), []byte("x"), 20*time.Millisecond); err != nil || !ok {
			t.Fatal(ok, err)
		}
		waitGone(t, s, k("e"))
	})
	t.Run("OnePutWins", func(t *testing.T) {
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.PutIfAbsent(ctx, k("race"), []byte(strconv.Itoa(i)), time.Hour)
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Fatalf("%d of 64 concurrent puts won, want 1", n)
		}
	})
	t.Run("CompareAndSetCounter", func(t *testing.T) {
		mustPut(t, s, k("n"), "0")
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 8 {
					for {
						old, _, err := s.Get(ctx, k("n"))
						if err != nil {
							t.Error(err)
							return
						}
						n, _ := strconv.Atoi(string(old))
						ok, err := s.CompareAndSet(ctx, k("n"), old, []byte(strconv.Itoa(n+1)), time.Hour)
						if err != nil {
							t.Error(err)
							return
						}
						if ok {
							break
						}
					}
				}
			}()
		}
		wg.Wait()
		mustGet(t, s, k("n"), "128") // no lost update
	})
	if o, ok := s.(store.Owner); ok {
		t.Run("Owner", func(t *testing.T) {
			val := []byte("owned")
			if ok, err := o.PutIfAbsentOwned(ctx, k("o"), val, time.Hour); err != nil || !ok {
				t.Fatalf("owned put: %v %v, want true", ok, err)
			}
			if ok, err := o.PutIfAbsentOwned(ctx, k("o"), []byte("other"), time.Hour); err != nil || ok {
				t.Fatalf("second owned put: %v %v, want false", ok, err)
			}
			mustGet(t, s, k("o"), "owned")
			shared, ok, err := o.GetShared(ctx, k("o"))
			if err != nil || !ok || string(shared) != "owned" {
				t.Fatalf("GetShared: %q %v %v", shared, ok, err)
			}
			if ok, err := o.CompareAndSetOwned(ctx, k("o"), []byte("nope"), []byte("x"), time.Hour); err != nil || ok {
				t.Fatalf("owned CAS with a wrong old value: %v %v, want false", ok, err)
			}
			if ok, err := o.CompareAndSetOwned(ctx, k("o"), shared, []byte("next"), time.Hour); err != nil || !ok {
				t.Fatalf("owned CAS: %v %v, want true", ok, err)
			}
			if got, _, _ := o.GetShared(ctx, k("o")); string(got) != "next" {
				t.Fatalf("after owned CAS: %q", got)
			}
			// Get still hands out a copy: changing it leaves the store's value.
			got, _, _ := s.Get(ctx, k("o"))
			got[0] = 'X'
			mustGet(t, s, k("o"), "next")
		})
	}
	if ds, ok := s.(store.DigestStore); ok {
		t.Run("DigestStore", func(t *testing.T) { runDigest(t, s, ds, k) })
	}
	if ps, ok := s.(store.PubSub); ok {
		t.Run("PubSub", func(t *testing.T) { runPubSub(t, ps, k) })
	}
}

// runDigest checks that a DigestStore's digest methods and its string keys
// reach the same entries, and that the values it returns are copies.
func runDigest(t *testing.T, s store.Store, ds store.DigestStore, k func(string) string) {
	ctx := context.Background()
	for _, prefix := range []string{k("dg:"), "no-colon"} {
		d := sha1.Sum([]byte(prefix))
		key := prefix + hex.EncodeToString(d[:])
		buf := []byte("one")
		if ok, err := ds.PutIfAbsentDigest(ctx, prefix, &d, buf, time.Hour); err != nil || !ok {
			t.Fatalf("%s: digest put: %v %v", prefix, ok, err)
		}
		copy(buf, "xxx") // the store copied it
		mustGet(t, s, key, "one")
		if ok, err := s.PutIfAbsent(ctx, key, []byte("two"), time.Hour); err != nil || ok {
			t.Fatalf("%s: put under the string form: %v %v, want false", prefix, ok, err)
		}
		if ok, err := ds.CompareAndSetDigest(ctx, prefix, &d, []byte("two"), []byte("three"), time.Hour); err != nil || ok {
			t.Fatalf("%s: digest CAS with a wrong old value: %v %v", prefix, ok, err)
		}
		if ok, err := ds.CompareAndSetDigest(ctx, prefix, &d, []byte("one"), []byte("three"), time.Hour); err != nil || !ok {
			t.Fatalf("%s: digest CAS: %v %v", prefix, ok, err)
		}
		got, ok, err := ds.GetDigest(ctx, prefix, &d, []byte("pre:"))
		if err != nil || !ok || string(got) != "pre:three" {
			t.Fatalf("%s: GetDigest: %q %v %v", prefix, got, ok, err)
		}
		got[4] = 'X'
		mustGet(t, s, key, "three")
		if ok, err := s.CompareAndSet(ctx, key, []byte("three"), []byte("four"), time.Hour); err != nil || !ok {
			t.Fatalf("%s: CAS under the string form: %v %v", prefix, ok, err)
		}
		if got, ok, _ := ds.GetDigest(ctx, prefix, &d, nil); !ok || string(got) != "four" {
			t.Fatalf("%s: GetDigest after CAS: %q %v", prefix, got, ok)
		}
		if err := ds.DeleteDigest(ctx, prefix, &d); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Get(ctx, key); ok {
			t.Fatalf("%s: still there after DeleteDigest", prefix)
		}
		if _, ok, _ := ds.GetDigest(ctx, prefix, &d, nil); ok {
			t.Fatalf("%s: GetDigest finds a deleted key", prefix)
		}
	}
}

// runPubSub is the publish/subscribe part of the contract (change
// notifications across replicas rely on it): every subscriber of a channel
// gets each message once, in order, bytes intact; other channels get nothing;
// a cancelled subscription's channel is closed.
func runPubSub(t *testing.T, ps store.PubSub, k func(string) string) {
	ctx := context.Background()
	if err := ps.Publish(ctx, k("nobody"), []byte("x")); err != nil {
		t.Fatalf("publish with no subscriber: %v", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	one, err := ps.Subscribe(sctx, k("chan"))
	if err != nil {
		t.Fatal(err)
	}
	two, err := ps.Subscribe(sctx, k("chan"))
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithCancel(ctx)
	other, err := ps.Subscribe(octx, k("other"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := [][]byte{[]byte("m0"), {0, 1, 0xff, '\n', '"'}, []byte(`{"json":true}`)}
	for _, m := range msgs {
		if err := ps.Publish(ctx, k("chan"), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := ps.Publish(ctx, k("other"), []byte("last")); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]<-chan []byte{"first": one, "second": two} {
		for i, want := range msgs {
			if got := recv(t, ch); !bytes.Equal(got, want) {
				t.Fatalf("%s subscriber, message %d: got %q, want %q", name, i, got, want)
			}
		}
	}
	// The other channel's first message is its own: nothing of "chan" leaked.
	if got := recv(t, other); string(got) != "last" {
		t.Fatalf("other channel: got %q, want %q", got, "last")
	}
	ocancel()
	for range other { // closed once its ctx is done
	}
	cancel()
	for range one {
	}
	for range two {
	}
}

// recv returns the next message of ch, failing after a generous bound.
func recv(t *testing.T, ch <-chan []byte) []byte {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed early")
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message within 10s")
	}
	return nil
}

func mustPut(t *testing.T, s store.Store, key, val string) {
	t.Helper()
	if ok, err := s.PutIfAbsent(context.Background(), key, []byte(val), time.Hour); err != nil || !ok {
		t.Fatalf("put %s: %v %v", key, ok, err)
	}
}

func mustGet(t *testing.T, s store.Store, key, want string) {
	t.Helper()
	got, ok, err := s.Get(context.Background(), key)
	if err != nil || !ok || string(got) != want {
		t.Fatalf("get %s: %q %v %v, want %q", key, got, ok, err, want)
	}
}

// waitGone polls until key expired; it fails after a generous bound.
func waitGone(t *testing.T, s store.Store, key string) {
	t.Helper()
	for i := 0; ; i++ {
		_, ok, err := s.Get(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		if i > 3000 {
			t.Fatalf("%s never expired", key)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
