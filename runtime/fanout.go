package runtime

// fanout.go: change notifications across replicas. Every change notification
// (list changes, resource updates, and whatever else goes through announce)
// is delivered at once to the clients of this process that want it, and, when
// the server's store is shared (an Options.Store or SetStore that implements
// store.PubSub: Redis for replicas), handed to a runtime/internal/fanout Bus,
// which publishes it on the channel "mcpgen:notify:"+server name and, while
// this process has clients to tell, delivers what the other replicas publish
// here (deliverLocal). Every client hears of a change at most once.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/fanout"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// A notice is one change notification on its way to the clients that want
// it; an audience says which (runtime/internal/fanout). Any notification goes
// through announce: list changes and resource updates here; a task's status
// would be notice{Method: "notifications/tasks", Params: the task,
// To: audience{TaskID: id, Principal: principalID(owner)}} for listen
// streams, and audience{Principal: ...} alone reaches the owner's 2025-11-25
// sessions (notifications/tasks/status).
type (
	notice   = fanout.Notice
	audience = fanout.Audience
)

// setFanout turns fan-out on when st (the server's shared store) can publish,
// off otherwise; Options.Store and SetStore call it, the default in-process
// store does not.
func (s *Server) setFanout(st store.Store) {
	s.prims.hub.changed = s.syncFanout
	ps, ok := st.(store.PubSub)
	if !ok {
		s.fan.Store(nil)
		return
	}
	s.fan.Store(fanout.New(ps, fanout.ChannelPrefix+s.info.Name, s.logger, s.deliverLocal,
		func() bool { return s.prims.hub.members.Load() > 0 }))
}

// syncFanout subscribes to the other replicas' changes while this process has
// clients to tell, and unsubscribes when it has none (the hub calls it when
// its count changes).
func (s *Server) syncFanout() {
	if b := s.fan.Load(); b != nil {
		b.Sync()
	}
}

// announce tells the clients that want it of a change: those of this process
// at once, those of the other replicas through the shared store.
func (s *Server) announce(n notice) {
	s.deliverLocal(n)
	if b := s.fan.Load(); b != nil {
		b.Publish(n)
	}
}

// deliverLocal sends n to the clients of this process that want it.
func (s *Server) deliverLocal(n notice) {
	h := &s.prims.hub
	if h.members.Load() == 0 {
		return
	}
	sessions := h.liveSessions(func(e *sessionSubs) bool { return wantsSession(&n.To, e) })
	listeners := h.matching(func(l *listener) bool { return wantsListener(&n.To, l) })
	if len(sessions) == 0 && len(listeners) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if bytes.ContainsAny(n.Params, "\r\n") { // one message per line on stdio
		var buf bytes.Buffer
		if json.Compact(&buf, n.Params) != nil {
			return
		}
		n.Params = buf.Bytes()
	}
	if len(sessions) > 0 {
		msg := []byte(`{"jsonrpc":"2.0","method":` + string(jsonwire.AppendString(nil, n.Method)))
		if n.Params != nil {
			msg = append(append(msg, `,"params":`...), n.Params...)
		}
		msg = append(msg, '}')
		for _, ss := range sessions {
			s.deliver(ctx, n.Method, ss.sendUnsolicited(ctx, msg))
		}
	}
	if len(listeners) > 0 {
		head, tail, err := listenFrame(n)
		if err != nil {
			s.logger.Debug("change notification not delivered", "method", n.Method, "err", err)
			return
		}
		for _, l := range listeners {
			s.deliver(ctx, n.Method, l.sendFramed(ctx, head, tail))
		}
	}
}

// listenFrame returns the notification a listen stream gets, split where its
// subscription id goes: params with "_meta" first (its members, then the
// subscription id), then the other members in key order.
func listenFrame(n notice) (head, tail []byte, err error) {
	head = append([]byte(`{"jsonrpc":"2.0","method":`), jsonwire.AppendString(nil, n.Method)...)
	if p := bytes.TrimSpace(n.Params); !bytes.Contains(p, []byte(`"_meta"`)) && (len(p) == 0 || bytes.HasPrefix(p, []byte{'{'})) {
		// No _meta to merge (the usual case): the params' members follow as they are.
		head = jsonwire.AppendString(append(head, `,"params":{"_meta":{`...), metaSubscriptionID)
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
	delete(meta, metaSubscriptionID)
	head = appendMembers(head, meta, ",")
	head = jsonwire.AppendString(head, metaSubscriptionID)
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
func wantsSession(a *audience, e *sessionSubs) bool {
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
func wantsListener(a *audience, l *listener) bool {
	if a.Principal != "" && l.who != a.Principal {
		return false
	}
	switch {
	case a.List != "":
		k, ok := listKindNamed(a.List)
		return ok && l.filter.wants(k)
	case a.URI != "":
		return slices.ContainsFunc(l.filter.ResourceSubscriptions, func(sub string) bool { return covers(sub, a.URI) })
	case a.TaskID != "":
		return slices.Contains(l.filter.TaskIDs, a.TaskID)
	}
	return false
}

// covers reports whether a subscription to sub covers a change of uri: the
// same resource, or one below it ("notes://" covers "notes://todo").
func covers(sub, uri string) bool {
	return sub == uri || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/")
}

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

// listKindNamed is the inverse of listName; ok is false for an unknown name.
func listKindNamed(name string) (k listKind, ok bool) {
	switch name {
	case "tools":
		return kindTools, true
	case "prompts":
		return kindPrompts, true
	case "resources":
		return kindResources, true
	}
	return 0, false
}
