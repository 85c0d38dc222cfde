package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		id := NewID()
		if !ValidID(id) || len(id) != 43 {
			t.Fatalf("NewID %q: not a valid 43-character id", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "x", strings.Repeat("a", 42), strings.Repeat("a", 44), strings.Repeat("a", 42) + "/", strings.Repeat("a", 42) + "=", "tasks-conformance-nonexistent-12345"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}

func TestClampTTL(t *testing.T) {
	e := New(store.NewMemory(), Limits{}, "r1")
	for _, c := range []struct {
		ms   int64
		want time.Duration
	}{
		{0, DefaultTTL},
		{-5, DefaultMin}, // callers refuse negative TTLs; the engine never goes below the minimum
		{1, DefaultMin},
		{90_000, 90 * time.Second},
		{DefaultMax.Milliseconds() + 1, DefaultMax},
		{math.MaxInt64, DefaultMax}, // no overflow
	} {
		if got := e.ClampTTL(c.ms); got != c.want {
			t.Errorf("ClampTTL(%d) = %v, want %v", c.ms, got, c.want)
		}
	}
	// A default TTL outside [min, max] is clamped too.
	e = New(store.NewMemory(), Limits{DefaultTTL: 48 * time.Hour, MaxTTL: time.Hour}, "r1")
	if got := e.ClampTTL(0); got != time.Hour {
		t.Errorf("default above max: ClampTTL(0) = %v, want 1h", got)
	}
}

// clock is a settable clock shared by an engine and its memory store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestObserveBindingExpiryAndLease(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	st := store.NewMemory()
	st.SetClock(clk.now)
	e := New(st, Limits{Lease: 10 * time.Second, Grace: time.Minute}, "runner-a")
	e.SetClock(clk.now)
	rec, err := e.Create(ctx, "alice", "2026-07-28", "slow", time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Observe(ctx, rec.ID, "bob", "2026-07-28"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another principal: got %v, want ErrNotFound", err)
	}
	if _, err := e.Observe(ctx, rec.ID, "alice", "2025-11-25"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another era: got %v, want ErrNotFound", err)
	}
	if _, err := e.Observe(ctx, "not-an-id", "alice", "2026-07-28"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("malformed id: got %v", err)
	}
	if _, err := e.Observe(ctx, NewID(), "alice", "2026-07-28"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: got %v", err)
	}
	got, err := e.Observe(ctx, rec.ID, "alice", "2026-07-28")
	if err != nil || got.Status != Working {
		t.Fatalf("owner: got %+v, %v", got, err)
	}
	// Renewed leases keep it working; a lapsed one fails it, with a message.
	clk.add(8 * time.Second)
	if !e.LeaseDue(got) {
		t.Fatal("lease not due after 8 of 10 s")
	}
	if _, err := e.Renew(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	clk.add(8 * time.Second)
	if got, err = e.Observe(ctx, rec.ID, "alice", "2026-07-28"); err != nil || got.Status != Working {
		t.Fatalf("renewed lease: got %+v, %v", got, err)
	}
	clk.add(11 * time.Second)
	got, err = e.Observe(ctx, rec.ID, "alice", "2026-07-28")
	if err != nil || got.Status != Failed || !strings.Contains(got.Message, "runner-a") || !strings.Contains(got.Message, "lease") {
		t.Fatalf("lapsed lease: got %+v, %v", got, err)
	}
	var rpcErr struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(got.Error, &rpcErr) != nil || rpcErr.Code != -32603 || rpcErr.Message != got.Message {
		t.Fatalf("abandoned task error: %s", got.Error)
	}
	// Another instance's runner never renews a task it does not run.
	other := New(st, Limits{Lease: 10 * time.Second}, "runner-b")
	other.SetClock(clk.now)
	rec2, err := e.Create(ctx, "alice", "2026-07-28", "slow", time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	before, _ := e.Get(ctx, rec2.ID)
	clk.add(9 * time.Second)
	if r, err := other.Renew(ctx, rec2.ID); err != nil || r.Lease != before.Lease {
		t.Fatalf("foreign renew changed the lease: %+v, %v", r, err)
	}
	// After its TTL: expired, then gone after the grace period.
	clk.add(time.Hour)
	if _, err := e.Observe(ctx, rec.ID, "alice", "2026-07-28"); !errors.Is(err, ErrExpired) {
		t.Fatalf("after TTL: got %v, want ErrExpired", err)
	}
	clk.add(2 * time.Minute)
	if _, err := e.Observe(ctx, rec.ID, "alice", "2026-07-28"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after TTL and grace: got %v, want ErrNotFound", err)
	}
}

// countingStore counts reads.
type countingStore struct {
	store.Store
	gets atomic.Int64
}

func (c *countingStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	c.gets.Add(1)
	return c.Store.Get(ctx, key)
}

func TestPollingStormServedFromSnapshot(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	st := &countingStore{Store: store.NewMemory()}
	e := New(st, Limits{Poll: time.Second}, "r")
	e.SetClock(clk.now)
	rec, err := e.Create(ctx, "alice", "v", "slow", time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 { // the clock stands still: one storm within 100 ms
		if _, err := e.Observe(ctx, rec.ID, "alice", "v"); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.gets.Load(); n != 1 {
		t.Fatalf("1000 polls within a tenth of the poll interval read the store %d times, want 1", n)
	}
	// A local change is seen at once.
	if _, err := e.Update(ctx, rec.ID, func(r *Record) error { r.Message = "half way"; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := e.Observe(ctx, rec.ID, "alice", "v")
	if err != nil || got.Message != "half way" {
		t.Fatalf("after a local update: %+v, %v", got, err)
	}
	// Polls at the interval read the store each time.
	reads := st.gets.Load()
	for range 5 {
		clk.add(time.Second)
		if _, err := e.Observe(ctx, rec.ID, "alice", "v"); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.gets.Load() - reads; n != 5 {
		t.Fatalf("5 polls a poll interval apart read the store %d times, want 5", n)
	}
}

func TestUpdateConcurrent(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r")
	rec, err := e.Create(ctx, "o", "v", "t", time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.Update(ctx, rec.ID, func(r *Record) error {
				r.Asked = append(r.Asked, fmt.Sprint(i))
				return nil
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := e.Get(ctx, rec.ID)
	if err != nil || len(got.Asked) != 16 {
		t.Fatalf("16 concurrent updates left %d changes (%v)", len(got.Asked), err)
	}
	// A terminal status is final for Finish-style updates that check it.
	if _, err := e.Update(ctx, rec.ID, func(r *Record) error { Finish(r, Cancelled, "stop", nil, nil); return nil }); err != nil {
		t.Fatal(err)
	}
	got, _ = e.Update(ctx, rec.ID, func(r *Record) error {
		if r.Status.Terminal() {
			return ErrNoChange
		}
		r.Status = Completed
		return nil
	})
	if got.Status != Cancelled {
		t.Fatalf("terminal status changed to %s", got.Status)
	}
}

func TestRender(t *testing.T) {
	r := &Record{ID: NewID(), Status: Completed, Message: "done \"ok\"", Created: 1_700_000_000_000, Updated: 1_700_000_001_500,
		TTLMs: 60000, PollMs: 500, Result: json.RawMessage(`{"content":[],"isError":true}`)}
	var create, get, legacy map[string]any
	for _, c := range []struct {
		raw []byte
		v   *map[string]any
	}{{CreateResult(r, json.RawMessage(`{}`)), &create}, {GetResult(r, json.RawMessage(`{}`)), &get}, {LegacyTask(r), &legacy}} {
		if err := json.Unmarshal(c.raw, c.v); err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
	}
	if create["resultType"] != "task" || create["result"] != nil || create["ttlMs"] != 60000.0 || create["createdAt"] != "2023-11-14T22:13:20.000Z" {
		t.Errorf("CreateTaskResult: %v", create)
	}
	if get["resultType"] != "complete" || get["result"] == nil || get["statusMessage"] != `done "ok"` || get["lastUpdatedAt"] != "2023-11-14T22:13:21.500Z" {
		t.Errorf("GetTaskResult: %v", get)
	}
	if legacy["status"] != "failed" || legacy["ttl"] != 60000.0 || legacy["pollInterval"] != 500.0 || legacy["ttlMs"] != nil {
		t.Errorf("2025-11-25 Task of an isError result: %v", legacy)
	}
}

func TestIndexAndList(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Now()}
	st := store.NewMemory()
	st.SetClock(clk.now)
	e := New(st, Limits{Grace: time.Minute}, "r")
	e.SetClock(clk.now)
	var ids []string
	for i, ttl := range []time.Duration{time.Hour, time.Minute, time.Hour} {
		r, err := e.Create(ctx, "alice", "2025-11-25", "t", ttl, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Index(ctx, r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
		if i == 0 { // another owner's and another era's tasks are not alice's
			for _, o := range [][2]string{{"bob", "2025-11-25"}, {"alice", "2026-07-28"}} {
				x, _ := e.Create(ctx, o[0], o[1], "t", time.Hour, "")
				if err := e.Index(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	list, err := e.List(ctx, "alice", "2025-11-25")
	if err != nil || len(list) != 3 || list[0].ID != ids[0] || list[2].ID != ids[2] {
		t.Fatalf("list: %v, %v", list, err)
	}
	clk.add(2 * time.Minute) // the second task's TTL ended
	list, err = e.List(ctx, "alice", "2025-11-25")
	if err != nil || len(list) != 2 || list[1].ID != ids[2] {
		t.Fatalf("list after one expired: %d tasks, %v", len(list), err)
	}
	if list, _ := e.List(ctx, "carol", "2025-11-25"); len(list) != 0 {
		t.Fatalf("an owner without tasks: %v", list)
	}
}
