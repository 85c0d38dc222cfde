// Package subscribe keeps who listens to which change notifications on one
// replica, and delivers a change to them: 2025-11-25 sessions (every
// initialized one hears list changes; resources/subscribe adds URIs) and
// 2026-07-28 subscriptions/listen streams with their filters. A change is a
// runtime/internal/fanout Notice; its Audience is matched here against the
// replica's own clients. What a session is, and how a message reaches it, is
// the runtime's (the Conn it hands in).
package subscribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// MetaSubscriptionID tags every notification of a subscriptions/listen stream.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Timeout bounds each best-effort change notification.
const Timeout = 5 * time.Second

// ErrEnded reports a send on a listen stream that has ended.
var ErrEnded = errors.New("subscription ended")

// A Sink takes one complete JSON-RPC message.
type Sink interface {
	Send(ctx context.Context, msg []byte) error
}

// A Conn is a connection a 2025-11-25 session (and, on stdio, a listen
// stream) lives on, as the runtime sees it: a comparable handle that knows
// whether it closed and sends on the connection's own stream.
type Conn interface {
	comparable
	Sink
	Closed() bool
}

// A Filter is the SubscriptionFilter of subscriptions/listen and of its
// acknowledgement.
type Filter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs (io.modelcontextprotocol/tasks) asks for notifications/tasks of
	// these tasks; the runtime keeps them only where the tasks extension serves them.
	TaskIDs []string `json:"taskIds,omitempty"`
}

// WantsList reports whether the filter asked for changes of the list named
// list ("tools", "prompts", "resources"); false for any other name.
func (f *Filter) WantsList(list string) bool {
	switch list {
	case "tools":
		return f.ToolsListChanged
	case "prompts":
		return f.PromptsListChanged
	case "resources":
		return f.ResourcesListChanged
	}
	return false
}

// A Listener is one open subscriptions/listen stream.
type Listener[C Conn] struct {
	ID     json.RawMessage // the listen request's id: the subscription id
	Conn   C               // the stdio connection it arrived on; the zero C on HTTP
	Who    string          // the caller's principal id
	Out    Sink
	Filter Filter

	stop chan struct{} // closed to end the stream gracefully
	once sync.Once

	// mu serialises sends, so the acknowledgement goes first and nothing
	// follows the end of the stream.
	mu     sync.Mutex
	closed bool
}

// session is what a 2025-11-25 session listens to.
type session struct {
	uris map[string]bool // resources/subscribe
	who  string          // principal id of the caller that initialized it
}

// A Hub knows who wants to hear about changes. The zero value is empty and
// ready; Changed, when set, is called (without the hub's lock) after the
// number of members changed.
type Hub[C Conn] struct {
	// mu guards the maps.
	mu        sync.Mutex
	sessions  map[C]*session
	listeners map[*Listener[C]]struct{}

	members atomic.Int64 // len(sessions)+len(listeners): no lock to find nobody listens
	Changed func()
}

// Members is the number of sessions and listen streams the hub knows.
func (h *Hub[C]) Members() int64 { return h.members.Load() }

// AddSession starts telling an initialized 2025-11-25 session, opened by the
// principal who, about changes.
func (h *Hub[C]) AddSession(c C, who string) {
	h.mu.Lock()
	for old := range h.sessions { // forget ended sessions, so the map stays bounded
		if old.Closed() {
			delete(h.sessions, old)
		}
	}
	h.entry(c).who = who
	h.unlock()
}

// Sessions is the number of sessions the hub knows.
func (h *Hub[C]) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

// entry returns the session's entry, adding it; the caller holds mu.
func (h *Hub[C]) entry(c C) *session {
	if h.sessions == nil {
		h.sessions = map[C]*session{}
	}
	e := h.sessions[c]
	if e == nil {
		e = &session{uris: map[string]bool{}}
		h.sessions[c] = e
	}
	return e
}

// unlock recounts the members, releases mu, and reports a change of the count.
func (h *Hub[C]) unlock() {
	n := int64(len(h.sessions) + len(h.listeners))
	old := h.members.Swap(n)
	h.mu.Unlock()
	if old != n && h.Changed != nil {
		h.Changed()
	}
}

// Subscribe records a session's resources/subscribe (or, with on false, its
// unsubscribe).
func (h *Hub[C]) Subscribe(c C, uri string, on bool) {
	h.mu.Lock()
	if e := h.entry(c); on {
		e.uris[uri] = true
	} else {
		delete(e.uris, uri)
	}
	h.unlock()
}

