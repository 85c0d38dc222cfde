package runtime

// fanout.go: change notifications across replicas. Every change notification
// (list changes, resource updates, and whatever else goes through announce) is
// delivered at once to the clients of this process that want it, and, when the
// server's store is shared (an Options.Store or SetStore that implements
// store.PubSub: Redis for replicas), published on the store's channel
// "mcpgen:notify:"+server name. Each replica subscribes to that channel while
// it has clients to tell (a 2025-11-25 session or a subscriptions/listen
// stream), delivers what the others publish to its own clients, and ignores
// its own messages (the origin id): every client hears of a change at most
// once, and no replica knows another's clients. Nothing is stored: a replica
// that is not subscribed (or whose connection to the store is down) when a
// change is published never hears of it.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// notifyChannelPrefix, followed by the server's name, is the channel the
// replicas of one server share.
const notifyChannelPrefix = "mcpgen:notify:"

// subscribeBackoff is how long a replica that failed to subscribe (the store
// is down) waits before a new client makes it try again: clients arriving
// meanwhile are not held up by the store's timeouts.
const subscribeBackoff = 5 * time.Second

// maxFanoutQueue bounds the notifications waiting to be published; beyond it
// new ones are dropped (and counted in the log).
const maxFanoutQueue = 1024

// A notice is one change notification on its way to the clients that want it.
// Its JSON form is what replicas publish to each other. Any notification
// goes through announce: list changes and resource updates here; a task's
// status would be notice{Method: "notifications/tasks", Params: the task,
// To: audience{TaskID: id, Principal: principalID(owner)}} for listen
// streams, and audience{Principal: ...} alone reaches the owner's 2025-11-25
// sessions (notifications/tasks/status).
type notice struct {
	Method string          `json:"m"`           // e.g. notifications/resources/updated
	Params json.RawMessage `json:"p,omitempty"` // a JSON object; nil: no params
	To     audience        `json:"to"`
}

// An audience says which clients want a notice. List, URI and TaskID select
// (one of them is set); Principal narrows.
type audience struct {
	// List ("tools", "prompts", "resources"): every 2025-11-25 session, and
	// the listen streams whose filter asks for changes of that list.
	List string `json:"list,omitempty"`
	// URI: the sessions that subscribed to it (or to a resource it is a
	// sub-resource of) and the listen streams whose resourceSubscriptions do.
	URI string `json:"uri,omitempty"`
	// TaskID: the listen streams whose filter's taskIds name it.
	TaskID string `json:"task,omitempty"`
	// Principal (principalID), when set, keeps only the clients of that
	// principal; alone, it selects every 2025-11-25 session of it.
	Principal string `json:"who,omitempty"`
}

// envelope is a notice on the channel, tagged with the replica that sent it.
type envelope struct {
	Origin string `json:"o"`
	notice
}

