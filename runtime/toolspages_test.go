package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
)

// TestToolsListPages: tools/list pages are built once per snapshot of the tools
// and era and then served as they are: the same bytes on a repeat, a new
// snapshot (AddTool) lists the new tool, a cursor that does not fall on a page
// boundary (from an older snapshot) still pages from the tool after it, and
// each era gets its own tool objects.
func TestToolsListPages(t *testing.T) {
	s := NewServer(Implementation{Name: "pages", Version: "0"}, &Options{Logger: discardLogger(), PageSize: 2})
	s.MustUse(&Extension{ID: extTasks}) // t3 is a task tool (runtime/tasks runs them)
	for i := range 5 {
		tool := echoTool()
		tool.Name = fmt.Sprintf("t%d", i)
		if i == 3 {
			tool.Task = TaskOptional // a 2025-11-25 entry differs from the 2026-07-28 one
		}
		tool.SchemasChecked = i != 2 // serialised by the first page that lists it
		s.AddTool(tool)
	}
	sess := s.NewSession(nil)
	s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), sess, nil)
	type page struct {
		Tools []struct {
			Name      string
			Execution *struct{ TaskSupport string }
		}
		NextCursor *string
	}
	list := func(modern bool, cursor *string) (page, []byte) {
		t.Helper()
		params := `{}`
		if cursor != nil {
			params = fmt.Sprintf(`{"cursor":%q}`, *cursor)
		}
		var ss *Session
		if modern {
			params = params[:len(params)-1]
			if cursor != nil {
				params += ","
			}
			params += `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`
		} else {
			ss = sess
		}
		r := s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":`+params+`}`), ss, nil)
		var resp struct{ Result page }
		if err := json.Unmarshal(r.Body, &resp); err != nil {
			t.Fatalf("tools/list: %s: %v", r.Body, err)
		}
		return resp.Result, r.Body
	}
	all := func(modern bool) ([]string, [][]byte) {
		var names []string
		var bodies [][]byte
		var cursor *string
		for {
			p, body := list(modern, cursor)
			bodies = append(bodies, body)
			for _, tool := range p.Tools {
				names = append(names, tool.Name)
				if tool.Execution != nil != (!modern && tool.Name == "t3") {
					t.Errorf("modern %v: %s has execution %v", modern, tool.Name, tool.Execution)
				}
			}
			if cursor = p.NextCursor; cursor == nil {
				return names, bodies
			}
		}
	}
	for _, modern := range []bool{true, false} {
		names, first := all(modern)
		if want := []string{"t0", "t1", "t2", "t3", "t4"}; !slices.Equal(names, want) {
			t.Errorf("modern %v: listed %q, want %q", modern, names, want)
		}
		_, again := all(modern)
		for i := range first {
			if string(first[i]) != string(again[i]) {
				t.Errorf("modern %v: page %d changed on a repeat:\n%s\n%s", modern, i, first[i], again[i])
			}
		}
		slot := s.tools.Load().Slot(modern, 1, 2)
		if b := slot.Load(); b == nil || !json.Valid(*b) {
			t.Errorf("modern %v: the second page is not kept", modern)
		}
	}
	// A generated tool listed first by a 2026-07-28 client keeps its bytes in
	// that page: one copy. (t3's 2025-11-25 bytes differ, so they are its own.)
	first := *s.tools.Load().Slot(true, 0, 2).Load()
	for _, name := range []string{"t0", "t1"} {
		d := s.tools.Load().Get(name).desc.Bytes(true)
		i := bytes.Index(first, d)
		if i < 0 || &first[i] != &d[0] {
			t.Errorf("%s: its bytes are not the first page's", name)
		}
	}
	extra := echoTool()
	extra.Name = "t5"
	s.AddTool(extra)
	for _, modern := range []bool{true, false} {
		if names, _ := all(modern); len(names) != 6 || names[5] != "t5" {
			t.Errorf("modern %v: after AddTool listed %q", modern, names)
		}
	}
	off := catalog.EncodeCursor("t0") // page boundaries are after t1, t3
	p, _ := list(true, &off)
	if len(p.Tools) != 2 || p.Tools[0].Name != "t1" || p.Tools[1].Name != "t2" {
		t.Errorf("page after t0: %+v", p.Tools)
	}
}