// SubscribeAtMost records a session's resources/subscribe unless the session
// already holds limit other subscriptions; it reports whether it did (a repeat
// of a URI the session holds is always fine).
func (h *Hub[C]) SubscribeAtMost(c C, uri string, limit int) bool {
	h.mu.Lock()
	e := h.entry(c)
	ok := e.uris[uri] || len(e.uris) < limit
	if ok {
		e.uris[uri] = true
	}
	h.unlock()
	return ok
}

// DropSession forgets a closed session.
func (h *Hub[C]) DropSession(c C) {
	h.mu.Lock()
	delete(h.sessions, c)
	h.unlock()
}

// liveSessions returns the open sessions that want a, forgetting closed ones.
func (h *Hub[C]) liveSessions(a *fanout.Audience) []C {
	h.mu.Lock()
	var out []C
	for c, e := range h.sessions {
		if c.Closed() {
			delete(h.sessions, c)
			continue
		}
		if wantsSession(a, e) {
			out = append(out, c)
		}
	}
	h.unlock()
	return out
}

// matching returns the listeners for which pick says yes.
func (h *Hub[C]) matching(pick func(*Listener[C]) bool) []*Listener[C] {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*Listener[C]
	for l := range h.listeners {
		if pick(l) {
			out = append(out, l)
		}
	}
	return out
}

// Listeners is the number of open listen streams.
func (h *Hub[C]) Listeners() int { return len(h.matching(func(*Listener[C]) bool { return true })) }

