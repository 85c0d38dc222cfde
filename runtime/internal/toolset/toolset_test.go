package toolset

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
)

type tool struct {
	name, v string
	desc    Desc
	task    string
}

func (t *tool) Key() string { return t.name }
func (t *tool) Desc() *Desc { return &t.desc }
func (t *tool) Wire() Tool {
	return Tool{Name: t.name, Description: t.v, InputSchema: json.RawMessage(`{"type":"object"}`), Task: t.task}
}

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
		if !r.Add(&tool{name: n, v: "1"}) {
			t.Fatalf("Add(%s) refused", n)
		}
	}
	if r.Add(&tool{name: "b", v: "2"}) {
		t.Error("Add of a taken name accepted")
	}
	three := r.Load()
	if got := names(three); got != "a=1,b=1,c=1" || three.Len() != 3 || three.Get("b").v != "1" {
		t.Fatalf("after Add: %s (%d indexed)", got, three.Len())
	}
	r.Put(&tool{name: "b", v: "2"})
	r.Put(&tool{name: "d", v: "1"})
	if !r.Remove("a") || r.Remove("zz") {
		t.Error("Remove reported the wrong presence")
	}
	r.Add(&tool{name: "e", v: "1"}) // appending after Put/Remove rebuilds the writer's index
	if r.Add(&tool{name: "c", v: "9"}) {
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

// TestPage: a page lists its tools in order for each era with the next
// cursor, serialises a tool on first listing and keeps the page's bytes as its
// object, honours the listed filter, and Encode gives 2025-11-25 its
// execution member only.
func TestPage(t *testing.T) {
	var r Ref[*tool]
	r.Init()
	r.Add(&tool{name: "a", v: "A"})
	r.Add(&tool{name: "b", v: "B", task: "optional"})
	r.Add(&tool{name: "c", v: "C"})
	if err := r.Load().List()[2].desc.Wire(r.Load().List()[2].Wire()); err != nil {
		t.Fatal(err)
	}
	set := r.Load()
	b, failed, err := Page(set, 0, 2, true, 10, nil)
	if err != nil || failed != "" {
		t.Fatalf("Page: %v (%s)", err, failed)
	}
	want := `{"tools":[{"name":"a","description":"A","inputSchema":{"type":"object"}},{"name":"b","description":"B","inputSchema":{"type":"object"}}],"nextCursor":"` + catalogCursor("b") + `"`
	if string(b) != want {
		t.Errorf("modern page\n got %s\nwant %s", b, want)
	}
	if cap(b)-len(b) < 10 {
		t.Errorf("page left %d bytes of room, want at least 10", cap(b)-len(b))
	}
	a := set.List()[0]
	if !a.desc.Wired() || &a.desc.Bytes(true)[0] != &b[len(`{"tools":[`)] {
		t.Error("a tool serialised by its first page does not keep the page's bytes")
	}
	legacy, _, err := Page(set, 1, 2, false, 0, func(e *tool) bool { return e.name != "c" })
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tools":[{"name":"b","description":"B","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]`; string(legacy) != want {
		t.Errorf("legacy filtered page\n got %s\nwant %s", legacy, want)
	}
	if string(set.List()[1].desc.Bytes(true)) != `{"name":"b","description":"B","inputSchema":{"type":"object"}}` {
		t.Errorf("b's modern object: %s", set.List()[1].desc.Bytes(true))
	}
	bad := &tool{name: "bad"}
	if _, _, _, err := Encode(Tool{Name: "bad", InputSchema: json.RawMessage(`{`)}); err == nil {
		t.Error("Encode accepted an invalid schema")
	}
	r.Add(bad)
	badTool := Tool{Name: "bad", InputSchema: json.RawMessage(`{`)}
	if err := bad.desc.Wire(badTool); err == nil {
		t.Error("Wire accepted an invalid schema")
	}
	if _, failed, err := Page(r.Load(), 3, 2, true, 0, nil); err == nil || failed != "bad" {
		t.Errorf("page of an unencodable tool: %q, %v", failed, err)
	}
}

func catalogCursor(key string) string { return catalog.EncodeCursor(key) }
