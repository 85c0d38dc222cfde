// Package primitive holds a server's resources, resource templates and prompts as
// data: their entries with the pre-encoded listing, the registry whose catalogs
// are replaced on each change, routing a URI to its resource or most specific
// template, checking prompts/get arguments, finding what a completion/complete
// refers to, the capabilities they make a server declare, and the JSON of list
// pages, cache hints and completion results. The handlers and the public types
// are the runtime's: an entry carries its public value as Src.
package primitive

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// A Set is the resources (R), templates (T) and prompts (P) of a server. Changes
// are serialised and replace a catalog; readers load catalogs without locking.
// The zero value is empty and ready.
type Set[R, T, P any] struct {
	mu        sync.Mutex
	resources atomic.Pointer[catalog.Catalog[*Resource[R]]]
	templates atomic.Pointer[catalog.Catalog[*Template[T]]]
	prompts   atomic.Pointer[catalog.Catalog[*Prompt[P]]]
}

// Resources returns the registered resources.
func (s *Set[R, T, P]) Resources() *catalog.Catalog[*Resource[R]] { return s.resources.Load() }

// Templates returns the registered templates.
func (s *Set[R, T, P]) Templates() *catalog.Catalog[*Template[T]] { return s.templates.Load() }

// Prompts returns the registered prompts.
func (s *Set[R, T, P]) Prompts() *catalog.Catalog[*Prompt[P]] { return s.prompts.Load() }

// change replaces the catalog at p with what f makes of it, reporting f's ok.
func change[E any](mu *sync.Mutex, p *atomic.Pointer[catalog.Catalog[E]], f func(*catalog.Catalog[E]) (*catalog.Catalog[E], bool)) bool {
	mu.Lock()
	defer mu.Unlock()
	next, ok := f(p.Load())
	p.Store(next)
	return ok
}

// AddResource registers e; false when its URI is taken.
func (s *Set[R, T, P]) AddResource(e *Resource[R]) bool {
	return change(&s.mu, &s.resources, func(c *catalog.Catalog[*Resource[R]]) (*catalog.Catalog[*Resource[R]], bool) {
		return c.With(e.URI, e)
	})
}

// RemoveResource unregisters the resource with uri; false when there is none.
func (s *Set[R, T, P]) RemoveResource(uri string) bool {
	return change(&s.mu, &s.resources, func(c *catalog.Catalog[*Resource[R]]) (*catalog.Catalog[*Resource[R]], bool) {
		return c.Without(uri)
	})
}

// AddTemplate registers e; false when its template is taken.
func (s *Set[R, T, P]) AddTemplate(e *Template[T]) bool {
	return change(&s.mu, &s.templates, func(c *catalog.Catalog[*Template[T]]) (*catalog.Catalog[*Template[T]], bool) {
		return c.With(e.URITemplate, e)
	})
}

// AddPrompt registers e; false when its name is taken.
func (s *Set[R, T, P]) AddPrompt(e *Prompt[P]) bool {
	return change(&s.mu, &s.prompts, func(c *catalog.Catalog[*Prompt[P]]) (*catalog.Catalog[*Prompt[P]], bool) {
		return c.With(e.Name, e)
	})
}

// PutPrompt registers e, replacing (and moving to the end) a prompt of its name.
func (s *Set[R, T, P]) PutPrompt(e *Prompt[P]) {
	change(&s.mu, &s.prompts, func(c *catalog.Catalog[*Prompt[P]]) (*catalog.Catalog[*Prompt[P]], bool) {
		c, _ = c.Without(e.Name)
		return c.With(e.Name, e)
	})
}

// RemovePrompt unregisters the named prompt; false when there is none.
func (s *Set[R, T, P]) RemovePrompt(name string) bool {
	return change(&s.mu, &s.prompts, func(c *catalog.Catalog[*Prompt[P]]) (*catalog.Catalog[*Prompt[P]], bool) {
		return c.Without(name)
	})
}

