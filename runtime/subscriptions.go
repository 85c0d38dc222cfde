package runtime

// subscriptions.go: wires change notifications: who listens
// (internal/subscribe: 2025-11-25 sessions, resources/subscribe, 2026-07-28
// subscriptions/listen streams, matching a change's audience) and the other
// replicas (internal/fanout, when the server's store implements
// store.PubSub: Redis for replicas). Every change goes through announce:
// delivered at once to this process's clients that want it, and published
// on "mcpgen:notify:"+server name for the other replicas, which deliver it
// to theirs. Every client hears of a change at most once.

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/subscribe"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// A notice is one change notification on its way to the clients that want
// it; an audience says which (runtime/internal/fanout).
type (
	notice   = fanout.Notice
	audience = fanout.Audience
)

// metaSubscriptionID tags every notification of a subscriptions/listen stream.
const metaSubscriptionID = subscribe.MetaSubscriptionID

// The hub of a server (with the relay to the other replicas) and its listen
// streams, keyed by the connection (a Session) they live on.
type (
	hub      = subscribe.Relay[hubConn]
	listener = subscribe.Listener[hubConn]
)

// A hubConn is a Session as the hub sees it; hubConn{nil} is no connection.
type hubConn struct{ ss *Session }

// Closed reports whether the session was closed.
func (c hubConn) Closed() bool { return c.ss.p.Closed() }

// Send sends a message on the session's own sink (stdout, or the HTTP GET stream).
func (c hubConn) Send(ctx context.Context, msg []byte) error {
	return c.ss.p.Out().Send(ctx, msg)
}

// setFanout turns fan-out on when st (the server's shared store) can publish,
// off otherwise (internal/subscribe's Relay); Options.Store and SetStore call
// it, the default in-process store does not.
func (s *Server) setFanout(st store.Store) { s.prims.hub.Share(st, fanout.ChannelPrefix+s.info.Name) }

// announce tells the clients that want it of a change: those of this process
// at once, those of the other replicas through the shared store.
func (s *Server) announce(n notice) { s.prims.hub.Announce(n) }

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

// EndSubscriptions gracefully ends the open 2026-07-28 subscriptions/listen
// streams: each gets its final result. Transports call it when they stop (so
// a stream never holds a shutdown up); sess limits it to the streams of one
// stdio connection, nil ends all.
func (s *Server) EndSubscriptions(sess *Session) {
	s.prims.hub.End(hubConn{sess}, sess == nil)
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
// is shared (Options.Store, serve.Main's -store), on every replica sharing it.
// Application code calls it after a change; sending is best effort.
func (s *Server) ResourceUpdated(uri string) {
	if s.prims.hub.Alone() {
		return // nobody to tell
	}
	p := append(jsonwire.AppendString([]byte(`{"uri":`), uri), '}')
	s.announce(notice{Method: "notifications/resources/updated", Params: p, To: audience{URI: uri}})
}

// subscribe answers resources/subscribe (2025-11-25): {} and, from now on,
// notifications/resources/updated for the URI on the session's stream.
func (s *Server) subscribe(ctx context.Context, c *call) ([]byte, *rpcError) {
	return s.setSubscription(ctx, c, true)
}

// unsubscribe answers resources/unsubscribe (2025-11-25).
func (s *Server) unsubscribe(ctx context.Context, c *call) ([]byte, *rpcError) {
	return s.setSubscription(ctx, c, false)
}

// Bounds of what one client may subscribe to (docs/runtime.md, "Limits"): a
// subscribed URI's length, the resources/subscribe URIs of one session, and
// the resourceSubscriptions of one subscriptions/listen filter. Past them the
// request is refused with -32602 and data {"limit": ...}; nothing is kept.
const (
	MaxSubscriptionURI  = 4096
	MaxSubscriptions    = 256
	maxSubscriptionsMsg = "at most 256 resource subscriptions"
)

// setSubscription records a subscription change for the call's session.
func (s *Server) setSubscription(ctx context.Context, c *call, on bool) ([]byte, *rpcError) {
	uri := c.msg.params.URI
	switch {
	case uri == "":
		return nil, errorf(CodeInvalidParams, "%s: missing uri", c.msg.Method)
	case c.sess == nil:
		return nil, errorf(CodeInvalidRequest, "%s needs a session", c.msg.Method)
	case !on:
		s.prims.hub.Subscribe(hubConn{c.sess}, uri, false)
		return []byte(emptyObject), nil
	}
	if rerr := s.checkSubscriptions(ctx, c.msg.Method, []string{uri}); rerr != nil {
		return nil, rerr
	}
	if !s.prims.hub.SubscribeAtMost(hubConn{c.sess}, uri, MaxSubscriptions) {
		return nil, limitError(c.msg.Method+": "+maxSubscriptionsMsg+" per session; unsubscribe first", "subscriptions", MaxSubscriptions)
	}
	return []byte(emptyObject), nil
}

// limitError is the -32602 refusal of a request past one of the server's bounds.
func limitError(msg, what string, limit int) *rpcError {
	return &rpcError{code: CodeInvalidParams, msg: msg, data: map[string]any{"limit": what, "max": limit}}
}

// checkSubscriptions checks the resource URIs a request subscribes to: each
// within MaxSubscriptionURI, and the caller holding the scopes of every
// resource and template a change it would hear of could concern (the
// resource or template the URI routes to, and the scoped ones below it:
// "notes://" covers "notes://secret"): the same -32003 as resources/read.
func (s *Server) checkSubscriptions(ctx context.Context, method string, uris []string) *rpcError {
	var need []string
	for _, uri := range uris {
		if len(uri) > MaxSubscriptionURI {
			return limitError(fmt.Sprintf("%s: a subscribed URI is at most %d bytes", method, MaxSubscriptionURI), "uriBytes", MaxSubscriptionURI)
		}
		need = s.prims.SubscriptionScopes(uri, need) // internal/primitive
	}
	return s.authorizeStatic(ctx, need)
}

// listen answers subscriptions/listen (2026-07-28): it acknowledges the
// honoured part of the filter at once, then streams the matching change
// notifications until the client goes away (no reply) or the server ends the
// subscription (the final result, tagged with the subscription id).
func (s *Server) listen(ctx context.Context, c *call) ([]byte, *rpcError) {
	f, err := subscribe.ParseFilter(c.msg.Params)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "%v", err)
	}
	if len(f.ResourceSubscriptions) > MaxSubscriptions {
		return nil, limitError("subscriptions/listen: "+maxSubscriptionsMsg+" per filter", "subscriptions", MaxSubscriptions)
	}
	if rerr := s.checkSubscriptions(ctx, c.msg.Method, f.ResourceSubscriptions); rerr != nil {
		return nil, rerr
	}
	if rerr := s.listenFilter(ctx, c, f); rerr != nil { // extension.go
		return nil, rerr
	}
	l := &listener{ID: c.msg.ID, Conn: hubConn{c.sess}, Who: principalID(c.caller()), Out: c.out, Filter: s.honoured(*f)}
	if err := s.prims.hub.Listen(ctx, l); err != nil {
		return nil, errorf(CodeInternalError, "subscriptions/listen: acknowledge: %v", err)
	}
	return l.Result(s.serverInfoMeta), nil
}

// honoured returns the part of a filter this server can serve: prompt and
// resource notifications only once prompts or resources are registered.
func (s *Server) honoured(f subscribe.Filter) subscribe.Filter {
	if !s.declares("prompts") {
		f.PromptsListChanged = false
	}
	if !s.declares("resources") {
		f.ResourcesListChanged, f.ResourceSubscriptions = false, nil
	}
	return f
}
