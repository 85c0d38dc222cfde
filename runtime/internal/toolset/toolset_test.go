package toolset

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
)

type tool struct{ name, v string }

func (t *tool) Key() string { return t.name }

func names(s *Set[*tool]) string {
	var b []string
	for _, t := range s.List() {
		b = append(b, t.name+"="+t.v)
	}
	return strings.Join(b, ",")
}

// TestRef: Add appends and refuses a taken name, Put replaces in place or
// appends, Remove drops; every change is a new snapshot and an older snapshot
// keeps what it held; the index and cursors follow the list.
func TestRef(t *testing.T) {
	var r Ref[*tool]
	r.Init()
	empty := r.Load()
	for _, n := range []string{"a", "b", "c"} {
		if !r.Add(&tool{n, "1"}) {
			t.Fatalf("Add(%s) refused", n)
		}
	}
	if r.Add(&tool{"b", "2"}) {
		t.Error("Add of a taken name accepted")
	}
	three := r.Load()
	if got := names(three); got != "a=1,b=1,c=1" || three.Len() != 3 || three.Get("b").v != "1" {
		t.Fatalf("after Add: %s (%d indexed)", got, three.Len())
	}
	r.Put(&tool{"b", "2"})
	r.Put(&tool{"d", "1"})
	if !r.Remove("a") || r.Remove("zz") {
		t.Error("Remove reported the wrong presence")
	}
	r.Add(&tool{"e", "1"}) // appending after Put/Remove rebuilds the writer's index
	if r.Add(&tool{"c", "9"}) {
		t.Error("Add of a taken name accepted after Remove")
	}
	now := r.Load()
	if got := names(now); got != "b=2,c=1,d=1,e=1" || now.Get("a") != nil || now.Get("e") == nil {
		t.Errorf("now: %s", got)
	}
	if got := names(three); got != "a=1,b=1,c=1" || empty.Len() != 0 {
		t.Errorf("older snapshots changed: %s, empty %d", got, empty.Len())
	}
	if i, ok := now.PageStart(catalog.EncodeCursor("c")); !ok || i != 2 {
		t.Errorf("PageStart(after c) = %d, %v; want 2, true", i, ok)
	}
	if _, ok := now.PageStart(catalog.EncodeCursor("a")); ok {
		t.Error("a cursor naming a removed tool accepted")
	}
	if _, ok := now.PageStart("not a cursor"); ok {
		t.Error("a foreign cursor accepted")
	}
	b := []byte("page")
	now.Slot(true, 1, 2).Store(&b)
	if now.Slot(false, 1, 2).Load() != nil || *now.Slot(true, 1, 2).Load() == nil {
		t.Error("page slots of the two eras are not kept apart")
	}
}
