// Package deadline watches deadlines that share one timeout with one timer per
// watch, instead of a runtime timer (context.WithDeadline) and a
// context.AfterFunc per entry. A profile of the runtime's stdio cells with one
// request in flight had those two at about 12% of the server's CPU samples.
//
// Every entry of a watch gets the same timeout, and its deadline is taken under
// the watch's lock when it is added, so the entries join the list in the order
// of their deadlines: the head is always due first. An entry leaves the list
// when Remove takes it out (its work concluded) or when its deadline takes it;
// the timer is armed for the head's deadline only when it is not armed
// already, and is never stopped, so an entry in the common case costs two
// short critical sections and no timer operation. When the timer fires, every
// entry whose deadline has passed is handed to Expire, outside the lock, and
// the timer is armed again for the new head, if any.
package deadline

import (
	"sync"
	"time"
)

// An Entry is one watched item's place in a Watch, allocated with the item.
type Entry[T any] struct {
	// When is the deadline, set by Add (zero until then). It is written under
	// the watch's lock; whoever added the entry may read it without.
	When       time.Time
	prev, next *Entry[T]
	watched    bool
	item       T
}

// A Watch holds entries in deadline order and expires them at their deadlines.
type Watch[T any] struct {
	// Expire is called, once, for each entry whose deadline passed while it
	// was watched, on the timer's goroutine. Set it before the first Add.
	Expire func(T)

	mu         sync.Mutex
	head, tail *Entry[T]
	timer      *time.Timer // nil until the first Add; it holds the watch only
	armed      bool        // the timer will fire at or before head's deadline
}

// Add sets e's deadline, timeout from now, and watches it for item.
func (w *Watch[T]) Add(e *Entry[T], item T, timeout time.Duration) {
	w.mu.Lock()
	e.When = time.Now().Add(timeout)
	e.item = item
	e.prev, e.next = w.tail, nil
	if w.tail != nil {
		w.tail.next = e
	} else {
		w.head = e
	}
	w.tail = e
	e.watched = true
	if !w.armed {
		w.arm(e.When)
	}
	w.mu.Unlock()
}

// Remove stops watching e; nothing when its deadline took it already.
func (w *Watch[T]) Remove(e *Entry[T]) {
	w.mu.Lock()
	if e.watched {
		w.unlink(e)
	}
	w.mu.Unlock()
}

// Empty reports whether no entry is watched.
func (w *Watch[T]) Empty() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.head == nil && w.tail == nil
}

// unlink takes e out of the list; the caller holds w.mu.
func (w *Watch[T]) unlink(e *Entry[T]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		w.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		w.tail = e.prev
	}
	e.prev, e.next, e.watched = nil, nil, false
}

// arm makes the timer fire at when; the caller holds w.mu.
func (w *Watch[T]) arm(when time.Time) {
	d := time.Until(when)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
	w.armed = true
}

// fire expires the entries whose deadline has passed and arms the timer for
// the next one.
func (w *Watch[T]) fire() {
	var due []T
	w.mu.Lock()
	now := time.Now()
	for e := w.head; e != nil && !e.When.After(now); e = w.head {
		w.unlink(e)
		due = append(due, e.item)
	}
	w.armed = false
	if w.head != nil {
		w.arm(w.head.When)
	}
	w.mu.Unlock()
	for _, item := range due {
		w.Expire(item)
	}
}