// Capabilities adds to caps what is registered: resources (with subscriptions),
// prompts and completions appear only once something of theirs is.
func (s *Set[R, T, P]) Capabilities(caps map[string]any) {
	hasTemplates := s.Templates().Len() > 0
	if s.Resources().Len() > 0 || hasTemplates {
		caps["resources"] = map[string]any{"subscribe": true, "listChanged": true}
	}
	hasPrompts := s.Prompts().Len() > 0
	if hasPrompts {
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if hasPrompts || hasTemplates {
		caps["completions"] = map[string]any{}
	}
}

// Declares reports whether the set makes the server declare capability (a key
// of the capabilities object); known is false for a capability it does not decide.
func (s *Set[R, T, P]) Declares(capability string) (declared, known bool) {
	hasTemplates := s.Templates().Len() > 0
	switch capability {
	case "resources":
		return hasTemplates || s.Resources().Len() > 0, true
	case "prompts":
		return s.Prompts().Len() > 0, true
	case "completions":
		return hasTemplates || s.Prompts().Len() > 0, true
	}
	return false, false
}

// Scopes lists the scopes of the registered resources, templates and prompts.
func (s *Set[R, T, P]) Scopes() []string {
	var all []string
	for _, e := range s.Resources().All() {
		all = append(all, e.Scopes...)
	}
	for _, e := range s.Templates().All() {
		all = append(all, e.Scopes...)
	}
	for _, e := range s.Prompts().All() {
		all = append(all, e.Scopes...)
	}
	return all
}

// SubscriptionScopes appends to need the scopes of the registered resources
// and templates a subscription to sub may hear of: the resource or template
// sub routes to, and the scoped ones below it ("notes://" covers
// "notes://secret"). A template counts when its literal start and sub's
// subtree overlap: it may serve sub or a URI below it.
func (s *Set[R, T, P]) SubscriptionScopes(sub string, need []string) []string {
	below := strings.TrimSuffix(sub, "/") + "/"
	add := func(scopes []string) {
		for _, sc := range scopes {
			if !slices.Contains(need, sc) {
				need = append(need, sc)
			}
		}
	}
	for _, e := range s.Resources().All() {
		if len(e.Scopes) > 0 && (e.URI == sub || strings.HasPrefix(e.URI, below)) {
			add(e.Scopes)
		}
	}
	for _, e := range s.Templates().All() {
		if len(e.Scopes) == 0 {
			continue
		}
		lit, _, _ := strings.Cut(e.URITemplate, "{")
		if strings.HasPrefix(lit, below) || strings.HasPrefix(below, lit) || strings.HasPrefix(sub, lit) {
			add(e.Scopes)
		}
	}
	return need
}

// ListPage encodes one page of a list result from cat, without its closing
// brace: the pre-encoded items (wire gives an item's JSON; nil keeps the item
// off the page, e.g. one the caller may not use) under key, and nextCursor. ok
// is false for a cursor the catalog did not issue.
func ListPage[E any](cat *catalog.Catalog[E], cursor *string, size int, key string, wire func(E) []byte) (body []byte, ok bool) {
	items, next, ok := cat.Page(cursor, size)
	if !ok {
		return nil, false
	}
	b := append(jsonwire.AppendString([]byte{'{'}, key), ":["...)
	first := true
	for _, e := range items {
		w := wire(e)
		if w == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, w...)
	}
	b = append(b, ']')
	if next != "" {
		b = jsonwire.AppendString(append(b, `,"nextCursor":`...), next)
	}
	return b, true
}

// AppendCacheHints appends the 2026-07-28 ttlMs and cacheScope members.
func AppendCacheHints(b []byte, ms int64, private bool) []byte {
	b = strconv.AppendInt(append(b, `,"ttlMs":`...), ms, 10)
	if private {
		return append(b, `,"cacheScope":"private"`...)
	}
	return append(b, `,"cacheScope":"public"`...)
}

// mustMarshal encodes a listing (plain strings and bools: it cannot fail).
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mcpgen runtime: " + err.Error())
	}
	return b
}

// only reports whether v is allowed by values (nil: any value).
func only(values []string, v string) bool { return values == nil || slices.Contains(values, v) }
