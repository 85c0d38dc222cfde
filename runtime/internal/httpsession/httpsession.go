// Package httpsession keeps the 2025-11-25 sessions of the Streamable HTTP
// transport: each session's resumable request streams, its standalone GET
// stream and its counts of running work, and the store that creates, finds,
// evicts and expires them (bounded in all and per remote address). What a
// session serves (the dispatcher's side) is the type parameter.
package httpsession

import (
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// A Conn is the dispatcher's side of a session, closed when the session ends.
type Conn interface{ Close() }

// maxDetachedStreams bounds the request streams a session keeps for clients
// that may resume them; the oldest is forgotten first.
const maxDetachedStreams = 64

// maxStandaloneEvents bounds the unsolicited messages kept for a session's
// GET stream while no client reads it.
const maxStandaloneEvents = 256

// A Session is one 2025-11-25 client on the Streamable HTTP transport: the
// dispatcher's session (Conn), the standalone stream its GET reads, and the
// request streams a client may resume with Last-Event-ID.
type Session[C Conn] struct {
	ID         string
	Peer       string // the client's address, for MaxSessionsPerPeer
	Owner      string // the client's address and caller: what a full store shares fairly
	Caller     string // who opened it (set by the transport after initialize)
	Conn       C
	Standalone *httpstream.Exchange // stream "0": unsolicited messages and requests

	// mu guards the fields below.
	mu       sync.Mutex
	streams  map[string]*httpstream.Exchange // resumable request streams by id
	order    []string                        // stream ids, oldest first
	next     int                             // last stream number handed out
	lastUsed time.Time
	active   int  // running requests and open GET streams; an active session is never idle
	requests int  // running requests (bounded by Options.MaxConcurrentRequests)
	used     bool // a request or GET came after initialize: the client did not abandon it
}

// NewStream registers a resumable exchange for one request.
func (hs *Session[C]) NewStream(streamsOK bool) *httpstream.Exchange {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.next++
	id := strconv.Itoa(hs.next)
	x := httpstream.New(id, streamsOK)
	hs.streams[id] = x
	hs.order = append(hs.order, id)
	if len(hs.order) > maxDetachedStreams {
		delete(hs.streams, hs.order[0])
		hs.order = hs.order[1:]
	}
	return x
}

// DropStream forgets a request stream whose reply reached the client.
func (hs *Session[C]) DropStream(x *httpstream.Exchange) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.streams, x.Stream())
	for i, id := range hs.order {
		if id == x.Stream() {
			hs.order = append(hs.order[:i], hs.order[i+1:]...)
			break
		}
	}
}

// resume finds the stream a Last-Event-ID names and the seq to resume after.
func (hs *Session[C]) Resume(lastEventID string) (*httpstream.Exchange, int, bool) {
	stream, seqText, ok := strings.Cut(lastEventID, "_")
	seq, err := strconv.Atoi(seqText)
	if !ok || err != nil || seq < 0 {
		return nil, 0, false
	}
	if stream == hs.Standalone.Stream() {
		return hs.Standalone, seq, true
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	x, ok := hs.streams[stream]
	return x, seq, ok
}

// touch records activity now.
func (hs *Session[C]) Touch(now time.Time) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.lastUsed = now
}

// idleSince reports whether the session has nothing running and saw no
// activity since t.
func (hs *Session[C]) idleSince(t time.Time) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.active == 0 && hs.lastUsed.Before(t)
}

// enter records the start of a request or stream; the returned func records
// its end.
func (hs *Session[C]) Enter() (leave func()) {
	hs.arrive()
	return hs.leave
}

// arrive counts a request or stream in progress; leave ends it.
func (hs *Session[C]) arrive() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.active++
	hs.used = true
}

// leave ends what arrive counted.
func (hs *Session[C]) leave() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.active--
	hs.lastUsed = time.Now()
}

// AdmitRequest records the start of a request unless limit requests are already
// running; LeaveRequest records its end.
func (hs *Session[C]) AdmitRequest(limit int) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.requests >= limit {
		return false
	}
	hs.requests++
	hs.active++
	hs.used = true
	return true
}

// LeaveRequest ends what AdmitRequest admitted.
func (hs *Session[C]) LeaveRequest() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.requests--
	hs.active--
	hs.lastUsed = time.Now()
}

