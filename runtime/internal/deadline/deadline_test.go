package deadline

import (
	"testing"
	"time"
)

// TestWatchExpiresInOrder: entries added one after another expire in the order
// of their deadlines, each at or after its own; a removed entry never expires,
// and the watch ends empty.
func TestWatchExpiresInOrder(t *testing.T) {
	const timeout = 40 * time.Millisecond
	type item struct {
		id   int
		when time.Time
	}
	got := make(chan item, 8)
	w := &Watch[int]{}
	entries := make([]Entry[int], 6)
	w.Expire = func(id int) { got <- item{id, time.Now()} }
	for i := range entries {
		w.Add(&entries[i], i, timeout)
		time.Sleep(2 * time.Millisecond)
	}
	w.Remove(&entries[2])
	w.Remove(&entries[2]) // twice: nothing
	if entries[2].When.IsZero() {
		t.Fatal("Add left When zero")
	}
	for _, want := range []int{0, 1, 3, 4, 5} {
		select {
		case it := <-got:
			if it.id != want {
				t.Fatalf("expired %d, want %d", it.id, want)
			}
			if it.when.Before(entries[it.id].When) {
				t.Errorf("entry %d expired at %v, before its deadline %v", it.id, it.when, entries[it.id].When)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("entry %d never expired", want)
		}
	}
	select {
	case it := <-got:
		t.Fatalf("entry %d expired after its removal", it.id)
	case <-time.After(3 * timeout):
	}
	if !w.Empty() {
		t.Error("watch not empty after every entry expired or was removed")
	}
	// The timer is re-armed for a later entry after the list ran empty.
	var again Entry[int]
	w.Add(&again, 7, timeout)
	if w.Empty() {
		t.Error("watch empty right after Add")
	}
	select {
	case it := <-got:
		if it.id != 7 {
			t.Errorf("expired %d, want 7", it.id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an entry added after the list ran empty never expired")
	}
}