// fanout is a Server's side of the channel. The zero value is off.
type fanout struct {
	bus atomic.Pointer[bus] // nil: notifications stay in the process

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

// A bus is a shared store's publish/subscribe as one server uses it.
type bus struct {
	ps      store.PubSub
	channel string
	origin  string // this Server's id on the channel
}

// setFanout turns fan-out on when st (the server's shared store) can publish,
// off otherwise; Options.Store and SetStore call it, the default in-process
// store does not.
func (s *Server) setFanout(st store.Store) {
	s.prims.hub.changed = s.syncFanout
	ps, ok := st.(store.PubSub)
	if !ok {
		s.fan.bus.Store(nil)
		return
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	s.fan.bus.Store(&bus{ps: ps, channel: notifyChannelPrefix + s.info.Name, origin: hex.EncodeToString(id[:])})
}

// announce tells the clients that want it of a change: those of this process
// at once, those of the other replicas through the shared store.
func (s *Server) announce(n notice) {
	s.deliverLocal(n)
	if b := s.fan.bus.Load(); b != nil {
		s.publish(b, n)
	}
}

// publish queues n for the other replicas; one goroutine at a time drains the
// queue, in order, and exits when it is empty. A notice identical to one still
// queued is dropped: both say the same thing.
func (s *Server) publish(b *bus, n notice) {
	msg := appendEnvelope(make([]byte, 0, 128+len(n.Params)), b.origin, n)
	f := &s.fan
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queue {
		if string(q) == string(msg) {
			return
		}
	}
	if len(f.queue) >= maxFanoutQueue {
		f.dropped++
		return
	}
	f.queue = append(f.queue, msg)
	if !f.sending {
		f.sending = true
		go s.drainFanout(b)
	}
}

// appendEnvelope appends the JSON of envelope{origin, n} (what json.Marshal
// would, without its reflection); n.Params is a compact JSON object or nil.
func appendEnvelope(b []byte, origin string, n notice) []byte {
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

// drainFanout publishes the queued notices until the queue is empty.
func (s *Server) drainFanout(b *bus) {
	f := &s.fan
	for {
		f.mu.Lock()
		q, dropped := f.queue, f.dropped
		f.queue, f.dropped = nil, 0
		if len(q) == 0 {
			f.sending = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		if dropped > 0 {
			s.logger.Warn("change notifications dropped: the store does not keep up", "dropped", dropped)
		}
		failed, last := 0, error(nil)
		for _, msg := range q {
			ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
			if err := b.ps.Publish(ctx, b.channel, msg); err != nil {
				failed, last = failed+1, err
			}
			cancel()
		}
		if failed > 0 { // one line per batch, not per notification, while the store is down
			s.logger.Warn("change notifications not published to the other replicas", "channel", b.channel, "count", failed, "err", last)
		}
	}
}

// syncFanout subscribes to the channel while this process has clients to
// tell, and unsubscribes when it has none. It decides from the current count,
// so concurrent calls settle on the right state. Subscribing waits for the
// store's confirmation: a client acknowledged after it hears every change
// published from then on.
func (s *Server) syncFanout() {
	b := s.fan.bus.Load()
	if b == nil {
		return
	}
	f := &s.fan
	f.subMu.Lock()
	defer f.subMu.Unlock()
	want := s.prims.hub.members.Load() > 0
	switch {
	case want && f.cancel == nil && !time.Now().Before(f.retry):
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := b.ps.Subscribe(ctx, b.channel)
		if err != nil {
			cancel()
			f.retry = time.Now().Add(subscribeBackoff)
			s.logger.Warn("not subscribed to the other replicas' change notifications (tried again with a client arriving after the backoff)",
				"channel", b.channel, "backoff", subscribeBackoff, "err", err)
			return
		}
		f.gen++
		f.cancel = cancel
		go s.receive(b, ch, f.gen)
	case !want && f.cancel != nil:
		f.cancel()
		f.cancel = nil
	}
}

// receive delivers what the other replicas publish until the subscription
// ends; one that ends by itself is forgotten, so the next client subscribes
// again.
func (s *Server) receive(b *bus, ch <-chan []byte, gen int) {
	for msg := range ch {
		s.fromBus(b, msg)
	}
	f := &s.fan
	f.subMu.Lock()
	if f.gen == gen && f.cancel != nil {
		f.cancel()
		f.cancel = nil
	}
	f.subMu.Unlock()
}

// fromBus delivers one message of the channel, unless this process sent it.
// Anything else on the channel that is not a notice is logged and ignored.
func (s *Server) fromBus(b *bus, msg []byte) {
	var e envelope
	if err := json.Unmarshal(msg, &e); err != nil || e.Method == "" || (e.Params != nil && !isObject(e.Params)) {
		s.logger.Debug("ignored a malformed message on the change channel", "channel", b.channel, "err", err)
		return
	}
	if e.Origin == b.origin {
		return // delivered when it was sent
	}
	s.deliverLocal(e.notice)
}

// deliverLocal sends n to the clients of this process that want it.
func (s *Server) deliverLocal(n notice) {
	h := &s.prims.hub
	if h.members.Load() == 0 {
		return
	}
	sessions := h.liveSessions(n.To.wantsSession)
	listeners := h.matching(n.To.wantsListener)
	if len(sessions) == 0 && len(listeners) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if bytes.ContainsAny(n.Params, "\r\n") { // one message per line on stdio
		var buf bytes.Buffer
		if json.Compact(&buf, n.Params) != nil {
			return
		}
		n.Params = buf.Bytes()
	}
	if len(sessions) > 0 {
		msg := []byte(`{"jsonrpc":"2.0","method":` + string(jsonwire.AppendString(nil, n.Method)))
		if n.Params != nil {
			msg = append(append(msg, `,"params":`...), n.Params...)
		}
		msg = append(msg, '}')
		for _, ss := range sessions {
			s.deliver(ctx, n.Method, ss.sendUnsolicited(ctx, msg))
		}
	}
	if len(listeners) > 0 {
		head, tail, err := listenFrame(n)
		if err != nil {
			s.logger.Debug("change notification not delivered", "method", n.Method, "err", err)
			return
		}
		for _, l := range listeners {
			s.deliver(ctx, n.Method, l.sendFramed(ctx, head, tail))
		}
	}
}

// listenFrame returns the notification a listen stream gets, split where its
// subscription id goes: params with "_meta" first (its members, then the
// subscription id), then the other members in key order.
func listenFrame(n notice) (head, tail []byte, err error) {
	head = append([]byte(`{"jsonrpc":"2.0","method":`), jsonwire.AppendString(nil, n.Method)...)
	if p := bytes.TrimSpace(n.Params); !bytes.Contains(p, []byte(`"_meta"`)) && (len(p) == 0 || bytes.HasPrefix(p, []byte{'{'})) {
		// No _meta to merge (the usual case): the params' members follow as they are.
		head = jsonwire.AppendString(append(head, `,"params":{"_meta":{`...), metaSubscriptionID)
		head = append(head, ':')
		if len(p) == 0 || len(bytes.TrimSpace(p[1:])) == 1 { // none, or {}
			return head, []byte("}}}"), nil
		}
		return head, append(append([]byte("},"), p[1:]...), '}'), nil
	}
	var fields map[string]json.RawMessage
	if n.Params != nil {
		if err := json.Unmarshal(n.Params, &fields); err != nil {
			return nil, nil, err
		}
	}
	head = append(head, `,"params":{"_meta":{`...)
	var meta map[string]json.RawMessage
	if m, ok := fields["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, nil, errors.New("params._meta is not an object")
	}
	delete(meta, metaSubscriptionID)
	head = appendMembers(head, meta, ",")
	head = jsonwire.AppendString(head, metaSubscriptionID)
	head = append(head, ':')
	delete(fields, "_meta")
	tail = appendMembers([]byte{'}'}, fields, "")
	return head, append(tail, "}}"...), nil
}

// appendMembers appends the members of m in key order, compacted, each
// followed (sep ",") or preceded (sep "") by a comma.
func appendMembers(b []byte, m map[string]json.RawMessage, sep string) []byte {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if sep == "" {
			b = append(b, ',')
		}
		b = append(jsonwire.AppendString(b, k), ':')
		var buf bytes.Buffer
		if json.Compact(&buf, m[k]) == nil {
			b = append(b, buf.Bytes()...)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, sep...)
	}
	return b
}

// wantsSession reports whether a 2025-11-25 session wants a notice.
func (a *audience) wantsSession(e *sessionSubs) bool {
	if a.Principal != "" && e.who != a.Principal {
		return false
	}
	switch {
	case a.List != "":
		return true
	case a.URI != "":
		for sub := range e.uris {
			if covers(sub, a.URI) {
				return true
			}
		}
		return false
	case a.TaskID != "":
		return false
	}
	return a.Principal != ""
}

// wantsListener reports whether a listen stream wants a notice.
func (a *audience) wantsListener(l *listener) bool {
	if a.Principal != "" && l.who != a.Principal {
		return false
	}
	switch {
	case a.List != "":
		k, ok := listKindNamed(a.List)
		return ok && l.filter.wants(k)
	case a.URI != "":
		return slices.ContainsFunc(l.filter.ResourceSubscriptions, func(sub string) bool { return covers(sub, a.URI) })
	case a.TaskID != "":
		return slices.Contains(l.filter.TaskIDs, a.TaskID)
	}
	return false
}

// covers reports whether a subscription to sub covers a change of uri: the
// same resource, or one below it ("notes://" covers "notes://todo").
func covers(sub, uri string) bool {
	return sub == uri || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/")
}

// listName is the audience name of a list.
func listName(k listKind) string {
	switch k {
	case kindPrompts:
		return "prompts"
	case kindResources:
		return "resources"
	}
	return "tools"
}

// listKindNamed is the inverse of listName; ok is false for an unknown name.
func listKindNamed(name string) (k listKind, ok bool) {
	switch name {
	case "tools":
		return kindTools, true
	case "prompts":
		return kindPrompts, true
	case "resources":
		return kindResources, true
	}
	return 0, false
}
