// Package fanout carries the change notifications of one MCP server between its
// replicas over a shared store's publish/subscribe (runtime/store.PubSub: Redis
// when scaled out, store.Memory within a process).
//
// Each replica delivers a change to its own clients at once (the runtime does
// that) and hands it to its Bus, which publishes it on the server's channel
// from one goroutine, in order. While the replica has clients to tell, its Bus
// holds one subscription to the channel and passes what the other replicas
// publish to the runtime's delivery; the replica's own messages (its origin
// id) are dropped, as its clients already have them. Every client hears of a
// change at most once; nothing is stored, so a replica that is not subscribed
// (or whose connection to the store is down) when a change is published never
// hears of it. No replica knows another's clients: a message names a
// notification and its audience, never a client.
package fanout

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// ChannelPrefix, followed by the server's name, is the channel the replicas
// of one server share.
const ChannelPrefix = "mcpgen:notify:"

const (
	// MaxQueue bounds the notices waiting to be published; beyond it new ones
	// are dropped (and counted in the log).
	MaxQueue = 1024
	// Backoff is how long a Bus that failed to subscribe (the store is down)
	// waits before a Sync tries again: clients arriving meanwhile are not held
	// up by the store's timeouts.
	Backoff = 5 * time.Second
	// timeout bounds one Publish.
	timeout = 5 * time.Second
)

// A Notice is one change notification on its way to the clients that want it.
type Notice struct {
	Method string          `json:"m"`           // e.g. notifications/resources/updated
	Params json.RawMessage `json:"p,omitempty"` // a compact JSON object; nil: no params
	To     Audience        `json:"to"`
}

// An Audience says which clients want a notice. List, URI and TaskID select
// (one of them is set); Principal narrows. The runtime matches it against its
// own clients.
type Audience struct {
	// List ("tools", "prompts", "resources"): every 2025-11-25 session, and
	// the listen streams whose filter asks for changes of that list.
	List string `json:"list,omitempty"`
	// URI: the sessions that subscribed to it (or to a resource it is a
	// sub-resource of) and the listen streams whose resourceSubscriptions do.
	URI string `json:"uri,omitempty"`
	// TaskID: the listen streams whose filter's taskIds name it.
	TaskID string `json:"task,omitempty"`
	// Principal (the runtime's principal id), when set, keeps only the
	// clients of that principal; alone, it selects every 2025-11-25 session
	// of it.
	Principal string `json:"who,omitempty"`
}

// envelope is a notice on the channel, tagged with the Bus that sent it.
type envelope struct {
	Origin string `json:"o"`
	Notice
}

// A Bus is one replica's side of the channel.
type Bus struct {
	ps      store.PubSub
	channel string
	origin  string // this Bus's id on the channel
	logger  *slog.Logger
	deliver func(Notice) // the runtime's delivery to its own clients
	wanted  func() bool  // whether the replica has clients to tell

	// subMu serialises subscribing and unsubscribing.
	subMu  sync.Mutex
	cancel context.CancelFunc // the running subscription's; nil when none
	gen    int                // counts subscriptions, so a dead one is told apart
	retry  time.Time          // after a failed subscribe, none is tried before

	// mu guards the publishing queue.
	mu      sync.Mutex
	queue   [][]byte
	sending bool // a goroutine is draining the queue
	dropped int
}

// New returns a Bus on ps's channel. deliver receives the notices other
// replicas publish; wanted says whether this replica has clients (Sync reads
// it).
func New(ps store.PubSub, channel string, logger *slog.Logger, deliver func(Notice), wanted func() bool) *Bus {
	var id [12]byte
	_, _ = rand.Read(id[:])
	return &Bus{ps: ps, channel: channel, origin: hex.EncodeToString(id[:]), logger: logger, deliver: deliver, wanted: wanted}
}

// Publish queues n for the other replicas; one goroutine at a time drains the
// queue, in order, and exits when it is empty. A notice identical to one still
// queued is dropped: both say the same thing.
func (b *Bus) Publish(n Notice) {
	msg := appendEnvelope(make([]byte, 0, 128+len(n.Params)), b.origin, n)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, q := range b.queue {
		if string(q) == string(msg) {
			return
		}
	}
	if len(b.queue) >= MaxQueue {
		b.dropped++
		return
	}
	b.queue = append(b.queue, msg)
	if !b.sending {
		b.sending = true
		go b.drain()
	}
}

