package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/storetest"
)

func TestMemoryContract(t *testing.T) {
	storetest.Run(t, store.NewMemory(), "t:")
}

func TestOpen(t *testing.T) {
	s, err := store.Open(context.Background(), "memory")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*store.Memory); !ok {
		t.Fatalf("memory: got %T", s)
	}
	if _, err := store.Open(context.Background(), "nosuch://x"); !errors.Is(err, store.ErrUnknownScheme) {
		t.Fatalf("unknown scheme: got %v", err)
	}
}

// TestEmptyDigestValueOutlivesItsChunk: an empty value under a digest key stays
// readable while the values written around it go and chunks are dropped and
// reused. It used to hold no room in its chunk, so it kept an offset into a
// chunk dropped under it, and reading it panicked; now its record (its key's
// digest) holds room like any other.
func TestEmptyDigestValueOutlivesItsChunk(t *testing.T) {
	s := store.NewMemory()
	ctx := context.Background()
	key := func(i int) string { return fmt.Sprintf("t:%040x", i) }
	put := func(i, n int) {
		t.Helper()
		if ok, err := s.PutIfAbsent(ctx, key(i), bytes.Repeat([]byte{'v'}, n), time.Hour); !ok || err != nil {
			t.Fatal("put", i, ok, err)
		}
	}
	del := func(is ...int) {
		for _, i := range is {
			if err := s.Delete(ctx, key(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	const quarter = 16 << 10 // the largest value that shares a 64 KiB chunk
	put(0, 100)
	put(1, 0) // the empty value, after the first
	put(2, quarter)
	put(3, quarter)
	put(4, quarter)
	del(0, 2, 3, 4)
	put(5, quarter)
	put(6, quarter)
	del(5)
	for i := range 10 {
		if v, ok, err := s.Get(ctx, key(1)); err != nil || !ok || len(v) != 0 {
			t.Fatalf("the empty value: %q %v %v", v, ok, err)
		}
		put(10+i, quarter) // new chunks, dropped ones reused
	}
	v, ok, err := s.Get(ctx, key(6))
	if err != nil || !ok || len(v) != quarter {
		t.Fatalf("the value of the second chunk: %d bytes, %v %v", len(v), ok, err)
	}
}

// TestMemoryLimits: a Memory refuses new entries past its entry or byte bound
// with ErrFull (map keys and digest keys alike), never a replacement, and
// takes new entries again once expired ones are swept.
func TestMemoryLimits(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	m := store.NewMemory()
	m.SetClock(func() time.Time { return now })
	m.SetLimits(2, 0)
	var d [20]byte
	if ok, err := m.PutIfAbsent(ctx, "a", []byte("1"), time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, err := m.PutIfAbsentDigest(ctx, "p:", &d, []byte("2"), 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, err := m.PutIfAbsent(ctx, "b", []byte("3"), 0); !errors.Is(err, store.ErrFull) {
		t.Fatalf("third entry: %v", err)
	}
	d[0] = 1
	if _, err := m.PutIfAbsentDigest(ctx, "p:", &d, []byte("3"), 0); !errors.Is(err, store.ErrFull) {
		t.Fatalf("third digest entry: %v", err)
	}
	if ok, err := m.CompareAndSet(ctx, "a", []byte("1"), bytes.Repeat([]byte("x"), 100), time.Second); !ok || err != nil {
		t.Fatalf("a replacement in a full store: %v %v", ok, err)
	}
	now = now.Add(2 * time.Second) // "a" expires
	if ok, err := m.PutIfAbsent(ctx, "b", []byte("3"), 0); !ok || err != nil {
		t.Fatalf("after expiry: %v %v", ok, err)
	}
	if n, b := m.Usage(); n != 2 || b != int64(len("b")+1+20+1) {
		t.Errorf("usage %d entries %d bytes", n, b)
	}
	m.SetLimits(0, 30)
	if _, err := m.PutIfAbsent(ctx, "c", bytes.Repeat([]byte("y"), 10), 0); !errors.Is(err, store.ErrFull) {
		t.Fatalf("past the byte bound: %v", err)
	}
	if ok, err := m.PutIfAbsent(ctx, "c", []byte("y"), 0); !ok || err != nil {
		t.Fatalf("within the byte bound: %v %v", ok, err)
	}
}
