package runtime

// subscriptions.go: what clients subscribe to: list changes, resource updates, and the
// subscriptions/listen stream. Changes reach the clients of other replicas through
// fanout.go.

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// metaSubscriptionID tags every notification of a subscriptions/listen stream.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// notifyTimeout bounds each best-effort change notification.
const notifyTimeout = 5 * time.Second

// A hub knows who wants to hear about changes: 2025-11-25 sessions (every
// initialized one hears list changes; resources/subscribe adds URIs) and
// 2026-07-28 subscriptions/listen streams with their filters.
type hub struct {
	// mu guards the maps.
	mu        sync.Mutex
	sessions  map[*Session]*sessionSubs
	listeners map[*listener]struct{}

	members atomic.Int64 // len(sessions)+len(listeners): no lock to find nobody listens
	changed func()       // called after members changed, without mu (fanout.go); may be nil
}

// sessionSubs is what a 2025-11-25 session listens to.
type sessionSubs struct {
	uris map[string]bool // resources/subscribe
	who  string          // principalID of the caller that initialized it
}

// A listener is one open subscriptions/listen stream.
type listener struct {
	id     json.RawMessage // the listen request's id: the subscription id
	sess   *Session        // the stdio connection it arrived on; nil on HTTP
	who    string          // principalID of the caller
	out    Sink
	filter subscriptionFilter
	stop   chan struct{} // closed to end the stream gracefully
	once   sync.Once

	// mu serialises sends, so the acknowledgement goes first and nothing
	// follows the end of the stream.
	mu     sync.Mutex
	closed bool
}

// subscriptionFilter is the SubscriptionFilter of subscriptions/listen and of
// its acknowledgement.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs (io.modelcontextprotocol/tasks) asks for notifications/tasks of
	// these tasks; honoured keeps them only where the tasks extension serves them.
	TaskIDs []string `json:"taskIds,omitempty"`
}

// wants reports whether the filter asked for list changes of kind.
func (f *subscriptionFilter) wants(kind listKind) bool {
	switch kind {
	case kindPrompts:
		return f.PromptsListChanged
	case kindResources:
		return f.ResourcesListChanged
	}
	return f.ToolsListChanged
}

// addSession starts telling an initialized 2025-11-25 session, opened by the
// principal who (principalID), about changes.
func (h *hub) addSession(ss *Session, who string) {
	h.mu.Lock()
	for old := range h.sessions { // forget ended sessions, so the map stays bounded
		if old.isClosed() {
			delete(h.sessions, old)
		}
	}
	h.entry(ss).who = who
	h.unlock()
}

// entry returns the session's entry, adding it; the caller holds mu.
func (h *hub) entry(ss *Session) *sessionSubs {
	if h.sessions == nil {
		h.sessions = map[*Session]*sessionSubs{}
	}
	e := h.sessions[ss]
	if e == nil {
		e = &sessionSubs{uris: map[string]bool{}}
		h.sessions[ss] = e
	}
	return e
}

// unlock recounts the members, releases mu, and reports a change of the count.
func (h *hub) unlock() {
	n := int64(len(h.sessions) + len(h.listeners))
	old := h.members.Swap(n)
	h.mu.Unlock()
	if old != n && h.changed != nil {
		h.changed()
	}
}

// subscribe records a session's resources/subscribe (or, with on false, its
// unsubscribe).
func (h *hub) subscribe(ss *Session, uri string, on bool) {
	h.mu.Lock()
	if e := h.entry(ss); on {
		e.uris[uri] = true
	} else {
		delete(e.uris, uri)
	}
	h.unlock()
}

// dropSession forgets a closed session.
func (h *hub) dropSession(ss *Session) {
	h.mu.Lock()
	delete(h.sessions, ss)
	h.unlock()
}

// liveSessions returns the open sessions for which pick says yes, forgetting
// closed ones.
func (h *hub) liveSessions(pick func(*sessionSubs) bool) []*Session {
	h.mu.Lock()
	var out []*Session
	for ss, e := range h.sessions {
		if ss.isClosed() {
			delete(h.sessions, ss)
			continue
		}
		if pick(e) {
			out = append(out, ss)
		}
	}
	h.unlock()
	return out
}

// addListener registers an open listen stream.
func (h *hub) addListener(l *listener) {
	h.mu.Lock()
	if h.listeners == nil {
		h.listeners = map[*listener]struct{}{}
	}
	h.listeners[l] = struct{}{}
	h.unlock()
}