// Idle reports whether everything queued was published (or failed to be).
func (b *Bus) Idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.sending
}

// appendEnvelope appends the JSON of envelope{origin, n} (what json.Marshal
// would, without its reflection); n.Params is a compact JSON object or nil.
func appendEnvelope(b []byte, origin string, n Notice) []byte {
	b = append(jsonwire.AppendString(append(b, `{"o":`...), origin), `,"m":`...)
	b = jsonwire.AppendString(b, n.Method)
	if n.Params != nil {
		b = append(append(b, `,"p":`...), n.Params...)
	}
	b = append(b, `,"to":{`...)
	sep := ""
	for _, m := range [...]struct{ k, v string }{{"list", n.To.List}, {"uri", n.To.URI}, {"task", n.To.TaskID}, {"who", n.To.Principal}} {
		if m.v != "" {
			b = append(jsonwire.AppendString(append(b, sep...), m.k), ':')
			b = jsonwire.AppendString(b, m.v)
			sep = ","
		}
	}
	return append(b, "}}"...)
}

// drain publishes the queued notices until the queue is empty.
func (b *Bus) drain() {
	for {
		b.mu.Lock()
		q, dropped := b.queue, b.dropped
		b.queue, b.dropped = nil, 0
		if len(q) == 0 {
			b.sending = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		if dropped > 0 {
			b.logger.Warn("change notifications dropped: the store does not keep up", "dropped", dropped)
		}
		failed, last := 0, error(nil)
		for _, msg := range q {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			if err := b.ps.Publish(ctx, b.channel, msg); err != nil {
				failed, last = failed+1, err
			}
			cancel()
		}
		if failed > 0 { // one line per batch, not per notification, while the store is down
			b.logger.Warn("change notifications not published to the other replicas", "channel", b.channel, "count", failed, "err", last)
		}
	}
}

// Sync subscribes to the channel while the replica has clients to tell
// (wanted), and unsubscribes when it has none. It decides from the current
// state, so concurrent calls settle on the right one. Subscribing waits for
// the store's confirmation: a client acknowledged after Sync returns hears of
// every change published from then on.
func (b *Bus) Sync() {
	b.subMu.Lock()
	defer b.subMu.Unlock()
	want := b.wanted()
	switch {
	case want && b.cancel == nil && !time.Now().Before(b.retry):
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := b.ps.Subscribe(ctx, b.channel)
		if err != nil {
			cancel()
			b.retry = time.Now().Add(Backoff)
			b.logger.Warn("not subscribed to the other replicas' change notifications (tried again with a client arriving after the backoff)",
				"channel", b.channel, "backoff", Backoff, "err", err)
			return
		}
		b.gen++
		b.cancel = cancel
		go b.receive(ch, b.gen)
	case !want && b.cancel != nil:
		b.cancel()
		b.cancel = nil
	}
}

// receive delivers what the other replicas publish until the subscription
// ends; one that ends by itself is forgotten, so the next Sync subscribes
// again.
func (b *Bus) receive(ch <-chan []byte, gen int) {
	for msg := range ch {
		b.handle(msg)
	}
	b.subMu.Lock()
	if b.gen == gen && b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
	b.subMu.Unlock()
}

// handle delivers one message of the channel, unless this Bus sent it.
// Anything on the channel that is not a notice is logged and ignored.
func (b *Bus) handle(msg []byte) {
	var e envelope
	if err := json.Unmarshal(msg, &e); err != nil || e.Method == "" || (e.Params != nil && !isObject(e.Params)) {
		b.logger.Debug("ignored a malformed message on the change channel", "channel", b.channel, "err", err)
		return
	}
	if e.Origin == b.origin {
		return // delivered when it was sent
	}
	b.deliver(e.Notice)
}

// isObject reports whether raw (valid JSON) is an object.
func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}
