// Package catalog holds the runtime's registries of resources, templates and
// prompts: immutable, ordered sets with unique keys, paged by opaque cursors.
package catalog

import (
	"encoding/base64"
	"strings"
)

// A Catalog is an immutable, ordered set of entries with unique keys (resource
// URIs, template URIs, prompt names). Registration builds a new catalog, so
// readers never lock. A nil *Catalog is empty.
type Catalog[T any] struct {
	list  []T
	keys  []string
	index map[string]int
}

// Len returns the number of entries.
func (c *Catalog[T]) Len() int {
	if c == nil {
		return 0
	}
	return len(c.list)
}

// All returns the entries in order; the caller must not change the slice.
func (c *Catalog[T]) All() []T {
	if c == nil {
		return nil
	}
	return c.list
}

// Get returns the entry with key.
func (c *Catalog[T]) Get(key string) (T, bool) {
	var zero T
	if c == nil {
		return zero, false
	}
	i, ok := c.index[key]
	if !ok {
		return zero, false
	}
	return c.list[i], true
}

// With returns a catalog with v appended under key, or false if key is taken.
func (c *Catalog[T]) With(key string, v T) (*Catalog[T], bool) {
	if _, dup := c.Get(key); dup {
		return c, false
	}
	n := &Catalog[T]{index: make(map[string]int, c.Len()+1)}
	if c != nil {
		n.list = append(append(n.list, c.list...), v)
		n.keys = append(append(n.keys, c.keys...), key)
	} else {
		n.list, n.keys = []T{v}, []string{key}
	}
	for i, k := range n.keys {
		n.index[k] = i
	}
	return n, true
}

// Without returns a catalog without key, or false if there is no such entry.
func (c *Catalog[T]) Without(key string) (*Catalog[T], bool) {
	i, ok := 0, false
	if c != nil {
		i, ok = c.index[key]
	}
	if !ok {
		return c, false
	}
	n := &Catalog[T]{index: make(map[string]int, c.Len()-1)}
	n.list = append(append(n.list, c.list[:i]...), c.list[i+1:]...)
	n.keys = append(append(n.keys, c.keys[:i]...), c.keys[i+1:]...)
	for j, k := range n.keys {
		n.index[k] = j
	}
	return n, true
}

// Page returns the entries of the page a cursor names (nil: the first page) and
// the cursor of the next page ("" on the last). A cursor names the last key
// already sent, so it stays valid while entries are added; ok is false for a
// cursor this runtime did not mint or whose entry is gone.
func (c *Catalog[T]) Page(cursor *string, size int) (items []T, next string, ok bool) {
	start := 0
	if cursor != nil {
		if start, ok = c.after(*cursor); !ok {
			return nil, "", false
		}
	}
	if c == nil {
		return nil, "", true
	}
	end := min(start+size, len(c.list))
	if end < len(c.list) {
		next = EncodeCursor(c.keys[end-1])
	}
	return c.list[start:end], next, true
}

// after returns the index following the entry a cursor names.
func (c *Catalog[T]) after(cursor string) (int, bool) {
	key, ok := DecodeCursor(cursor)
	if !ok || c == nil {
		return 0, false
	}
	i, ok := c.index[key]
	return i + 1, ok
}

// cursorPrefix marks cursors minted by this runtime.
const cursorPrefix = "after:"

// EncodeCursor returns the opaque cursor for the page after the entry with key.
func EncodeCursor(key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + key))
}

// DecodeCursor returns the key a cursor names; ok is false for a cursor this
// runtime did not mint.
func DecodeCursor(cursor string) (key string, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(string(raw), cursorPrefix)
}