// removeListener forgets a listen stream; nothing is sent on it afterwards.
func (h *hub) removeListener(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.unlock()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// matching returns the listeners for which pick says yes.
func (h *hub) matching(pick func(*listener) bool) []*listener {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*listener
	for l := range h.listeners {
		if pick(l) {
			out = append(out, l)
		}
	}
	return out
}

// EndSubscriptions gracefully ends the open 2026-07-28 subscriptions/listen
// streams: each gets its final result. Transports call it when they stop (so
// a stream never holds a shutdown up); sess limits it to the streams of one
// stdio connection, nil ends all.
func (s *Server) EndSubscriptions(sess *Session) {
	for _, l := range s.prims.hub.matching(func(l *listener) bool { return sess == nil || l.sess == sess }) {
		l.once.Do(func() { close(l.stop) })
	}
}

// isClosed reports whether the session was closed.
func (ss *Session) isClosed() bool {
	return ss.p.Closed()
}

// sendUnsolicited sends a message on the session's own sink (stdout, or the
// HTTP GET stream).
func (ss *Session) sendUnsolicited(ctx context.Context, msg []byte) error {
	return ss.p.Out().Send(ctx, msg)
}

// sendFramed delivers a notification on the listen stream, its subscription
// id between head and tail (listenFrame), unless the stream has ended.
func (l *listener) sendFramed(ctx context.Context, head, tail []byte) error {
	msg := make([]byte, 0, len(head)+len(l.id)+len(tail))
	msg = append(append(append(msg, head...), l.id...), tail...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrRequestDone
	}
	return l.out.Send(ctx, msg)
}

// listChanged tells every interested client, here and on the other replicas,
// that a list changed.
func (s *Server) listChanged(kind listKind) {
	s.announce(notice{Method: kind.method(), To: audience{List: listName(kind)}})
}

// ResourceUpdated tells the clients subscribed to uri (or to a resource it is
// a sub-resource of, such as "notes://" for "notes://todo") that it changed:
// notifications/resources/updated to 2025-11-25 sessions that called
// resources/subscribe and to 2026-07-28 listen streams whose
// resourceSubscriptions name it, on this process and, when the server's store
// is shared (Options.Store, Main's -store), on every replica sharing it.
// Application code calls it after a change; sending is best effort.
func (s *Server) ResourceUpdated(uri string) {
	if s.prims.hub.members.Load() == 0 && s.fan.Load() == nil {
		return // nobody to tell
	}
	p := append(jsonwire.AppendString([]byte(`{"uri":`), uri), '}')
	s.announce(notice{Method: "notifications/resources/updated", Params: p, To: audience{URI: uri}})
}

// deliver logs a failed best-effort notification.
func (s *Server) deliver(_ context.Context, method string, err error) {
	if err != nil {
		s.logger.Debug("change notification not delivered", "method", method, "err", err)
	}
}

// subscribe answers resources/subscribe (2025-11-25): {} and, from now on,
// notifications/resources/updated for the URI on the session's stream.
func (s *Server) subscribe(_ context.Context, c *call) ([]byte, *rpcError) {
	return s.setSubscription(c, true)
}

// unsubscribe answers resources/unsubscribe (2025-11-25).
func (s *Server) unsubscribe(_ context.Context, c *call) ([]byte, *rpcError) {
	return s.setSubscription(c, false)
}

// setSubscription records a subscription change for the call's session.
func (s *Server) setSubscription(c *call, on bool) ([]byte, *rpcError) {
	uri := c.msg.params.URI
	switch {
	case uri == "":
		return nil, errorf(CodeInvalidParams, "%s: missing uri", c.msg.Method)
	case c.sess == nil:
		return nil, errorf(CodeInvalidRequest, "%s needs a session", c.msg.Method)
	}
	s.prims.hub.subscribe(c.sess, uri, on)
	return []byte(emptyObject), nil
}

// listen answers subscriptions/listen (2026-07-28): it acknowledges the
// honoured part of the filter at once, then streams the matching change
// notifications until the client goes away (no reply) or the server ends the
// subscription (the final result, tagged with the subscription id).
func (s *Server) listen(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	if err := json.Unmarshal(c.msg.Params, &p); err != nil || p.Notifications == nil {
		return nil, errorf(CodeInvalidParams, "subscriptions/listen: params.notifications must be a subscription filter")
	}
	if rerr := s.honourTaskFilter(ctx, c, p.Notifications); rerr != nil {
		return nil, rerr
	}
	l := &listener{id: c.msg.ID, sess: c.sess, who: principalID(c.caller()), out: c.out, filter: s.honoured(*p.Notifications), stop: make(chan struct{})}
	l.mu.Lock() // held until the acknowledgement is out: it goes first
	s.prims.hub.addListener(l)
	defer s.prims.hub.removeListener(l)
	ack, err := jsonrpc.Notification("notifications/subscriptions/acknowledged", map[string]any{
		"notifications": l.filter, "_meta": map[string]json.RawMessage{metaSubscriptionID: l.id}})
	if err == nil {
		err = l.out.Send(ctx, ack)
	}
	l.mu.Unlock()
	if err != nil {
		return nil, errorf(CodeInternalError, "subscriptions/listen: acknowledge: %v", err)
	}
	select {
	case <-ctx.Done():
	case <-l.stop:
	}
	return s.listenResult(l), nil
}

// honoured returns the part of a filter this server can serve: prompt and
// resource notifications only once prompts or resources are registered.
func (s *Server) honoured(f subscriptionFilter) subscriptionFilter {
	if !s.declares("prompts") {
		f.PromptsListChanged = false
	}
	if !s.declares("resources") {
		f.ResourcesListChanged, f.ResourceSubscriptions = false, nil
	}
	return f
}

// listenResult is the result that ends a subscription gracefully.
func (s *Server) listenResult(l *listener) []byte {
	meta := map[string]any{metaSubscriptionID: l.id, metaServerInfo: s.info}
	return mustMarshal(map[string]any{"resultType": "complete", "_meta": meta})
}
