package subscribe

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
)

// conn is a connection that records what it is sent.
type conn struct {
	mu     sync.Mutex
	msgs   []string
	closed bool
}

type testConn struct{ c *conn }

func (t testConn) Closed() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.c.closed
}

func (t testConn) Send(_ context.Context, msg []byte) error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.c.msgs = append(t.c.msgs, string(msg))
	return nil
}

func (t testConn) got() []string {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return append([]string(nil), t.c.msgs...)
}

func newConn() testConn { return testConn{&conn{}} }

// TestAudience: which clients each kind of notice selects.
func TestAudience(t *testing.T) {
	l := &Listener[testConn]{Who: "alice", Filter: Filter{ToolsListChanged: true,
		ResourceSubscriptions: []string{"notes://work"}, TaskIDs: []string{"t1"}}}
	sess := &session{who: "alice", uris: map[string]bool{"test://a": true}}
	type audience = fanout.Audience
	tests := []struct {
		to                audience
		listener, session bool
	}{
		{audience{List: "tools"}, true, true},
		{audience{List: "prompts"}, false, true},
		{audience{List: "bogus"}, false, true},
		{audience{URI: "notes://work/1"}, true, false},
		{audience{URI: "notes://workshop"}, false, false},
		{audience{URI: "test://a"}, false, true},
		{audience{TaskID: "t1"}, true, false},
		{audience{TaskID: "t2"}, false, false},
		{audience{TaskID: "t1", Principal: "bob"}, false, false},
		{audience{List: "tools", Principal: "bob"}, false, false},
		{audience{Principal: "alice"}, false, true},
		{audience{}, false, false},
	}
	for _, tt := range tests {
		if got := wantsListener(&tt.to, l); got != tt.listener {
			t.Errorf("%+v: listener %v, want %v", tt.to, got, tt.listener)
		}
		if got := wantsSession(&tt.to, sess); got != tt.session {
			t.Errorf("%+v: session %v, want %v", tt.to, got, tt.session)
		}
	}
}

