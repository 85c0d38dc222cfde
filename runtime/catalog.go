package runtime

import (
	"encoding/base64"
	"strings"
)

// A catalog is an immutable, ordered set of entries with unique keys (resource
// URIs, template URIs, prompt names). Registration builds a new catalog, so
// readers never lock. A nil *catalog is empty.
type catalog[T any] struct {
	list  []T
	keys  []string
	index map[string]int
}

// len returns the number of entries.
func (c *catalog[T]) len() int {
	if c == nil {
		return 0
	}
	return len(c.list)
}

// get returns the entry with key.
func (c *catalog[T]) get(key string) (T, bool) {
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

// with returns a catalog with v appended under key, or false if key is taken.
func (c *catalog[T]) with(key string, v T) (*catalog[T], bool) {
	if _, dup := c.get(key); dup {
		return c, false
	}
	n := &catalog[T]{index: make(map[string]int, c.len()+1)}
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

// without returns a catalog without key, or false if there is no such entry.
func (c *catalog[T]) without(key string) (*catalog[T], bool) {
	i, ok := 0, false
	if c != nil {
		i, ok = c.index[key]
	}
	if !ok {
		return c, false
	}
	n := &catalog[T]{index: make(map[string]int, c.len()-1)}
	n.list = append(append(n.list, c.list[:i]...), c.list[i+1:]...)
	n.keys = append(append(n.keys, c.keys[:i]...), c.keys[i+1:]...)
	for j, k := range n.keys {
		n.index[k] = j
	}
	return n, true
}

// page returns the entries of the page a cursor names (nil: the first page) and
// the cursor of the next page ("" on the last). A cursor names the last key
// already sent, so it stays valid while entries are added; ok is false for a
// cursor this runtime did not mint or whose entry is gone.
func (c *catalog[T]) page(cursor *string, size int) (items []T, next string, ok bool) {
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
		next = encodeCursor(c.keys[end-1])
	}
	return c.list[start:end], next, true
}

// after returns the index following the entry a cursor names.
func (c *catalog[T]) after(cursor string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	key, ok := strings.CutPrefix(string(raw), cursorPrefix)
	if !ok || c == nil {
		return 0, false
	}
	i, ok := c.index[key]
	return i + 1, ok
}