// close ends the session: in-flight requests are cancelled, streams end and
// what they buffered for resumption is freed (nobody can resume them now).
func (hs *Session[C]) Close() {
	hs.Conn.Close()
	hs.Standalone.Discard()
	hs.mu.Lock()
	streams := make([]*httpstream.Exchange, 0, len(hs.streams))
	for _, x := range hs.streams {
		streams = append(streams, x)
	}
	hs.streams, hs.order = map[string]*httpstream.Exchange{}, nil
	hs.mu.Unlock()
	for _, x := range streams {
		x.Discard()
	}
}

// evictionRank orders sessions for eviction when the store is full: a
// session in active use is never evicted (ok false); sessions the client
// never used after initialize go before used ones, and the least recently
// used first within each kind.
func (hs *Session[C]) evictionRank() (neverUsed bool, lastUsed time.Time, ok bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return !hs.used, hs.lastUsed, hs.active == 0
}

// expiry returns when the session ends unless used again; ok is false while
// it is in active use.
func (hs *Session[C]) expiry(idle time.Duration) (time.Time, bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.lastUsed.Add(idle), hs.active == 0
}

// A Store holds the live 2025-11-25 sessions of one handler. Every
// session counts against max from the moment its initialize is admitted
// (create reserves the slot) until it ends; at most perPeer of them belong to
// one remote address. A full store makes room by evicting an abandoned
// session (evictLocked) before it refuses, but never one of an owner (an
// address and caller) holding no more than its fair share while the owner
// asking for room holds more: one client cannot push out the others'
// sessions, from however many addresses. Idle sessions end after idle, by a
// timer armed while sessions live, without waiting for other traffic.
type Store[C Conn] struct {
	max     int
	perPeer int
	idle    time.Duration // read under mu (SetIdle)
	prefix  string        // of every minted id
	newConn func(id string, standalone *httpstream.Exchange) C

	// mu guards the fields below.
	mu       sync.Mutex
	byID     map[string]*Session[C]
	reserved int            // sessions created and not yet added or released
	peers    map[string]int // sessions (live and reserved) per remote address
	owners   map[string]int // sessions (live and reserved) per owner
	sweeper  *time.Timer    // ends idle sessions; nil while none lives
	closed   bool           // shut down: no new sessions
	// sweepAt is when the first session can expire, as the last sweep found
	// (with idle = sweepIdle): create sweeps only from then on, so opening n
	// sessions no longer walks every live one n times.
	sweepAt   time.Time
	sweepIdle time.Duration
}

// Reasons an initialize is refused (503).
var (
	ErrTooManySessions     = errors.New("too many sessions")
	ErrTooManyPeerSessions = errors.New("too many sessions from this client")
)

// NewStore returns an empty store; perPeer <= 0 or above max means max. Every
// minted id starts with prefix; newConn makes the dispatcher side of the
// session with that id, whose unsolicited messages go to standalone.
func NewStore[C Conn](max, perPeer int, idle time.Duration, prefix string, newConn func(id string, standalone *httpstream.Exchange) C) *Store[C] {
	if perPeer <= 0 || perPeer > max {
		perPeer = max
	}
	return &Store[C]{max: max, perPeer: perPeer, idle: idle, byID: map[string]*Session[C]{},
		peers: map[string]int{}, owners: map[string]int{}, prefix: prefix, newConn: newConn}
}

// PeerOf returns the address a request came from, without its port: the
// unit MaxSessionsPerPeer bounds. An IPv6 address counts as its /64, which
// one client typically holds whole.
func PeerOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Is6() && !ip.Is4In6() {
		if p, err := ip.WithZone("").Prefix(64); err == nil {
			return p.String()
		}
	}
	return host
}

// NewID returns an unguessable session id of visible ASCII (128 bits
// of crypto/rand, base32).
func NewID() string { return rand.Text() }

