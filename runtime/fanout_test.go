package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// replicaServer returns a server named "unit" on the shared store st, with a
// resource and a template so that resource subscriptions are honoured.
func replicaServer(t *testing.T, st store.Store) *Server {
	t.Helper()
	return namedReplica(t, st, "unit")
}

// namedReplica is replicaServer with another name (another channel).
func namedReplica(t *testing.T, st store.Store, name string) *Server {
	t.Helper()
	// Registered before the shared store is set, as Main does: the list
	// changes of one replica's start-up are not published, so they cannot
	// reach the other replica's clients after a test opened them.
	s := NewServer(Implementation{Name: name, Version: "0.1"}, &Options{Logger: testLogger(t)})
	s.AddTool(echoTool())
	text := func(context.Context, *ResourceRequest) (*ResourceResult, error) { return TextResource("x"), nil }
	s.AddResource(&Resource{URI: "test://a", Name: "a", Handler: text})
	s.AddResourceTemplate(&ResourceTemplate{URITemplate: "notes://{folder}/{id}", Name: "note", Handler: text})
	s.SetStore(st)
	return s
}

// listenOn opens a 2026-07-28 listen stream on s for tool-list changes and
// notes:// resources, and checks its acknowledgement.
func listenOn(t *testing.T, s *Server) (*testClient, json.RawMessage) {
	t.Helper()
	c := serveInMemory(t, s)
	id := c.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{
		"toolsListChanged": true, "resourceSubscriptions": []string{"notes://"}}})
	if ack := c.next(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %s, want the acknowledgement", ack.raw)
	}
	return c, id
}

// expectNote reads the next message of c and checks it is method (about uri
// when set), tagged with the subscription id when id is not nil.
func expectNote(t *testing.T, c *testClient, id json.RawMessage, method, uri string) {
	t.Helper()
	m := c.next()
	var p struct{ URI string }
	_ = json.Unmarshal(m.Params, &p)
	if m.Method != method || p.URI != uri || (id != nil && subscriptionID(t, m) != string(id)) {
		t.Fatalf("got %s, want %s (uri %q) tagged %s", m.raw, method, uri, id)
	}
}

// waitPublished waits until s has published everything it queued.
func waitPublished(t *testing.T, s *Server) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); !s.prims.hub.Idle(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fan-out queue never drained")
		}
	}
}

// TestFanoutAcrossServers: two servers on one store are two replicas. A
// change made on one reaches the listen streams and sessions of the other
// exactly once (the next message after it is a later change, never a
// repeat), and a change made on a server reaches its own clients once (its
// echo on the channel is ignored). Every message is validated against the
// schema of its revision by the test client.
func TestFanoutAcrossServers(t *testing.T) {
	mem := store.NewMemory()
	fanoutAcross(t, replicaServer(t, mem), replicaServer(t, mem))
}

