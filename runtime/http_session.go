package runtime

// http_session.go: the 2025-11-25 HTTP sessions: their resumable streams, their
// limits, and the store that creates, finds and expires them.

import (
	"crypto/rand"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
)

// maxDetachedStreams bounds the request streams a session keeps for clients
// that may resume them; the oldest is forgotten first.
const maxDetachedStreams = 64

// maxStandaloneEvents bounds the unsolicited messages kept for a session's
// GET stream while no client reads it.
const maxStandaloneEvents = 256

// An httpSession is one 2025-11-25 client on the Streamable HTTP transport:
// the dispatcher's Session, the standalone stream its GET reads, and the
// request streams a client may resume with Last-Event-ID.
type httpSession struct {
	id         string
	peer       string // the client's address, for MaxSessionsPerPeer
	caller     string // principalID of the caller that opened it (authorize.go)
	ss         *Session
	standalone *httpstream.Exchange // stream "0": unsolicited messages and requests

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

// newStream registers a resumable exchange for one request.
func (hs *httpSession) newStream(streamsOK bool) *httpstream.Exchange {
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

// dropStream forgets a request stream whose reply reached the client.
func (hs *httpSession) dropStream(x *httpstream.Exchange) {
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
func (hs *httpSession) resume(lastEventID string) (*httpstream.Exchange, int, bool) {
	stream, seqText, ok := strings.Cut(lastEventID, "_")
	seq, err := strconv.Atoi(seqText)
	if !ok || err != nil || seq < 0 {
		return nil, 0, false
	}
	if stream == hs.standalone.Stream() {
		return hs.standalone, seq, true
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	x, ok := hs.streams[stream]
	return x, seq, ok
}

// touch records activity now.
func (hs *httpSession) touch(now time.Time) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.lastUsed = now
}

// idleSince reports whether the session has nothing running and saw no
// activity since t.
func (hs *httpSession) idleSince(t time.Time) bool {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.active == 0 && hs.lastUsed.Before(t)
}

// enter records the start of a request or stream; the returned func records
// its end.
func (hs *httpSession) enter() (leave func()) {
	hs.arrive()
	return hs.leave
}

// arrive counts a request or stream in progress; leave ends it.
func (hs *httpSession) arrive() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.active++
	hs.used = true
}

// leave ends what arrive counted.
func (hs *httpSession) leave() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.active--
	hs.lastUsed = time.Now()
}

// admitRequest records the start of a request unless limit requests are already
// running; leaveRequest records its end.
func (hs *httpSession) admitRequest(limit int) bool {
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

// leaveRequest ends what admitRequest admitted.
func (hs *httpSession) leaveRequest() {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.requests--
	hs.active--
	hs.lastUsed = time.Now()
}

// close ends the session: in-flight requests are cancelled, streams end and
// what they buffered for resumption is freed (nobody can resume them now).
func (hs *httpSession) close() {
	hs.ss.Close()
	hs.standalone.Discard()
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
func (hs *httpSession) evictionRank() (neverUsed bool, lastUsed time.Time, ok bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return !hs.used, hs.lastUsed, hs.active == 0
}

// expiry returns when the session ends unless used again; ok is false while
// it is in active use.
func (hs *httpSession) expiry(idle time.Duration) (time.Time, bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.lastUsed.Add(idle), hs.active == 0
}

// A sessionStore holds the live 2025-11-25 sessions of one handler. Every
// session counts against max from the moment its initialize is admitted
// (create reserves the slot) until it ends; at most perPeer of them belong to
// one remote address. A full store makes room by evicting an abandoned
// session (evictLocked) before it refuses. Idle sessions end after idle, by a
// timer armed while sessions live, without waiting for other traffic.
type sessionStore struct {
	max     int
	perPeer int
	idle    time.Duration // read under mu (tests shorten it)
	prefix  string        // of every minted id (SessionPrefixEnv)

	// mu guards the fields below.
	mu       sync.Mutex
	byID     map[string]*httpSession
	reserved int            // sessions created and not yet added or released
	peers    map[string]int // sessions (live and reserved) per remote address
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
	errTooManySessions     = errors.New("too many sessions")
	errTooManyPeerSessions = errors.New("too many sessions from this client")
)

// newSessionStore returns an empty store; perPeer <= 0 or above max means max.
func newSessionStore(max, perPeer int, idle time.Duration) *sessionStore {
	if perPeer <= 0 || perPeer > max {
		perPeer = max
	}
	return &sessionStore{max: max, perPeer: perPeer, idle: idle, byID: map[string]*httpSession{},
		peers: map[string]int{}, prefix: os.Getenv(SessionPrefixEnv)}
}

// SessionPrefixEnv names the environment variable whose value starts every
// 2025-11-25 session id this process mints (visible ASCII, e.g. "r1-"): behind a
// load balancer, each replica gets its own prefix and the balancer routes a
// session to the replica that minted it (docs/deploy-replicas.md).
const SessionPrefixEnv = "MCP_SESSION_PREFIX"

// peerOf returns the address a request came from, without its port: the
// unit MaxSessionsPerPeer bounds. An IPv6 address counts as its /64, which
// one client typically holds whole.
func peerOf(r *http.Request) string {
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

// newSessionID returns an unguessable session id of visible ASCII (128 bits
// of crypto/rand, base32).
func newSessionID() string { return rand.Text() }

// create makes a session for an initialize request from peer, reserving its
// slot: it is not visible to lookups until add, and release gives the slot
// back when initialize fails. When peer holds perPeer sessions, or the store
// is full, an abandoned session makes room (evict); when none can, create
// refuses with errTooManyPeerSessions or errTooManySessions.
func (st *sessionStore) create(srv *Server, peer string) (*httpSession, error) {
	now := time.Now()
	st.mu.Lock()
	due := st.idle != st.sweepIdle || !now.Before(st.sweepAt)
	st.mu.Unlock()
	if due {
		st.sweep(now)
	}
	st.mu.Lock()
	var evicted []*httpSession
	err := st.makeRoomLocked(peer, &evicted)
	if err == nil {
		st.reserved++
		st.peers[peer]++
	}
	st.mu.Unlock()
	for _, hs := range evicted {
		hs.close()
	}
	if err != nil {
		return nil, err
	}
	standalone := httpstream.New("0", true)
	standalone.Keep = maxStandaloneEvents
	hs := &httpSession{id: st.prefix + newSessionID(), peer: peer, ss: srv.NewSession(standalone),
		standalone: standalone, streams: map[string]*httpstream.Exchange{}, lastUsed: time.Now()}
	return hs, nil
}

// makeRoomLocked evicts, into *evicted, what a new session of peer needs:
// one of peer's own sessions when it holds perPeer, then any when the store
// is full. st.mu must be held.
func (st *sessionStore) makeRoomLocked(peer string, evicted *[]*httpSession) error {
	if st.closed {
		return errTooManySessions
	}
	if st.peers[peer] >= st.perPeer {
		hs := st.evictLocked(peer)
		if hs == nil {
			return errTooManyPeerSessions
		}
		*evicted = append(*evicted, hs)
	}
	if len(st.byID)+st.reserved >= st.max {
		hs := st.evictLocked("")
		if hs == nil {
			return errTooManySessions
		}
		*evicted = append(*evicted, hs)
	}
	return nil
}

// evictLocked forgets and returns the session to end for room (of peer, or
// of anyone when peer is ""), in evictionRank order, or nil when every
// candidate is in active use. st.mu must be held.
func (st *sessionStore) evictLocked(peer string) *httpSession {
	var victim *httpSession
	var vNever bool
	var vLast time.Time
	for _, hs := range st.byID {
		if peer != "" && hs.peer != peer {
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

// forgetLocked removes hs from the store and its peer's count. st.mu must be held.
func (st *sessionStore) forgetLocked(hs *httpSession) {
	delete(st.byID, hs.id)
	st.unpeerLocked(hs.peer)
}

// unpeerLocked gives back one of peer's sessions. st.mu must be held.
func (st *sessionStore) unpeerLocked(peer string) {
	if st.peers[peer] <= 1 {
		delete(st.peers, peer)
		return
	}
	st.peers[peer]--
}

// add makes a created session visible to lookups, and starts the idle sweep
// if it is not running.
func (st *sessionStore) add(hs *httpSession) {
	st.mu.Lock()
	st.reserved--
	if st.closed {
		st.unpeerLocked(hs.peer)
		st.mu.Unlock()
		hs.close()
		return
	}
	st.byID[hs.id] = hs
	if st.sweeper == nil {
		st.sweeper = time.AfterFunc(st.idle, st.sweepTick)
	}
	st.mu.Unlock()
}

// release gives back the slot of a created session whose initialize failed,
// and ends it.
func (st *sessionStore) release(hs *httpSession) {
	st.mu.Lock()
	st.reserved--
	st.unpeerLocked(hs.peer)
	st.mu.Unlock()
	hs.close()
}

// get returns the live session with the given id. A session idle for longer
// than the store's idle timeout is no longer live, even before the sweep ends it.
func (st *sessionStore) get(id string) (*httpSession, bool) {
	now := time.Now()
	st.mu.Lock()
	hs, ok := st.byID[id]
	if ok && hs.idleSince(now.Add(-st.idle)) {
		st.forgetLocked(hs)
		st.mu.Unlock()
		hs.close()
		return nil, false
	}
	st.mu.Unlock()
	if ok {
		hs.touch(now)
	}
	return hs, ok
}

// remove ends and forgets the session with the given id; it reports whether
// there was one.
func (st *sessionStore) remove(id string) bool {
	st.mu.Lock()
	hs, ok := st.byID[id]
	if ok {
		st.forgetLocked(hs)
	}
	st.mu.Unlock()
	if ok {
		hs.close()
	}
	return ok
}

// sweep ends sessions idle for longer than the store's idle timeout, and
// returns when the next of the others would expire (zero: none can yet, all
// are in active use or there are none).
func (st *sessionStore) sweep(now time.Time) (next time.Time) {
	st.mu.Lock()
	var stale []*httpSession
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
		hs.close()
	}
	return next
}

// sweepTick runs the idle sweep from the store's timer and re-arms it for the
// next expiry (or one idle timeout from now, when every session is in active
// use); the timer stops when no session lives or the store is shut down.
func (st *sessionStore) sweepTick() {
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

// endStreams ends every session's standalone stream, so GET responses finish
// and a graceful shutdown is not held up by them.
func (st *sessionStore) endStreams() {
	for _, hs := range st.all() {
		hs.standalone.End()
	}
}

// closeAll ends and forgets every session, stops the idle sweep, and
// refuses sessions from now on (shutdown).
func (st *sessionStore) closeAll() {
	st.mu.Lock()
	st.closed = true
	if st.sweeper != nil {
		st.sweeper.Stop()
		st.sweeper = nil
	}
	st.mu.Unlock()
	for _, hs := range st.all() {
		st.remove(hs.id)
	}
}

// all returns the live sessions.
func (st *sessionStore) all() []*httpSession {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]*httpSession, 0, len(st.byID))
	for _, hs := range st.byID {
		out = append(out, hs)
	}
	return out
}
