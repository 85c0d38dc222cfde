package httpsession

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// conn counts how often the store closes it.
type conn struct{ closed atomic.Int32 }

func (c *conn) Close() { c.closed.Add(1) }

func newStore(max, perPeer int) *Store[*conn] {
	return NewStore(max, perPeer, time.Hour, "r1-", func(string, *httpstream.Exchange) *conn { return &conn{} })
}

// TestStoreReservesSlots: initializes in progress hold their slots, so
// concurrent initializes cannot take the store beyond its bound, and a slot is
// given back when initialize fails.
func TestStoreReservesSlots(t *testing.T) {
	st := newStore(2, 0)
	var made []*Session[*conn]
	for i := range 3 {
		hs, err := st.Create("10.0.0.1", "10.0.0.1")
		ok := err == nil
		if ok {
			made = append(made, hs)
		}
		if want := i < 2; ok != want {
			t.Fatalf("create %d (none added yet): got %v, want %v", i, ok, want)
		}
	}
	for _, hs := range made {
		if !strings.HasPrefix(hs.ID, "r1-") {
			t.Errorf("session id %q lacks the prefix r1-", hs.ID)
		}
		st.Add(hs)
	}
	if n := len(st.All()); n != 2 {
		t.Fatalf("store holds %d sessions, want 2", n)
	}
	st.Remove(made[0].ID)
	if made[0].Conn.closed.Load() != 1 {
		t.Error("a removed session was not closed")
	}
	hs, err := st.Create("10.0.0.1", "10.0.0.1")
	if err != nil {
		t.Fatalf("create after a session ended: %v", err)
	}
	st.Release(hs) // its initialize failed
	if _, err := st.Create("10.0.0.1", "10.0.0.1"); err != nil {
		t.Fatalf("create after a failed initialize gave its slot back: %v", err)
	}
	st.CloseAll()
	if st.Sweeping() {
		t.Error("the idle sweep still runs after CloseAll")
	}
}

// TestStoreEvictsAbandoned: a full store evicts a session never used after
// initialize, never one in active use; a peer at its bound loses its own.
func TestStoreEvictsAbandoned(t *testing.T) {
	st := newStore(2, 0)
	busy, _ := st.Create("a", "a")
	st.Add(busy)
	leave := busy.Enter()
	idle, _ := st.Create("b", "b")
	st.Add(idle)
	if _, err := st.Create("c", "c"); err != nil {
		t.Fatalf("create in a full store with an abandoned session: %v", err)
	}
	if idle.Conn.closed.Load() != 1 || busy.Conn.closed.Load() != 0 {
		t.Errorf("evicted: abandoned closed %d times, busy %d; want 1 and 0", idle.Conn.closed.Load(), busy.Conn.closed.Load())
	}
	if _, err := st.Create("d", "d"); !errors.Is(err, ErrTooManySessions) {
		t.Errorf("create with every session busy or reserved: %v, want %v", err, ErrTooManySessions)
	}
	leave()
	st.CloseAll()

	per := newStore(10, 1)
	s1, _ := per.Create("p", "p")
	per.Add(s1)
	s1.Enter()
	if _, err := per.Create("p", "p"); !errors.Is(err, ErrTooManyPeerSessions) {
		t.Errorf("second session of a busy peer: %v, want %v", err, ErrTooManyPeerSessions)
	}
	per.CloseAll()
}

// TestResume: a Last-Event-ID names a request stream or the standalone one.
func TestResume(t *testing.T) {
	st := newStore(1, 0)
	hs, _ := st.Create("p", "p")
	st.Add(hs)
	x := hs.NewStream(true)
	if got, seq, ok := hs.Resume(x.Stream() + "_3"); !ok || got != x || seq != 3 {
		t.Errorf("resume %s_3: %v %d %v", x.Stream(), got, seq, ok)
	}
	if got, _, ok := hs.Resume("0_0"); !ok || got != hs.Standalone {
		t.Error("resume 0_0 does not find the standalone stream")
	}
	for _, bad := range []string{"", "1", "1_x", "1_-1", "99_1"} {
		if _, _, ok := hs.Resume(bad); ok {
			t.Errorf("resume %q: found a stream", bad)
		}
	}
	hs.DropStream(x)
	if _, _, ok := hs.Resume(x.Stream() + "_0"); ok {
		t.Error("a dropped stream can still be resumed")
	}
	st.CloseAll()
}

// TestPeerOf: the unit of MaxSessionsPerPeer is the address without its port,
// and an IPv6 /64.
func TestPeerOf(t *testing.T) {
	for _, c := range []struct{ remote, want string }{
		{"10.0.0.1:1234", "10.0.0.1"},
		{"[2001:db8:1:2:aaaa::1]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:bbbb::9%eth0]:80", "2001:db8:1:2::/64"},
		{"[::ffff:10.0.0.1]:1", "::ffff:10.0.0.1"},
		{"pipe", "pipe"},
	} {
		if got := PeerOf(&http.Request{RemoteAddr: c.remote}); got != c.want {
			t.Errorf("PeerOf(%q) = %q, want %q", c.remote, got, c.want)
		}
	}
}
