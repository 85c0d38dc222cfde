package toolset

// page.go: a tool's Tool object as tools/list sends it (both eras), made once,
// and the tools/list page that holds the objects.

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// A Tool is what tools/list says of a tool.
type Tool struct {
	Name, Title, Description  string
	InputSchema, OutputSchema json.RawMessage
	LegacyOutputSchema        json.RawMessage // 2025-11-25's outputSchema when it differs
	Annotations               any             // nil, or a value that encodes as the annotations object
	Task                      string          // the 2025-11-25 execution.taskSupport; "" for none
	Meta                      any             // nil, or a value that encodes as the _meta object
}

// wireTool is the JSON shape of a Tool in tools/list.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  any             `json:"annotations,omitempty"`
	Execution    *toolExecution  `json:"execution,omitempty"`
	Meta         any             `json:"_meta,omitempty"`
}

// toolExecution is a 2025-11-25 tool's execution member.
type toolExecution struct {
	TaskSupport string `json:"taskSupport"`
}

// Encode serialises t for both eras; same reports that they are the same
// bytes.
func Encode(t Tool) (modern, legacy []byte, same bool, err error) {
	w := wireTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Meta: t.Meta}
	if modern, err = json.Marshal(w); err != nil {
		return nil, nil, false, err
	}
	legacy = modern // the same bytes unless the legacy output schema differs
	if t.LegacyOutputSchema != nil {
		w.OutputSchema = t.LegacyOutputSchema
	}
	if t.Task != "" { // 2025-11-25 only: the extension has no per-tool flag
		w.Execution = &toolExecution{TaskSupport: t.Task}
	}
	if t.LegacyOutputSchema != nil || t.Task != "" {
		legacy, err = json.Marshal(w)
		return modern, legacy, false, err
	}
	return modern, legacy, true, nil
}

// A Desc is a tool's serialised Tool object for both eras: made at
// registration (Wire) or by the first tools/list page that lists the tool,
// whose bytes it then keeps (Page), so that a server that lists its catalog
// holds one copy of it, not two.
type Desc struct {
	once   sync.Once
	wired  atomic.Bool // once ran: the fields below are set
	modern []byte      // the Tool object for 2026-07-28 clients
	legacy []byte      // the Tool object for 2025-11-25 clients
	err    error
}

// Wire serialises the tool's objects (Encode), once.
func (d *Desc) Wire(t Tool) error {
	d.once.Do(func() {
		if d.modern, d.legacy, _, d.err = Encode(t); d.err != nil {
			d.err = fmt.Errorf("tool %q: encode: %w", t.Name, d.err)
		}
		d.wired.Store(true)
	})
	return d.err
}

// Wired reports whether the objects are made.
func (d *Desc) Wired() bool { return d.wired.Load() }

// Bytes returns the serialised Tool object for an era (once made).
func (d *Desc) Bytes(modern bool) []byte {
	if modern {
		return d.modern
	}
	return d.legacy
}

// A fresh is a tool serialised while its page is built.
type fresh struct {
	modern, legacy []byte
	same           bool // legacy is modern
}

// pick returns the bytes of an era.
func (f *fresh) pick(modern bool) []byte {
	if modern {
		return f.modern
	}
	return f.legacy
}

// bytesOrNew returns the Tool object for an era; a tool not serialised yet
// is serialised into f (and adopted by the page, adopt).
func (d *Desc) bytesOrNew(modern bool, f *fresh, t Tool) ([]byte, error) {
	if d.wired.Load() {
		return d.Bytes(modern), d.err
	}
	var err error
	if f.modern, f.legacy, f.same, err = Encode(t); err != nil {
		return nil, fmt.Errorf("tool %q: encode: %w", t.Name, err)
	}
	return f.pick(modern), nil
}

// adopt makes part, the copy in a page of the bytes f holds for an era, the
// tool's serialisation, unless the tool was serialised meanwhile.
func (d *Desc) adopt(part []byte, modern bool, f *fresh) {
	d.once.Do(func() {
		d.modern, d.legacy = f.modern, f.legacy
		switch {
		case f.same:
			d.modern, d.legacy = part, part
		case modern:
			d.modern = part
		default:
			d.legacy = part
		}
		d.wired.Store(true)
	})
}

// A Listed is a registered tool as tools/list sees it.
type Listed interface {
	Entry
	Desc() *Desc
	Wire() Tool
}

// Page returns the start of the tools/list result of the page of size tools
// that starts at start, for an era: `{"tools":[...]` and its nextCursor
// member, with room for reserve more bytes (the caller's members and the
// closing brace). listed, when not nil, keeps a tool off the page. A tool that
// cannot be serialised fails the page (failed names it).
func Page[T Listed](s *Set[T], start, size int, modern bool, reserve int, listed func(T) bool) (b []byte, failed string, err error) {
	end := min(start+size, len(s.list))
	page := s.list[start:end]
	made := make([]fresh, len(page)) // the tools not serialised yet
	var cursor string
	if end < len(s.list) {
		cursor = catalog.EncodeCursor(page[len(page)-1].Key())
	}
	n := 40 + len(cursor) + reserve
	for i, e := range page {
		d, err := e.Desc().bytesOrNew(modern, &made[i], e.Wire())
		if err != nil {
			return nil, e.Key(), err
		}
		n += len(d) + 1
	}
	b = make([]byte, 0, n) // exact: the tools' bytes stay where they are
	b = append(b, `{"tools":[`...)
	count := 0
	for i, e := range page {
		if listed != nil && !listed(e) {
			continue
		}
		if count > 0 {
			b = append(b, ',')
		}
		count++
		at := len(b)
		if f := &made[i]; f.modern != nil {
			b = append(b, f.pick(modern)...)
			e.Desc().adopt(b[at:len(b):len(b)], modern, f)
		} else {
			b = append(b, e.Desc().Bytes(modern)...)
		}
	}
	b = append(b, ']')
	if cursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = jsonwire.AppendString(b, cursor)
	}
	return b, "", nil
}

// VariantPage is Page for a variant of the list (an extension's view of
// tools/list): show says what the page lists of each tool: nothing (ok
// false), its own Tool object (own: made once, kept in its Desc), or another
// one, w, encoded here each time (the caller caches the page).
func VariantPage[T Listed](s *Set[T], start, size int, modern bool, show func(T) (w Tool, own, ok bool)) (b []byte, failed string, err error) {
	end := min(start+size, len(s.list))
	b = append(make([]byte, 0, 1024), `{"tools":[`...)
	n := 0
	for _, e := range s.list[start:end] {
		w, own, ok := show(e)
		if !ok {
			continue
		}
		var obj []byte
		if own {
			if err = e.Desc().Wire(e.Wire()); err == nil {
				obj = e.Desc().Bytes(modern)
			}
		} else if m, l, _, encErr := Encode(w); encErr == nil {
			obj = l
			if modern {
				obj = m
			}
		} else {
			err = encErr
		}
		if err != nil {
			return nil, e.Key(), err
		}
		if n > 0 {
			b = append(b, ',')
		}
		b, n = append(b, obj...), n+1
	}
	b = append(b, ']')
	if end < len(s.list) {
		b = jsonwire.AppendString(append(b, `,"nextCursor":`...), catalog.EncodeCursor(s.list[end-1].Key()))
	}
	return b, "", nil
}
