package runtime

// deadline.go: the deadlines of tools/call (Options.CallTimeout): the server's
// watch (internal/deadline, one timer per server) expires a call at its
// deadline, and the call's handler start meets that expiry here.

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/deadline"
)

// A deadlineWatch holds a server's running tools/call calls in deadline order.
type deadlineWatch = deadline.Watch[*call]

// newDeadlineWatch returns a server's watch; it holds no reference to the server.
func newDeadlineWatch() *deadlineWatch { return &deadlineWatch{Expire: (*call).expire} }

// watchDeadline sets c's deadline, timeout from now, and watches it. c.cancel
// must be set.
func (c *call) watchDeadline(timeout time.Duration) { c.srv.deadlines.Add(&c.watch, c, timeout) }

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
