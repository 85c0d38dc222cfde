// Package toolset holds a server's registered tools: immutable snapshots in
// registration order, published atomically so readers never lock, registration
// in O(1) per tool, lookup by name, the opaque list cursors (internal/catalog's)
// and, per snapshot, the cached tools/list pages of each era; page.go makes
// each tool's Tool object and the pages.
package toolset

import (
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
)

// An Entry is a registered tool; Key is its name.
type Entry interface {
	comparable
	Key() string
}

// A Set is an immutable snapshot of the registered tools; a registration
// publishes a new one (Ref).
type Set[T Entry] struct {
	list   []T // registration order: the order of tools/list
	byName map[string]T
	// Add leaves byName nil and Ref.Load builds it from list the first time a
	// reader asks (built), so that registering n tools costs O(n), not a copy
	// of the index per tool (n²/2: most of the start-up of 10,000 tools).
	built sync.Once
	// adding is the writer's index of list's names while Add appends to this
	// snapshot: owned by the writer's lock, passed from snapshot to snapshot,
	// never read by readers.
	adding map[string]T

	// at is the position of each tool in list, built on the first cursor.
	atOnce sync.Once
	at     map[string]int
	// pages holds the tools/list results of this snapshot, per era, built on
	// first use (Slot).
	pagesOnce      sync.Once
	modern, legacy []atomic.Pointer[[]byte]
	// variants holds the pages of the other variants of tools/list
	// (VariantSlot): VariantKey -> *atomic.Pointer[[]byte].
	variants sync.Map
}

// A VariantKey names one cached page of a variant of tools/list.
type VariantKey struct {
	Modern  bool
	Variant uint64 // the variant, not 0
	Page    int
}

// VariantSlot returns where a page of a variant of this snapshot's
// tools/list result is kept.
func (s *Set[T]) VariantSlot(k VariantKey) *atomic.Pointer[[]byte] {
	if v, ok := s.variants.Load(k); ok {
		return v.(*atomic.Pointer[[]byte])
	}
	v, _ := s.variants.LoadOrStore(k, new(atomic.Pointer[[]byte]))
	return v.(*atomic.Pointer[[]byte])
}

// List returns the tools in registration order; the caller must not change it.
func (s *Set[T]) List() []T { return s.list }

// Get returns the tool called name, or the zero T.
func (s *Set[T]) Get(name string) T { return s.byName[name] }

// Len returns the number of indexed tools (every tool of a loaded snapshot).
func (s *Set[T]) Len() int { return len(s.byName) }

// PageStart returns the index of the first tool of the page cursor names.
// Cursors name the last tool already sent, so they stay valid while tools are
// added.
func (s *Set[T]) PageStart(cursor string) (int, bool) {
	name, ok := catalog.DecodeCursor(cursor)
	if !ok {
		return 0, false
	}
	s.atOnce.Do(func() {
		s.at = make(map[string]int, len(s.list))
		for i, e := range s.list {
			s.at[e.Key()] = i
		}
	})
	i, ok := s.at[name]
	return i + 1, ok
}

// Slot returns where page i (of size tools each) of this snapshot's tools/list
// result is kept for an era.
func (s *Set[T]) Slot(modern bool, i, size int) *atomic.Pointer[[]byte] {
	s.pagesOnce.Do(func() {
		s.modern = make([]atomic.Pointer[[]byte], len(s.list)/size+1)
		s.legacy = make([]atomic.Pointer[[]byte], len(s.list)/size+1)
	})
	if modern {
		return &s.modern[i]
	}
	return &s.legacy[i]
}

// A Ref holds the current Set. Its zero value holds an empty one once Init ran.
// Add, Put and Remove must be serialised by the caller; Load may run at any
// time.
type Ref[T Entry] struct{ p atomic.Pointer[Set[T]] }

// Init publishes an empty set.
func (r *Ref[T]) Init() { r.p.Store(&Set[T]{byName: map[string]T{}}) }

// Load returns the current snapshot with its index built.
func (r *Ref[T]) Load() *Set[T] {
	s := r.p.Load()
	s.built.Do(func() {
		if s.byName == nil {
			s.byName = make(map[string]T, len(s.list))
			for _, e := range s.list {
				s.byName[e.Key()] = e
			}
		}
	})
	return s
}

// Add appends e, unless a tool of its name is registered (false).
func (r *Ref[T]) Add(e T) bool {
	old := r.p.Load()
	idx := old.adding
	if idx == nil { // the first Add after Init, Put or Remove
		idx = make(map[string]T, len(old.list)+1)
		for _, x := range old.list {
			idx[x.Key()] = x
		}
	}
	if _, dup := idx[e.Key()]; dup {
		old.adding = idx
		return false
	}
	idx[e.Key()] = e
	old.adding = nil // handed on to the next snapshot
	// Appending in place is safe: only the latest snapshot is ever appended
	// to (under the writer's lock), and readers of older ones read no further
	// than their own length. Copying the list instead made registering n tools
	// O(n²).
	r.p.Store(&Set[T]{list: append(old.list, e), adding: idx})
	return true
}

// Put replaces the tool of e's name with e, or appends e when there is none.
func (r *Ref[T]) Put(e T) { r.replace(e.Key(), e, true) }

// Remove removes the tool called name and reports whether there was one.
func (r *Ref[T]) Remove(name string) bool {
	var zero T
	return r.replace(name, zero, false)
}

// replace publishes a fresh set with the tool called name replaced by e
// (keep), or removed; e is appended when keep and there is none. It reports
// whether there was a tool called name.
func (r *Ref[T]) replace(name string, e T, keep bool) bool {
	old := r.Load()
	next := &Set[T]{byName: make(map[string]T, len(old.list)+1)}
	found := false
	for _, x := range old.list {
		if x.Key() == name {
			found = true
			if !keep {
				continue
			}
			x = e
		}
		next.list = append(next.list, x)
	}
	if !found && keep {
		next.list = append(next.list, e)
	}
	for _, x := range next.list {
		next.byName[x.Key()] = x
	}
	if found || keep {
		r.p.Store(next)
	}
	return found
}
