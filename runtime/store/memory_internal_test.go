package store

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestMemorySweepBound: with puts alone (no reads, no compare-and-set), entries
// that expired are swept, so the store holds at most about twice its live
// entries. (A sweep that waited for as many writes as the store holds never ran:
// each put added an entry as it counted a write.)
func TestMemorySweepBound(t *testing.T) {
	s := NewMemory()
	now := time.Unix(1000, 0)
	s.SetClock(func() time.Time { return now })
	const live = 5000 // entries alive at any time: each lives live steps
	peak := 0
	for i := range 50 * live {
		if ok, err := s.PutIfAbsent(context.Background(), "k"+strconv.Itoa(i), []byte("v"), live*time.Second); !ok || err != nil {
			t.Fatalf("put %d: %v %v", i, ok, err)
		}
		now = now.Add(time.Second)
		s.mu.Lock()
		peak = max(peak, len(s.m))
		s.mu.Unlock()
	}
	if peak > 2*live+minSweep {
		t.Fatalf("the store held %d entries for %d live ones", peak, live)
	}
	if peak < live {
		t.Fatalf("peak %d below the live entries %d: the test measures nothing", peak, live)
	}
}
