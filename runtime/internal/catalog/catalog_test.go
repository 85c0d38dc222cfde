package catalog

import (
	"slices"
	"testing"
)

func TestCatalogPages(t *testing.T) {
	var c *Catalog[int]
	if c.Len() != 0 || c.All() != nil {
		t.Fatal("a nil catalog is not empty")
	}
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		var ok bool
		if c, ok = c.With(k, i); !ok {
			t.Fatalf("With(%s) refused", k)
		}
	}
	if _, ok := c.With("c", 9); ok {
		t.Error("With accepted a taken key")
	}
	var got []int
	var cursor *string
	for {
		items, next, ok := c.Page(cursor, 2)
		if !ok {
			t.Fatalf("Page(%v) refused its own cursor", *cursor)
		}
		got = append(got, items...)
		if next == "" {
			break
		}
		cursor = &next
	}
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("pages gave %v", got)
	}
	// A cursor names the last key sent: it survives additions, not the removal of
	// its own entry.
	_, next, _ := c.Page(nil, 2) // after "b"
	grown, _ := c.With("f", 5)
	if items, _, ok := grown.Page(&next, 10); !ok || !slices.Equal(items, []int{2, 3, 4, 5}) {
		t.Errorf("after an addition: %v, %v", items, ok)
	}
	shrunk, ok := c.Without("b")
	if !ok || shrunk.Len() != 4 {
		t.Fatalf("Without(b): %v, len %d", ok, shrunk.Len())
	}
	if _, _, ok := shrunk.Page(&next, 10); ok {
		t.Error("a cursor naming a removed entry was accepted")
	}
	if _, ok := shrunk.Without("b"); ok {
		t.Error("Without removed a missing key")
	}
	for _, bad := range []string{"", "!!", EncodeCursor("b")[1:]} {
		if _, _, ok := c.Page(&bad, 2); ok {
			t.Errorf("cursor %q accepted", bad)
		}
	}
	if key, ok := DecodeCursor(EncodeCursor("x/y")); !ok || key != "x/y" {
		t.Errorf("DecodeCursor(EncodeCursor) = %q, %v", key, ok)
	}
}