// TestListenFrame: the frame of a listen-stream notification, with and
// without params and _meta, is one valid JSON-RPC notification whose
// _meta holds the subscription id (and the params' own _meta members).
func TestListenFrame(t *testing.T) {
	for _, p := range []string{"", `{}`, ` { } `, `{"uri":"a"}`, `{"uri":"a","x":[1,{"_meta":2}]}`, `{"_meta":{"k":"v"},"uri":"a"}`,
		`{"_meta":{"io.modelcontextprotocol/subscriptionId":"old"},"uri":"a"}`} {
		n := fanout.Notice{Method: "notifications/resources/updated"}
		if p != "" {
			n.Params = json.RawMessage(p)
		}
		head, tail, err := listenFrame(n)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		msg := string(head) + `7` + string(tail)
		var m struct {
			JSONRPC, Method string
			Params          map[string]json.RawMessage
		}
		if err := json.Unmarshal([]byte(msg), &m); err != nil {
			t.Fatalf("params %s: frame %s: %v", p, msg, err)
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(m.Params["_meta"], &meta)
		if m.Method != n.Method || string(meta[MetaSubscriptionID]) != "7" {
			t.Errorf("params %s: frame %s", p, msg)
		}
		if strings.Contains(p, `"uri"`) && string(m.Params["uri"]) != `"a"` {
			t.Errorf("params %s: frame %s lost the uri", p, msg)
		}
		if strings.Contains(p, `"k"`) && string(meta["k"]) != `"v"` {
			t.Errorf("params %s: frame %s lost _meta.k", p, msg)
		}
	}
	if _, _, err := listenFrame(fanout.Notice{Method: "m", Params: json.RawMessage(`{"_meta":[1]}`)}); err == nil {
		t.Error("a params._meta that is not an object was framed")
	}
}

// TestHubSessions: sessions are counted, closed ones forgotten, and a
// notice reaches the sessions it selects, compacted to one line.
func TestHubSessions(t *testing.T) {
	var h Hub[testConn]
	changes := 0
	h.Changed = func() { changes++ }
	a, b := newConn(), newConn()
	h.AddSession(a, "alice")
	h.Subscribe(a, "notes://", true)
	h.AddSession(b, "bob")
	if h.Members() != 2 || changes != 2 {
		t.Fatalf("members %d after %d changes, want 2 after 2", h.Members(), changes)
	}
	h.Deliver(fanout.Notice{Method: "notifications/resources/updated", Params: json.RawMessage("{\n\"uri\": \"notes://x\"}"),
		To: fanout.Audience{URI: "notes://x"}}, func(string, error) { t.Error("send failed") })
	if got := a.got(); len(got) != 1 || got[0] != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"notes://x"}}` {
		t.Errorf("subscribed session got %q", got)
	}
	if got := b.got(); len(got) != 0 {
		t.Errorf("unsubscribed session got %q", got)
	}
	h.Subscribe(a, "notes://", false)
	h.Deliver(fanout.Notice{Method: "m", To: fanout.Audience{URI: "notes://x"}}, nil)
	if got := a.got(); len(got) != 1 {
		t.Errorf("unsubscribed session got %q", got)
	}
	a.c.closed = true
	h.AddSession(newConn(), "")
	if n := h.Sessions(); n != 2 {
		t.Errorf("%d sessions after one closed and one joined, want 2", n)
	}
	h.DropSession(b)
	if n := h.Members(); n != 1 {
		t.Errorf("%d members after a drop, want 1", n)
	}
}

// TestHubListen: the acknowledgement goes first, matching notices follow
// with the subscription id, End ends the stream, and nothing is sent after.
func TestHubListen(t *testing.T) {
	var h Hub[testConn]
	stdio, out := newConn(), newConn()
	l := &Listener[testConn]{ID: json.RawMessage("42"), Conn: stdio, Who: "alice", Out: out, Filter: Filter{ToolsListChanged: true}}
	done := make(chan error)
	go func() { done <- h.Listen(context.Background(), l) }()
	for h.Listeners() == 0 {
		time.Sleep(time.Millisecond)
	}
	h.Deliver(fanout.Notice{Method: "notifications/tools/list_changed", To: fanout.Audience{List: "tools"}}, nil)
	h.Deliver(fanout.Notice{Method: "notifications/prompts/list_changed", To: fanout.Audience{List: "prompts"}}, nil)
	h.End(newConn(), false) // another connection's streams: not this one
	select {
	case <-done:
		t.Fatal("a stream of another connection ended it")
	case <-time.After(20 * time.Millisecond):
	}
	h.End(stdio, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	h.Deliver(fanout.Notice{Method: "notifications/tools/list_changed", To: fanout.Audience{List: "tools"}}, nil)
	want := []string{`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":42},"notifications":{"toolsListChanged":true}}}`, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":42}}}`}
	if got := out.got(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stream got %q, want %q", got, want)
	}
	if err := l.sendFramed(context.Background(), nil, nil); err != ErrEnded {
		t.Errorf("send after the end: %v, want ErrEnded", err)
	}
	if h.Members() != 0 {
		t.Errorf("%d members after the stream ended", h.Members())
	}
	if got := string(l.Result(json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"s"}}`))); got !=
		`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s"},"io.modelcontextprotocol/subscriptionId":42},"resultType":"complete"}` {
		t.Errorf("result %s", got)
	}
	if got := string(l.Result(json.RawMessage(`{}`))); got != `{"_meta":{"io.modelcontextprotocol/subscriptionId":42},"resultType":"complete"}` {
		t.Errorf("result without server _meta %s", got)
	}
}

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter(json.RawMessage(`{"notifications":{"promptsListChanged":true,"taskIds":["a"]}}`))
	if err != nil || !f.WantsList("prompts") || f.WantsList("tools") || len(f.TaskIDs) != 1 {
		t.Errorf("filter %+v %v", f, err)
	}
	for _, bad := range []string{`{}`, `{"notifications":null}`, `{"notifications":[]}`, `[]`} {
		if _, err := ParseFilter(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
