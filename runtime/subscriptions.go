package runtime

// subscriptions.go: what clients subscribe to: list changes, resource updates, and the
// subscriptions/listen stream.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
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
	sessions  map[*Session]map[string]bool // subscribed URIs per session
	listeners map[*listener]struct{}
}

// A listener is one open subscriptions/listen stream.
type listener struct {
	id     json.RawMessage // the listen request's id: the subscription id
	sess   *Session        // the stdio connection it arrived on; nil on HTTP
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
	TaskIDs               []string `json:"taskIds,omitempty"` // tasks_methods.go
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

// addSession starts telling an initialized 2025-11-25 session about changes.
func (h *hub) addSession(ss *Session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions == nil {
		h.sessions = map[*Session]map[string]bool{}
	}
	for old := range h.sessions { // forget ended sessions, so the map stays bounded
		if old.isClosed() {
			delete(h.sessions, old)
		}
	}
	if h.sessions[ss] == nil {
		h.sessions[ss] = map[string]bool{}
	}
}

// subscribe records a session's resources/subscribe (or, with on false, its
// unsubscribe).
func (h *hub) subscribe(ss *Session, uri string, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions == nil {
		h.sessions = map[*Session]map[string]bool{}
	}
	uris := h.sessions[ss]
	if uris == nil {
		uris = map[string]bool{}
		h.sessions[ss] = uris
	}
	if on {
		uris[uri] = true
	} else {
		delete(uris, uri)
	}
}

// liveSessions returns the open sessions for which pick says yes, forgetting
// closed ones.
func (h *hub) liveSessions(pick func(uris map[string]bool) bool) []*Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*Session
	for ss, uris := range h.sessions {
		if ss.isClosed() {
			delete(h.sessions, ss)
			continue
		}
		if pick(uris) {
			out = append(out, ss)
		}
	}
	return out
}

// addListener registers an open listen stream.
func (h *hub) addListener(l *listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.listeners == nil {
		h.listeners = map[*listener]struct{}{}
	}
	h.listeners[l] = struct{}{}
}

// removeListener forgets a listen stream; nothing is sent on it afterwards.
func (h *hub) removeListener(l *listener) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.mu.Unlock()
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
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.closed
}

// sendUnsolicited sends a message on the session's own sink (stdout, or the
// HTTP GET stream).
func (ss *Session) sendUnsolicited(ctx context.Context, msg []byte) error {
	ss.mu.Lock()
	out := ss.out
	ss.mu.Unlock()
	return out.Send(ctx, msg)
}

// send delivers a notification on the listen stream, tagged with the
// subscription id, unless the stream has ended.
func (l *listener) send(ctx context.Context, method string, params map[string]any) error {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]json.RawMessage{metaSubscriptionID: l.id}
	msg, err := jsonrpc.Notification(method, params)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrRequestDone
	}
	return l.out.Send(ctx, msg)
}

// listChanged tells every interested client that a list changed.
func (s *Server) listChanged(kind listKind) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	h := &s.prims.hub
	msg := []byte(`{"jsonrpc":"2.0","method":"` + kind.method() + `"}`)
	for _, ss := range h.liveSessions(func(map[string]bool) bool { return true }) {
		s.deliver(ctx, kind.method(), ss.sendUnsolicited(ctx, msg))
	}
	for _, l := range h.matching(func(l *listener) bool { return l.filter.wants(kind) }) {
		s.deliver(ctx, kind.method(), l.send(ctx, kind.method(), nil))
	}
}

// ResourceUpdated tells the clients subscribed to uri (or to a resource it is
// a sub-resource of, such as "notes://" for "notes://todo") that it changed:
// notifications/resources/updated to 2025-11-25 sessions that called
// resources/subscribe and to 2026-07-28 listen streams whose
// resourceSubscriptions name it. Application code calls it after a change;
// sending is best effort.
func (s *Server) ResourceUpdated(uri string) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	const method = "notifications/resources/updated"
	h := &s.prims.hub
	covers := func(sub string) bool { return sub == uri || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/") }
	sessions := h.liveSessions(func(uris map[string]bool) bool {
		for sub := range uris {
			if covers(sub) {
				return true
			}
		}
		return false
	})
	msg, err := jsonrpc.Notification(method, map[string]string{"uri": uri})
	if err != nil {
		return
	}
	for _, ss := range sessions {
		s.deliver(ctx, method, ss.sendUnsolicited(ctx, msg))
	}
	listeners := h.matching(func(l *listener) bool {
		for _, sub := range l.filter.ResourceSubscriptions {
			if covers(sub) {
				return true
			}
		}
		return false
	})
	for _, l := range listeners {
		s.deliver(ctx, method, l.send(ctx, method, map[string]any{"uri": uri}))
	}
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
	l := &listener{id: c.msg.ID, sess: c.sess, out: c.out, filter: s.honoured(*p.Notifications), stop: make(chan struct{})}
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
	p := &s.prims
	if p.prompts.Load().Len() == 0 {
		f.PromptsListChanged = false
	}
	if p.resources.Load().Len() == 0 && p.templates.Load().Len() == 0 {
		f.ResourcesListChanged, f.ResourceSubscriptions = false, nil
	}
	return f
}

// listenResult is the result that ends a subscription gracefully.
func (s *Server) listenResult(l *listener) []byte {
	meta := map[string]any{metaSubscriptionID: l.id, metaServerInfo: s.info}
	return mustMarshal(map[string]any{"resultType": "complete", "_meta": meta})
}