// Create makes a session for an initialize request from peer by owner (peer
// and caller, see Store), reserving its slot: it is not visible to lookups
// until add, and release gives the slot back when initialize fails. When peer
// holds perPeer sessions, or the store is full, an abandoned session makes
// room (evict); when none can, create refuses with ErrTooManyPeerSessions or
// ErrTooManySessions.
func (st *Store[C]) Create(peer, owner string) (*Session[C], error) {
	now := time.Now()
	st.mu.Lock()
	due := st.idle != st.sweepIdle || !now.Before(st.sweepAt)
	st.mu.Unlock()
	if due {
		st.sweep(now)
	}
	st.mu.Lock()
	var evicted []*Session[C]
	err := st.makeRoomLocked(peer, owner, &evicted)
	if err == nil {
		st.reserved++
		st.peers[peer]++
		st.owners[owner]++
	}
	st.mu.Unlock()
	for _, hs := range evicted {
		hs.Close()
	}
	if err != nil {
		return nil, err
	}
	standalone := httpstream.New("0", true)
	standalone.Keep = maxStandaloneEvents
	id := st.prefix + NewID()
	hs := &Session[C]{ID: id, Peer: peer, Owner: owner, Conn: st.newConn(id, standalone),
		Standalone: standalone, streams: map[string]*httpstream.Exchange{}, lastUsed: time.Now()}
	return hs, nil
}

// makeRoomLocked evicts, into *evicted, what a new session of peer by owner
// needs: one of peer's own sessions when it holds perPeer, then, when the
// store is full, one chosen by evictFairLocked. st.mu must be held.
func (st *Store[C]) makeRoomLocked(peer, owner string, evicted *[]*Session[C]) error {
	if st.closed {
		return ErrTooManySessions
	}
	if st.peers[peer] >= st.perPeer {
		hs := st.evictLocked(func(hs *Session[C]) bool { return hs.Peer == peer })
		if hs == nil {
			return ErrTooManyPeerSessions
		}
		*evicted = append(*evicted, hs)
	}
	if len(st.byID)+st.reserved >= st.max {
		hs := st.evictFairLocked(owner)
		if hs == nil {
			return ErrTooManySessions
		}
		*evicted = append(*evicted, hs)
	}
	return nil
}

// evictFairLocked picks the session a full store ends for a new one of owner.
// The fair share of each owner is max divided by the owners (owner included).
// An owner whose new session would take it beyond its share ends one of its
// own; otherwise, or when it has none idle, one of an owner beyond its share
// ends. An owner within its share loses nothing to others, so one client
// opening sessions from many addresses recycles its own. st.mu must be held.
func (st *Store[C]) evictFairLocked(owner string) *Session[C] {
	n := len(st.owners)
	if st.owners[owner] == 0 {
		n++
	}
	own := func(hs *Session[C]) bool { return hs.Owner == owner }
	if (st.owners[owner]+1)*n > st.max {
		if hs := st.evictLocked(own); hs != nil {
			return hs
		}
	}
	if hs := st.evictLocked(func(hs *Session[C]) bool { return hs.Owner != owner && st.owners[hs.Owner]*n > st.max }); hs != nil {
		return hs
	}
	return st.evictLocked(own)
}

// evictLocked forgets and returns the session to end for room among those
// candidate accepts, in evictionRank order, or nil when every candidate is in
// active use. st.mu must be held.
func (st *Store[C]) evictLocked(candidate func(*Session[C]) bool) *Session[C] {
	var victim *Session[C]
	var vNever bool
	var vLast time.Time
	for _, hs := range st.byID {
		if !candidate(hs) {
			continue
		}
		never, last, ok := hs.evictionRank()
		if !ok {
			continue
		}
		if victim == nil || (never && !vNever) || (never == vNever && last.Before(vLast)) {
			victim, vNever, vLast = hs, never, last
		}
	}
	if victim != nil {
		st.forgetLocked(victim)
	}
	return victim
}

// forgetLocked removes hs from the store and its counts. st.mu must be held.
func (st *Store[C]) forgetLocked(hs *Session[C]) {
	delete(st.byID, hs.ID)
	st.uncountLocked(hs)
}

// uncountLocked gives back one of hs's peer's and owner's sessions. st.mu
// must be held.
func (st *Store[C]) uncountLocked(hs *Session[C]) {
	decrement(st.peers, hs.Peer)
	decrement(st.owners, hs.Owner)
}

// decrement takes one from m[k], forgetting k at zero.
func decrement(m map[string]int, k string) {
	if m[k] <= 1 {
		delete(m, k)
		return
	}
	m[k]--
}

