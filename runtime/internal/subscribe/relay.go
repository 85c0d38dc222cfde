package subscribe

// relay.go: a change's way to every client that wants it: this replica's
// (the Hub) at once, and the other replicas' through a fanout.Bus on the
// server's shared store when it can publish (store.PubSub: Redis). Every
// client hears of a change at most once.

import (
	"log/slog"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// A Relay is a Hub that also carries changes to and from the other replicas
// sharing a store. The zero value delivers to this replica's clients only;
// Log, when set, receives a debug line per failed delivery.
type Relay[C Conn] struct {
	Hub[C]
	Log *slog.Logger
	fan atomic.Pointer[fanout.Bus]
}

// Share turns fan-out on channel on when st can publish, off otherwise: while
// this replica has clients to tell it subscribes to the other replicas'
// changes, and it publishes its own.
func (r *Relay[C]) Share(st store.Store, channel string) {
	r.Changed = r.sync
	ps, ok := st.(store.PubSub)
	if !ok {
		r.fan.Store(nil)
		return
	}
	r.fan.Store(fanout.New(ps, channel, r.Log, r.deliverLocal, func() bool { return r.Members() > 0 }))
}

// sync subscribes to the other replicas' changes while this replica has
// clients to tell, and unsubscribes when it has none (the hub calls it when
// its count changes).
func (r *Relay[C]) sync() {
	if b := r.fan.Load(); b != nil {
		b.Sync()
	}
}

// Announce tells the clients that want it of a change: this replica's at
// once, the other replicas' through the shared store.
func (r *Relay[C]) Announce(n fanout.Notice) {
	r.deliverLocal(n)
	if b := r.fan.Load(); b != nil {
		b.Publish(n)
	}
}

// Alone reports that nobody can hear of a change: no client here, no other
// replica.
func (r *Relay[C]) Alone() bool { return r.Members() == 0 && r.fan.Load() == nil }

// Shared reports whether changes go to the other replicas.
func (r *Relay[C]) Shared() bool { return r.fan.Load() != nil }

// Idle reports whether everything announced was published.
func (r *Relay[C]) Idle() bool {
	b := r.fan.Load()
	return b == nil || b.Idle()
}

// deliverLocal sends n to the clients of this replica that want it.
func (r *Relay[C]) deliverLocal(n fanout.Notice) { r.Deliver(n, r.failed) }

// failed logs a failed best-effort notification.
func (r *Relay[C]) failed(method string, err error) {
	if err != nil && r.Log != nil {
		r.Log.Debug("change notification not delivered", "method", method, "err", err)
	}
}
