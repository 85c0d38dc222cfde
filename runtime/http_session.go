package runtime

import (
	"crypto/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
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
	caller     string // principalID of the caller that opened it (authorize.go)
	ss         *Session
	standalone *exchange // stream "0": unsolicited messages and requests

	// mu guards the fields below.
	mu       sync.Mutex
	streams  map[string]*exchange // resumable request streams by id
	order    []string             // stream ids, oldest first
	next     int                  // last stream number handed out
	lastUsed time.Time
	active   int // running requests and open GET streams; an active session is never idle
	requests int // running requests (bounded by Options.MaxConcurrentRequests)
}

// newStream registers a resumable exchange for one request.
func (hs *httpSession) newStream(streamsOK bool) *exchange {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.next++
	id := strconv.Itoa(hs.next)
	x := newExchange(id, streamsOK)
	hs.streams[id] = x
	hs.order = append(hs.order, id)
	if len(hs.order) > maxDetachedStreams {
		delete(hs.streams, hs.order[0])
		hs.order = hs.order[1:]
	}
	return x
}

// dropStream forgets a request stream whose reply reached the client.
func (hs *httpSession) dropStream(x *exchange) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.streams, x.stream)
	for i, id := range hs.order {
		if id == x.stream {
			hs.order = append(hs.order[:i], hs.order[i+1:]...)
			break
		}
	}
}

// resume finds the stream a Last-Event-ID names and the seq to resume after.
func (hs *httpSession) resume(lastEventID string) (*exchange, int, bool) {
	stream, seqText, ok := strings.Cut(lastEventID, "_")
	seq, err := strconv.Atoi(seqText)
	if !ok || err != nil || seq < 0 {
		return nil, 0, false
	}
	if stream == hs.standalone.stream {
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

// close ends the session: in-flight requests are cancelled and streams end.
func (hs *httpSession) close() {
	hs.ss.Close()
	hs.standalone.end()
	hs.mu.Lock()
	streams := make([]*exchange, 0, len(hs.streams))
	for _, x := range hs.streams {
		streams = append(streams, x)
	}
	hs.mu.Unlock()
	for _, x := range streams {
		x.end()
	}
}

// A sessionStore holds the live 2025-11-25 sessions of one handler.
type sessionStore struct {
	max    int
	idle   time.Duration
	prefix string // of every minted id (SessionPrefixEnv)

	// mu guards byID.
	mu   sync.Mutex
	byID map[string]*httpSession
}

// newSessionStore returns an empty store.
func newSessionStore(max int, idle time.Duration) *sessionStore {
	return &sessionStore{max: max, idle: idle, byID: map[string]*httpSession{}, prefix: os.Getenv(SessionPrefixEnv)}
}

// SessionPrefixEnv names the environment variable whose value starts every
// 2025-11-25 session id this process mints (visible ASCII, e.g. "r1-"): behind a
// load balancer, each replica gets its own prefix and the balancer routes a
// session to the replica that minted it (docs/deploy-replicas.md).
const SessionPrefixEnv = "MCP_SESSION_PREFIX"

// newSessionID returns an unguessable session id of visible ASCII (128 bits
// of crypto/rand, base32).
func newSessionID() string { return rand.Text() }

// create makes a session for an initialize request; it is not visible to
// lookups until add. It reports false when the store is full.
func (st *sessionStore) create(srv *Server) (*httpSession, bool) {
	st.sweep(time.Now())
	st.mu.Lock()
	full := len(st.byID) >= st.max
	st.mu.Unlock()
	if full {
		return nil, false
	}
	standalone := newExchange("0", true)
	standalone.keep = maxStandaloneEvents
	hs := &httpSession{id: st.prefix + newSessionID(), ss: srv.NewSession(standalone), standalone: standalone,
		streams: map[string]*exchange{}, lastUsed: time.Now()}
	return hs, true
}

// add makes hs visible to lookups.
func (st *sessionStore) add(hs *httpSession) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.byID[hs.id] = hs
}

// get returns the live session with the given id.
func (st *sessionStore) get(id string) (*httpSession, bool) {
	st.mu.Lock()
	hs, ok := st.byID[id]
	st.mu.Unlock()
	if ok {
		hs.touch(time.Now())
	}
	return hs, ok
}

// remove ends and forgets the session with the given id; it reports whether
// there was one.
func (st *sessionStore) remove(id string) bool {
	st.mu.Lock()
	hs, ok := st.byID[id]
	delete(st.byID, id)
	st.mu.Unlock()
	if ok {
		hs.close()
	}
	return ok
}

// sweep ends sessions idle for longer than the store's idle timeout.
func (st *sessionStore) sweep(now time.Time) {
	cutoff := now.Add(-st.idle)
	st.mu.Lock()
	var stale []*httpSession
	for id, hs := range st.byID {
		if hs.idleSince(cutoff) {
			stale = append(stale, hs)
			delete(st.byID, id)
		}
	}
	st.mu.Unlock()
	for _, hs := range stale {
		hs.close()
	}
}

// endStreams ends every session's standalone stream, so GET responses finish
// and a graceful shutdown is not held up by them.
func (st *sessionStore) endStreams() {
	for _, hs := range st.all() {
		hs.standalone.end()
	}
}

// closeAll ends and forgets every session.
func (st *sessionStore) closeAll() {
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