// ParseFilter reads the filter of subscriptions/listen params.
func ParseFilter(params json.RawMessage) (*Filter, error) {
	var p struct {
		Notifications *Filter `json:"notifications"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.Notifications == nil {
		return nil, errors.New("subscriptions/listen: params.notifications must be a subscription filter")
	}
	return p.Notifications, nil
}

// Listen registers l, acknowledges its filter on it first
// (notifications/subscriptions/acknowledged), then holds it open until ctx
// is done or End ends it; l hears nothing after Listen returns. An error of
// the acknowledgement ends it at once.
func (h *Hub[C]) Listen(ctx context.Context, l *Listener[C]) error {
	ack, err := jsonrpc.Notification("notifications/subscriptions/acknowledged", map[string]any{
		"notifications": l.Filter, "_meta": map[string]json.RawMessage{MetaSubscriptionID: l.ID}})
	if err != nil {
		return err
	}
	l.stop = make(chan struct{})
	l.mu.Lock() // held until the acknowledgement is out: it goes first
	h.mu.Lock()
	if h.listeners == nil {
		h.listeners = map[*Listener[C]]struct{}{}
	}
	h.listeners[l] = struct{}{}
	h.unlock()
	defer h.removeListener(l)
	err = l.Out.Send(ctx, ack)
	l.mu.Unlock()
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case <-l.stop:
	}
	return nil
}

// removeListener forgets a listen stream; nothing is sent on it afterwards.
func (h *Hub[C]) removeListener(l *Listener[C]) {
	h.mu.Lock()
	delete(h.listeners, l)
	h.unlock()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// Result is the result that ends a listen stream gracefully; meta is the
// server's _meta object (its serverInfo), to which the subscription id is
// added.
func (l *Listener[C]) Result(meta json.RawMessage) []byte {
	b := append([]byte(`{"_meta":`), bytes.TrimSuffix(meta, []byte("}"))...)
	if len(meta) > 2 {
		b = append(b, ',')
	}
	b = append(jsonwire.AppendString(b, MetaSubscriptionID), ':')
	return append(append(b, l.ID...), `},"resultType":"complete"}`...)
}

// End gracefully ends the open listen streams (each then gets its final
// result): all of them with all set, else those of connection c.
func (h *Hub[C]) End(c C, all bool) {
	for _, l := range h.matching(func(l *Listener[C]) bool { return all || l.Conn == c }) {
		l.once.Do(func() { close(l.stop) })
	}
}

// sendFramed delivers a notification on the listen stream, its subscription
// id between head and tail (listenFrame), unless the stream has ended.
func (l *Listener[C]) sendFramed(ctx context.Context, head, tail []byte) error {
	msg := make([]byte, 0, len(head)+len(l.ID)+len(tail))
	msg = append(append(append(msg, head...), l.ID...), tail...)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrEnded
	}
	return l.Out.Send(ctx, msg)
}

// Deliver sends n to the sessions and listen streams of this replica that
// want it; failed reports each send that failed (best effort).
func (h *Hub[C]) Deliver(n fanout.Notice, failed func(method string, err error)) {
	if h.members.Load() == 0 {
		return
	}
	sessions := h.liveSessions(&n.To)
	listeners := h.matching(func(l *Listener[C]) bool { return wantsListener(&n.To, l) })
	if len(sessions) == 0 && len(listeners) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if bytes.ContainsAny(n.Params, "\r\n") { // one message per line on stdio
		var buf bytes.Buffer
		if json.Compact(&buf, n.Params) != nil {
			return
		}
		n.Params = buf.Bytes()
	}
	report := func(err error) {
		if err != nil {
			failed(n.Method, err)
		}
	}
	if len(sessions) > 0 {
		msg := []byte(`{"jsonrpc":"2.0","method":` + string(jsonwire.AppendString(nil, n.Method)))
		if n.Params != nil {
			msg = append(append(msg, `,"params":`...), n.Params...)
		}
		msg = append(msg, '}')
		for _, c := range sessions {
			report(c.Send(ctx, msg))
		}
	}
	if len(listeners) > 0 {
		head, tail, err := listenFrame(n)
		if err != nil {
			report(err)
			return
		}
		for _, l := range listeners {
			report(l.sendFramed(ctx, head, tail))
		}
	}
}

// listenFrame returns the notification a listen stream gets, split where its
// subscription id goes: params with "_meta" first (its members, then the
// subscription id), then the other members in key order.
func listenFrame(n fanout.Notice) (head, tail []byte, err error) {
	head = append([]byte(`{"jsonrpc":"2.0","method":`), jsonwire.AppendString(nil, n.Method)...)
	if p := bytes.TrimSpace(n.Params); !bytes.Contains(p, []byte(`"_meta"`)) && (len(p) == 0 || bytes.HasPrefix(p, []byte{'{'})) {
		// No _meta to merge (the usual case): the params' members follow as they are.
		head = jsonwire.AppendString(append(head, `,"params":{"_meta":{`...), MetaSubscriptionID)
		head = append(head, ':')
		if len(p) == 0 || len(bytes.TrimSpace(p[1:])) == 1 { // none, or {}
			return head, []byte("}}}"), nil
		}
		return head, append(append([]byte("},"), p[1:]...), '}'), nil
	}
	var fields map[string]json.RawMessage
	if n.Params != nil {
		if err := json.Unmarshal(n.Params, &fields); err != nil {
			return nil, nil, err
		}
	}
	head = append(head, `,"params":{"_meta":{`...)
	var meta map[string]json.RawMessage
	if m, ok := fields["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return nil, nil, errors.New("params._meta is not an object")
	}
	delete(meta, MetaSubscriptionID)
	head = appendMembers(head, meta, ",")
	head = jsonwire.AppendString(head, MetaSubscriptionID)
	head = append(head, ':')
	delete(fields, "_meta")
	tail = appendMembers([]byte{'}'}, fields, "")
	return head, append(tail, "}}"...), nil
}

// appendMembers appends the members of m in key order, compacted, each
// followed (sep ",") or preceded (sep "") by a comma.
func appendMembers(b []byte, m map[string]json.RawMessage, sep string) []byte {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if sep == "" {
			b = append(b, ',')
		}
		b = append(jsonwire.AppendString(b, k), ':')
		var buf bytes.Buffer
		if json.Compact(&buf, m[k]) == nil {
			b = append(b, buf.Bytes()...)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, sep...)
	}
	return b
}

// wantsSession reports whether a 2025-11-25 session wants a notice.
func wantsSession(a *fanout.Audience, e *session) bool {
	if a.Principal != "" && e.who != a.Principal {
		return false
	}
	switch {
	case a.List != "":
		return true
	case a.URI != "":
		for sub := range e.uris {
			if covers(sub, a.URI) {
				return true
			}
		}
		return false
	case a.TaskID != "":
		return false
	}
	return a.Principal != ""
}

// wantsListener reports whether a listen stream wants a notice.
func wantsListener[C Conn](a *fanout.Audience, l *Listener[C]) bool {
	if a.Principal != "" && l.Who != a.Principal {
		return false
	}
	switch {
	case a.List != "":
		return l.Filter.WantsList(a.List)
	case a.URI != "":
		return slices.ContainsFunc(l.Filter.ResourceSubscriptions, func(sub string) bool { return covers(sub, a.URI) })
	case a.TaskID != "":
		return slices.Contains(l.Filter.TaskIDs, a.TaskID)
	}
	return false
}

// covers reports whether a subscription to sub covers a change of uri: the
// same resource, or one below it ("notes://" covers "notes://todo").
func covers(sub, uri string) bool {
	return sub == uri || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/")
}
