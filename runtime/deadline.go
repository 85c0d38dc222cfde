package runtime

// deadline.go: the deadlines of tools/call (Options.CallTimeout), watched by one
// timer per server instead of a runtime timer (context.WithDeadline) and a
// context.AfterFunc per call. A profile of the stdio cells with one request in
// flight had those two at about 12% of the server's CPU samples.
//
// Every tools/call of a server gets the same timeout, and its deadline is taken
// under the watch's lock when the call begins, so the calls join the list in the
// order of their deadlines: the head is always due first. A call leaves the list
// when it concludes (or when its deadline takes it); the timer is armed for the
// head's deadline only when it is not armed already, and is never stopped, so a
// call in the common case costs two short critical sections and no timer
// operation. When the timer fires, every call whose deadline has passed is
// expired (its context cancelled with context.DeadlineExceeded as cause, a
// running handler's call claimed by overdue), and the timer is armed again for
// the new head, if any.

import (
	"context"
	"sync"
	"time"
)

// A deadlineWatch holds a server's running tools/call calls in deadline order.
type deadlineWatch struct {
	mu         sync.Mutex
	head, tail *call
	timer      *time.Timer // nil until the first call; it holds the watch only, not its server
	armed      bool        // the timer will fire at or before head's deadline
}

// add sets c's deadline, timeout from now, and watches it. c.cancel must be set.
func (w *deadlineWatch) add(c *call, timeout time.Duration) {
	w.mu.Lock()
	c.deadline = time.Now().Add(timeout)
	c.watchPrev, c.watchNext = w.tail, nil
	if w.tail != nil {
		w.tail.watchNext = c
	} else {
		w.head = c
	}
	w.tail = c
	c.watched = true
	if !w.armed {
		w.arm(c.deadline)
	}
	w.mu.Unlock()
}

// remove stops watching c (it concluded); nothing when its deadline took it.
func (w *deadlineWatch) remove(c *call) {
	w.mu.Lock()
	if c.watched {
		w.unlink(c)
	}
	w.mu.Unlock()
}

// unlink takes c out of the list; the caller holds w.mu.
func (w *deadlineWatch) unlink(c *call) {
	if c.watchPrev != nil {
		c.watchPrev.watchNext = c.watchNext
	} else {
		w.head = c.watchNext
	}
	if c.watchNext != nil {
		c.watchNext.watchPrev = c.watchPrev
	} else {
		w.tail = c.watchPrev
	}
	c.watchPrev, c.watchNext, c.watched = nil, nil, false
}

// arm makes the timer fire at when; the caller holds w.mu.
func (w *deadlineWatch) arm(when time.Time) {
	d := time.Until(when)
	if w.timer == nil {
		w.timer = time.AfterFunc(d, w.fire)
	} else {
		w.timer.Reset(d)
	}
	w.armed = true
}

// fire expires the calls whose deadline has passed and arms the timer for the
// next one.
func (w *deadlineWatch) fire() {
	var due []*call
	w.mu.Lock()
	now := time.Now()
	for c := w.head; c != nil && !c.deadline.After(now); c = w.head {
		w.unlink(c)
		due = append(due, c)
	}
	w.armed = false
	if w.head != nil {
		w.arm(w.head.deadline)
	}
	w.mu.Unlock()
	for _, c := range due {
		c.expire()
	}
}

// expire ends a call at its deadline: its context is cancelled (Err reports
// context.DeadlineExceeded) and, once its handler runs, overdue claims it.
// invoke checks expired after it marks the handler running, so one of the two
// calls overdue (which claims the call at most once).
func (c *call) expire() {
	c.expired.Store(true)
	c.cancel(context.DeadlineExceeded)
	if c.invoking.Load() {
		c.overdue()
	}
}

// startHandler marks the call's handler as running and reports whether its
// deadline has already passed (then overdue has claimed the call, or a
// concurrent expire is claiming it, and the handler must not run).
func (c *call) startHandler() (expired bool) {
	c.invoking.Store(true)
	if c.expired.Load() {
		c.overdue()
		return true
	}
	return false
}
