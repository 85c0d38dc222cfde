package runtime

// primitives.go: the server's registries (tools here; resources, templates and
// prompts in internal/primitive), the list changes they announce and the
// capabilities they make the server declare.

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/primitive"
)

// A listKind names a list whose changes clients can be told about.
type listKind int

const (
	kindTools listKind = iota
	kindPrompts
	kindResources
)

// method returns the list_changed notification of the kind.
func (k listKind) method() string {
	switch k {
	case kindPrompts:
		return "notifications/prompts/list_changed"
	case kindResources:
		return "notifications/resources/list_changed"
	}
	return "notifications/tools/list_changed"
}

// primitives holds the resources, resource templates and prompts of a Server
// (internal/primitive) and the subscriptions to their changes. The zero value
// is empty and ready.
type primitives struct {
	primitive.Set[*Resource, *ResourceTemplate, *Prompt]
	hub hub
}

// register panics with dupMsg unless a registration went through (ok), and
// announces the change of the list.
func (s *Server) register(kind listKind, ok bool, dupMsg string) {
	if !ok {
		panic("mcpgen runtime: " + dupMsg)
	}
	s.listChanged(kind)
}

// unregister announces the change of the list if something was removed (ok).
func (s *Server) unregister(kind listKind, ok bool) bool {
	if ok {
		s.listChanged(kind)
	}
	return ok
}

// RemoveTool unregisters the named tool, reporting whether there was one;
// listeners are told the tool list changed.
func (s *Server) RemoveTool(name string) bool { return s.setTool(name, nil) }

// PutTool registers t, replacing a tool of the same name (AddTool panics on a
// duplicate instead); listeners are told the tool list changed. It panics on
// the other programmer errors AddTool panics on.
func (s *Server) PutTool(t *Tool) {
	e, err := newToolEntry(t)
	if err == nil {
		err = s.checkTask(t)
	}
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: PutTool: %v", err))
	}
	s.setTool(t.Name, e)
}

// setTool replaces the tool called name with e, appends e when there is none,
// or (e nil) removes it, in a fresh snapshot (internal/toolset), and announces the change; it
// reports whether there was a tool called name.
func (s *Server) setTool(name string, e *toolEntry) bool {
	s.mu.Lock()
	found := false
	if e != nil {
		found = s.tools.Load().Get(name) != nil
		s.tools.Put(e)
	} else {
		found = s.tools.Remove(name)
	}
	changed := found || e != nil
	s.mu.Unlock()
	if changed {
		s.listChanged(kindTools)
	}
	return found
}

// primitiveCapabilities adds the capabilities of what is registered: tools
// always announce list changes; resources (with subscriptions), prompts and
// completions appear only once something of theirs is registered.
func (s *Server) primitiveCapabilities(caps map[string]any) {
	caps["tools"] = map[string]any{"listChanged": true}
	s.prims.Capabilities(caps)
}

// declares reports whether the server currently declares the capability
// named (a key of the capabilities object).
func (s *Server) declares(capability string) bool {
	if declared, known := s.prims.Declares(capability); known {
		return declared
	}
	_, ok := s.capabilities()[capability]
	return ok
}

// Resources returns copies of the registered resources in registration order
// (the order of resources/list), as Tools does for tools.
func (s *Server) Resources() []*Resource {
	return copies(s.prims.Resources().All(), func(e *primitive.Resource[*Resource]) *Resource { return e.Src })
}

// ResourceTemplates returns copies of the registered resource templates in
// registration order.
func (s *Server) ResourceTemplates() []*ResourceTemplate {
	return copies(s.prims.Templates().All(), func(e *primitive.Template[*ResourceTemplate]) *ResourceTemplate { return e.Src })
}

// Prompts returns copies of the registered prompts in registration order.
func (s *Server) Prompts() []*Prompt {
	return copies(s.prims.Prompts().All(), func(e *promptEntry) *Prompt { return e.Src })
}

// copies returns a copy of each entry's registered value.
func copies[E, T any](entries []E, src func(E) *T) []*T {
	out := make([]*T, len(entries))
	for i, e := range entries {
		cp := *src(e)
		out[i] = &cp
	}
	return out
}

// ServerFrom returns the server running the request ctx belongs to, or nil
// outside a handler. Handlers use it to change what the server offers (e.g.
// AddTool, RemoveTool) or to announce changes (ResourceUpdated).
func ServerFrom(ctx context.Context) *Server {
	if c := callFrom(ctx); c != nil {
		return c.srv
	}
	return nil
}