// add makes a created session visible to lookups, and starts the idle sweep
// if it is not running.
func (st *Store[C]) Add(hs *Session[C]) {
	st.mu.Lock()
	st.reserved--
	if st.closed {
		st.uncountLocked(hs)
		st.mu.Unlock()
		hs.Close()
		return
	}
	st.byID[hs.ID] = hs
	if st.sweeper == nil {
		st.sweeper = time.AfterFunc(st.idle, st.sweepTick)
	}
	st.mu.Unlock()
}

// release gives back the slot of a created session whose initialize failed,
// and ends it.
func (st *Store[C]) Release(hs *Session[C]) {
	st.mu.Lock()
	st.reserved--
	st.uncountLocked(hs)
	st.mu.Unlock()
	hs.Close()
}

// get returns the live session with the given id. A session idle for longer
// than the store's idle timeout is no longer live, even before the sweep ends it.
func (st *Store[C]) Get(id string) (*Session[C], bool) {
	now := time.Now()
	st.mu.Lock()
	hs, ok := st.byID[id]
	if ok && hs.idleSince(now.Add(-st.idle)) {
		st.forgetLocked(hs)
		st.mu.Unlock()
		hs.Close()
		return nil, false
	}
	st.mu.Unlock()
	if ok {
		hs.Touch(now)
	}
	return hs, ok
}

// remove ends and forgets the session with the given id; it reports whether
// there was one.
func (st *Store[C]) Remove(id string) bool {
	st.mu.Lock()
	hs, ok := st.byID[id]
	if ok {
		st.forgetLocked(hs)
	}
	st.mu.Unlock()
	if ok {
		hs.Close()
	}
	return ok
}

// sweep ends sessions idle for longer than the store's idle timeout, and
// returns when the next of the others would expire (zero: none can yet, all
// are in active use or there are none).
func (st *Store[C]) sweep(now time.Time) (next time.Time) {
	st.mu.Lock()
	var stale []*Session[C]
	for _, hs := range st.byID {
		at, ok := hs.expiry(st.idle)
		switch {
		case !ok:
		case !at.After(now):
			stale = append(stale, hs)
			st.forgetLocked(hs)
		case next.IsZero() || at.Before(next):
			next = at
		}
	}
	// No session expires before next; one idle later (in active use now, or
	// created later) expires no earlier than now + idle.
	st.sweepAt, st.sweepIdle = next, st.idle
	if next.IsZero() {
		st.sweepAt = now.Add(st.idle)
	}
	st.mu.Unlock()
	for _, hs := range stale {
		hs.Close()
	}
	return next
}

// sweepTick runs the idle sweep from the store's timer and re-arms it for the
// next expiry (or one idle timeout from now, when every session is in active
// use); the timer stops when no session lives or the store is shut down.
func (st *Store[C]) sweepTick() {
	now := time.Now()
	next := st.sweep(now)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || len(st.byID) == 0 {
		st.sweeper = nil
		return
	}
	wait := st.idle
	if !next.IsZero() {
		wait = next.Sub(now)
	}
	st.sweeper = time.AfterFunc(wait, st.sweepTick)
}

// EndStreams ends every session's standalone stream, so GET responses finish
// and a graceful shutdown is not held up by them.
func (st *Store[C]) EndStreams() {
	for _, hs := range st.All() {
		hs.Standalone.End()
	}
}

// CloseAll ends and forgets every session, stops the idle sweep, and
// refuses sessions from now on (shutdown).
func (st *Store[C]) CloseAll() {
	st.mu.Lock()
	st.closed = true
	if st.sweeper != nil {
		st.sweeper.Stop()
		st.sweeper = nil
	}
	st.mu.Unlock()
	for _, hs := range st.All() {
		st.Remove(hs.ID)
	}
}

// all returns the live sessions.
func (st *Store[C]) All() []*Session[C] {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*Session[C], 0, len(st.byID))
	for _, hs := range st.byID {
		out = append(out, hs)
	}
	return out
}

// SetIdle changes the idle timeout and re-arms the sweep, if one runs, to fire
// after it (tests shorten it).
func (st *Store[C]) SetIdle(d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.idle = d
	if st.sweeper != nil {
		st.sweeper.Reset(d)
	}
}

// Sweeping reports whether the idle sweep is armed.
func (st *Store[C]) Sweeping() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sweeper != nil
}
