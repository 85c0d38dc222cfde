package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// named is addTool under another name.
func named(name string) *Tool {
	t := addTool()
	t.Name = name
	return t
}

// TestToolIndexAcrossChanges: the index AddTool keeps while appending, and the
// one readers get, agree with the list through AddTool, RemoveTool and PutTool:
// duplicates are refused, removed names can come back, lookups find each tool.
func TestToolIndexAcrossChanges(t *testing.T) {
	s := NewServer(Implementation{Name: "idx", Version: "1"}, &Options{Logger: discardLogger()})
	s.AddTool(named("a"))
	s.AddTool(named("b"))
	s.RemoveTool("a")
	s.AddTool(named("c"))
	if !panics(func() { s.AddTool(named("b")) }) {
		t.Error("AddTool of b twice did not panic")
	}
	s.AddTool(named("a"))
	s.PutTool(named("c"))
	if !panics(func() { s.AddTool(named("a")) }) {
		t.Error("AddTool of a after PutTool did not panic")
	}
	s.AddTool(named("d"))
	set := s.tools.Load()
	var order []string
	for _, e := range set.List() {
		order = append(order, e.tool.Name)
		if set.Get(e.tool.Name) != e {
			t.Errorf("byName[%s] is not the listed entry", e.tool.Name)
		}
	}
	if got := strings.Join(order, ","); got != "b,c,a,d" || set.Len() != 4 {
		t.Errorf("tools %s (%d indexed), want b,c,a,d", got, set.Len())
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}

// TestAddToolWhileServing: tools added while calls and listings run are found
// by both (run with -race).
func TestAddToolWhileServing(t *testing.T) {
	s := NewServer(Implementation{Name: "idx", Version: "1"}, &Options{Logger: discardLogger()})
	s.AddTool(named("t0"))
	const n = 300
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i < n; i++ {
			s.AddTool(named(fmt.Sprintf("t%d", i)))
		}
	}()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for i := 0; i < n; i += 7 {
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t0","arguments":{"a":%d,"b":1},%s}}`, i, meta)
		if r := s.HandleRaw(context.Background(), []byte(call), nil, nil); r.Code != 0 || !strings.Contains(string(r.Body), fmt.Sprint(i+1)) {
			t.Fatalf("call during registration: %s", r.Body)
		}
		s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`), nil, nil)
	}
	wg.Wait()
	last := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t%d","arguments":{"a":1,"b":1},%s}}`, n-1, meta)
	if r := s.HandleRaw(context.Background(), []byte(last), nil, nil); r.Code != 0 {
		t.Fatalf("call of the last tool: %s", r.Body)
	}
	if got := s.tools.Load().Len(); got != n {
		t.Errorf("%d tools indexed, want %d", got, n)
	}
}