// TestFanoutAcrossServersRedis is TestFanoutAcrossServers on a real Redis
// (MCPGEN_TEST_REDIS; CI fails when it skips).
func TestFanoutAcrossServersRedis(t *testing.T) {
	u := os.Getenv("MCPGEN_TEST_REDIS")
	if u == "" {
		t.Skip("MCPGEN_TEST_REDIS is not set (CI sets it and starts redis-server)")
	}
	open := func() store.Store {
		st, err := redisstore.Open(context.Background(), u)
		if err != nil {
			t.Fatalf("MCPGEN_TEST_REDIS=%s is set but Redis is unreachable: %v", u, err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	name := fmt.Sprintf("fanout-test-%d", time.Now().UnixNano()) // a channel of its own
	fanoutAcross(t, namedReplica(t, open(), name), namedReplica(t, open(), name))
}

// fanoutAcross checks that a and b, sharing a store, fan changes out to each
// other's clients.
func fanoutAcross(t *testing.T, a, b *Server) {
	l, id := listenOn(t, a)
	sess := eraClient(t, a, false)
	if resp := sess.call(false, "resources/subscribe", map[string]any{"uri": "test://a"}); string(resp.Result) != "{}" {
		t.Fatalf("resources/subscribe: %s", resp.raw)
	}

	b.ResourceUpdated("notes://work/1")
	b.ResourceUpdated("test://a")
	b.ResourceUpdated("other://x") // nobody on a subscribed to it
	b.PutTool(noteTool("added"))
	expectNote(t, l, id, "notifications/resources/updated", "notes://work/1")
	expectNote(t, l, id, "notifications/tools/list_changed", "")
	expectNote(t, sess, nil, "notifications/resources/updated", "test://a")
	expectNote(t, sess, nil, "notifications/tools/list_changed", "")

	// A change on a itself: delivered at once, and its echo through the store
	// is not delivered again (b's later change comes next).
	a.ResourceUpdated("notes://home/2")
	expectNote(t, l, id, "notifications/resources/updated", "notes://home/2")
	waitPublished(t, a)
	b.ResourceUpdated("notes://home/3")
	expectNote(t, l, id, "notifications/resources/updated", "notes://home/3")
	l.expectQuiet(50 * time.Millisecond)
	sess.expectQuiet(0)
}

// TestFanoutOffByDefault: servers without a store of their own keep their
// notifications to themselves, exactly as before fan-out existed.
func TestFanoutOffByDefault(t *testing.T) {
	a, b := replicaServer(t, nil), replicaServer(t, nil)
	if a.prims.hub.Shared() {
		t.Fatal("fan-out is on without a store configured")
	}
	l, id := listenOn(t, a)
	b.ResourceUpdated("notes://work/1")
	a.ResourceUpdated("notes://work/2")
	expectNote(t, l, id, "notifications/resources/updated", "notes://work/2")
	l.expectQuiet(50 * time.Millisecond)
}

// countingStore counts the subscriptions open on a store.
type countingStore struct {
	*store.Memory
	open atomic.Int32
}

func (c *countingStore) Subscribe(ctx context.Context, channel string) (<-chan []byte, error) {
	ch, err := c.Memory.Subscribe(ctx, channel)
	if err == nil {
		c.open.Add(1)
		context.AfterFunc(ctx, func() { c.open.Add(-1) })
	}
	return ch, err
}

// TestFanoutSubscribesWhileListened: a replica holds a subscription only
// while it has clients to tell; a change published while it had none is not
// delivered later (at most once, nothing kept).
func TestFanoutSubscribesWhileListened(t *testing.T) {
	st := &countingStore{Memory: store.NewMemory()}
	a, b := replicaServer(t, st), replicaServer(t, st)
	b.ResourceUpdated("notes://work/0") // nobody listens anywhere
	waitPublished(t, b)
	if n := st.open.Load(); n != 0 {
		t.Fatalf("%d subscriptions with no client, want 0", n)
	}
	l, id := listenOn(t, a)
	if n := st.open.Load(); n != 1 {
		t.Fatalf("%d subscriptions with one listen stream, want 1", n)
	}
	b.ResourceUpdated("notes://work/1")
	expectNote(t, l, id, "notifications/resources/updated", "notes://work/1")
	a.EndSubscriptions(nil)
	if resp, _ := l.await(id); resp.Error != nil {
		t.Fatalf("end of the stream: %s", resp.raw)
	}
	for deadline := time.Now().Add(waitTimeout); st.open.Load() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions after the last stream ended, want 0", st.open.Load())
		}
	}
}

// TestFanoutIgnoresForeignMessages: what is not a notice on the channel is
// ignored, and the server keeps delivering; a well-formed notice from another
// origin is delivered like any replica's.
func TestFanoutIgnoresForeignMessages(t *testing.T) {
	mem := store.NewMemory()
	a := replicaServer(t, mem)
	l, id := listenOn(t, a)
	ch := fanout.ChannelPrefix + "unit"
	for _, bad := range []string{
		`not json`, `[]`, `{}`, `{"m":""}`, `{"m":"notifications/resources/updated","p":[1],"to":{"uri":"notes://x/1"}}`,
		`{"m":"notifications/resources/updated","p":"s","to":{"uri":"notes://x/1"}}`,
		`{"m":"notifications/tools/list_changed","to":{"list":"nonsense"}}`,
		`{"m":"notifications/tools/list_changed","to":{}}`,
	} {
		if err := mem.Publish(context.Background(), ch, []byte(bad)); err != nil {
			t.Fatal(err)
		}
	}
	good := `{"o":"elsewhere","m":"notifications/resources/updated","p":{"uri":"notes://x/2"},"to":{"uri":"notes://x/2"}}`
	if err := mem.Publish(context.Background(), ch, []byte(good)); err != nil {
		t.Fatal(err)
	}
	expectNote(t, l, id, "notifications/resources/updated", "notes://x/2")
	l.expectQuiet(50 * time.Millisecond)
}

// TestAnnounceParams: a notice's params reach a listen stream with the
// subscription id merged into their _meta, and a 2025-11-25 session as they
// are.
func TestAnnounceParams(t *testing.T) {
	s := replicaServer(t, nil)
	l, id := listenOn(t, s)
	sess := eraClient(t, s, false)
	s.announce(notice{Method: "notifications/resources/updated",
		Params: json.RawMessage(`{"uri":"notes://a/1","_meta":{"k":"v"}}`), To: audience{URI: "notes://a/1"}})
	m := l.next()
	var p struct {
		URI  string                     `json:"uri"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if p.URI != "notes://a/1" || string(p.Meta["k"]) != `"v"` || string(p.Meta[metaSubscriptionID]) != string(id) {
		t.Errorf("listen stream got %s", m.raw)
	}
	s.announce(notice{Method: "notifications/tools/list_changed", To: audience{List: "tools"}})
	if m := sess.next(); string(m.raw) != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
		t.Errorf("session got %s", m.raw)
	}
}

// downStore is a store whose publish/subscribe is down.
type downStore struct {
	*store.Memory
	tries atomic.Int32
}

func (d *downStore) Subscribe(context.Context, string) (<-chan []byte, error) {
	d.tries.Add(1)
	return nil, errors.New("connection refused")
}

func (d *downStore) Publish(context.Context, string, []byte) error {
	return errors.New("connection refused")
}

// TestFanoutStoreDown: with the store's publish/subscribe down, listeners are
// still acknowledged and hear the changes made on their own replica; the
// clients arriving within the backoff do not try to subscribe again.
func TestFanoutStoreDown(t *testing.T) {
	st := &downStore{Memory: store.NewMemory()}
	s := replicaServer(t, st)
	l1, id1 := listenOn(t, s)
	l2, id2 := listenOn(t, s)
	if n := st.tries.Load(); n != 1 {
		t.Errorf("%d subscribe attempts for two clients within the backoff, want 1", n)
	}
	s.ResourceUpdated("notes://work/1")
	expectNote(t, l1, id1, "notifications/resources/updated", "notes://work/1")
	expectNote(t, l2, id2, "notifications/resources/updated", "notes://work/1")
	waitPublished(t, s) // the failed publish is logged, nothing else happens
}
