package fanout

import (
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// TestEnvelopeEncoding: the hand-written envelope is what json.Marshal
// writes, so any replica (or tool) reads it back.
func TestEnvelopeEncoding(t *testing.T) {
	for _, n := range []Notice{
		{Method: "notifications/tools/list_changed", To: Audience{List: "tools"}},
		{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"a\"b\u2028"}`), To: Audience{URI: "a\"b\u2028"}},
		{Method: "notifications/tasks", Params: json.RawMessage(`{"taskId":"t","status":"working"}`), To: Audience{TaskID: "t", Principal: "alice\x00client"}},
	} {
		want, err := json.Marshal(envelope{Origin: "o1", Notice: n})
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEnvelope(nil, "o1", n); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// A replica is a Bus with a recording delivery and a client count.
type replica struct {
	bus     *Bus
	clients atomic.Int32
	mu      sync.Mutex
	got     []Notice
	arrived chan struct{}
}

func newReplica(ps store.PubSub) *replica {
	r := &replica{arrived: make(chan struct{}, 100)}
	deliver := func(n Notice) {
		r.mu.Lock()
		r.got = append(r.got, n)
		r.mu.Unlock()
		r.arrived <- struct{}{}
	}
	r.bus = New(ps, ChannelPrefix+"test", slog.New(slog.DiscardHandler), deliver, func() bool { return r.clients.Load() > 0 })
	return r
}

// wait waits for the n-th delivery and returns every one so far.
func (r *replica) wait(t *testing.T, n int) []Notice {
	t.Helper()
	for {
		r.mu.Lock()
		got := append([]Notice(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-r.arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d deliveries within 10s, want %d", len(got), n)
		}
	}
}

func waitIdle(t *testing.T, b *Bus) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !b.Idle(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queue never drained")
		}
	}
}

// TestBus: a subscribed replica gets the other's notices in order, never its
// own; an unsubscribed one gets nothing; identical queued notices go once.
func TestBus(t *testing.T) {
	mem := store.NewMemory()
	a, b := newReplica(mem), newReplica(mem)
	a.clients.Store(1)
	a.bus.Sync()
	b.bus.Sync() // no clients: not subscribed
	n1 := Notice{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"x://1"}`), To: Audience{URI: "x://1"}}
	n2 := Notice{Method: "notifications/tools/list_changed", To: Audience{List: "tools"}}
	a.bus.Publish(n2) // its own: not delivered to itself
	waitIdle(t, a.bus)
	b.bus.Publish(n1)
	b.bus.Publish(n2)
	got := a.wait(t, 2)
	if len(got) != 2 || got[0].To.URI != "x://1" || string(got[0].Params) != `{"uri":"x://1"}` || got[1].Method != n2.Method {
		t.Fatalf("a got %+v, want b's two notices in order", got)
	}
	b.mu.Lock()
	if len(b.got) != 0 {
		t.Errorf("b, with no clients, got %+v", b.got)
	}
	b.mu.Unlock()

	// While the queue is busy, a notice identical to a queued one is dropped.
	b.bus.mu.Lock()
	b.bus.queue = [][]byte{appendEnvelope(nil, b.bus.origin, n1)}
	b.bus.sending = true
	b.bus.mu.Unlock()
	b.bus.Publish(n1)
	b.bus.Publish(n2)
	b.bus.mu.Lock()
	queued := len(b.bus.queue)
	b.bus.sending = false
	b.bus.queue = nil
	b.bus.mu.Unlock()
	if queued != 2 {
		t.Errorf("%d queued after a repeat and a new notice, want 2", queued)
	}

	a.clients.Store(0)
	a.bus.Sync()
	a.bus.subMu.Lock()
	subscribed := a.bus.cancel != nil
	a.bus.subMu.Unlock()
	if subscribed {
		t.Error("still subscribed with no clients")
	}
}
