// Package compat compares tool contracts between two versions of a server
// and classifies each change as breaking or compatible, so that a release
// can be gated on it (mcpgen -compat BASE).
//
// A contract is a tool's name with its input and output schemas. For an
// input schema a change is breaking when the new schema rejects a document
// the old one accepted (clients built against the old contract would fail):
// a removed field (objects are closed), a field newly required, a narrowed
// type or range, a new pattern or format, a removed enum value, null no
// longer accepted. For an output schema a change is breaking when the new
// schema allows a value the old one did not, or drops a guarantee: a
// removed or no longer required field, a widened type or range, an added
// enum value, null newly possible. A removed tool is breaking (a tool
// removed while another with the same schemas appears is reported as a
// rename); additions are compatible.
//
// The comparison is structural, keyword by keyword, on the schemas mcpgen
// emits (nullable unions are unwrapped and local $refs followed), not a
// general decision procedure for JSON Schema inclusion.
package compat

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/gen/model"
)

// A Contract is what a client relies on for one tool.
type Contract struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// A Contracts is the tools.json file: every tool of a run, sorted by name.
type Contracts struct {
	Tools []Contract `json:"tools"`
}

// FromProgram returns the contracts of every tool of prog.
func FromProgram(prog *model.Program) Contracts {
	var c Contracts
	for _, p := range prog.Packages {
		for _, t := range p.Tools {
			c.Tools = append(c.Tools, Contract{Name: t.Name, InputSchema: compact(t.InputSchema), OutputSchema: compact(t.OutputSchema)})
		}
	}
	slices.SortFunc(c.Tools, func(a, b Contract) int { return cmp.Compare(a.Name, b.Name) })
	return c
}

// compact removes insignificant space from a schema.
func compact(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// Marshal writes c as indented JSON ending in a newline.
func (c Contracts) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("marshal tool contracts: %w", err)
	}
	return append(b, '\n'), nil
}

// Parse reads a tools.json file.
func Parse(data []byte) (Contracts, error) {
	var c Contracts
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("parse tool contracts: %w", err)
	}
	for i := range c.Tools {
		t := &c.Tools[i]
		t.InputSchema, t.OutputSchema = compact(t.InputSchema), compact(t.OutputSchema)
	}
	return c, nil
}

// A Change is one difference between two contracts.
type Change struct {
	Tool     string
	Where    string // "input", "output" or "" for the tool itself
	Ptr      string // JSON pointer in the new schema (the old one for removals)
	Breaking bool
	Msg      string
}

// String formats c as one report line.
func (c Change) String() string {
	kind := "compatible"
	if c.Breaking {
		kind = "breaking"
	}
	at := c.Tool
	if c.Where != "" {
		at += " " + c.Where
		if c.Ptr != "" {
			at += " #" + c.Ptr
		}
	}
	return fmt.Sprintf("%s: %s: %s", kind, at, c.Msg)
}

// Breaking reports whether any of cs is breaking.
func Breaking(cs []Change) bool {
	return slices.ContainsFunc(cs, func(c Change) bool { return c.Breaking })
}

// Diff returns the changes from old to new, breaking ones first, each
// group sorted by tool and pointer.
func Diff(old, new Contracts) ([]Change, error) {
	d := &differ{}
	oldBy, newBy := byName(old), byName(new)
	var removed, added []Contract
	for _, o := range old.Tools {
		n, ok := newBy[o.Name]
		if !ok {
			removed = append(removed, o)
			continue
		}
		if err := d.tool(o, n); err != nil {
			return nil, err
		}
	}
	for _, n := range new.Tools {
		if _, ok := oldBy[n.Name]; !ok {
			added = append(added, n)
		}
	}
	d.renames(removed, added)
	slices.SortStableFunc(d.out, func(a, b Change) int {
		if a.Breaking != b.Breaking {
			if a.Breaking {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Where, b.Where), cmp.Compare(a.Ptr, b.Ptr), cmp.Compare(a.Msg, b.Msg))
	})
	return d.out, nil
}

// byName indexes contracts by tool name.
func byName(c Contracts) map[string]Contract {
	m := make(map[string]Contract, len(c.Tools))
	for _, t := range c.Tools {
		m[t.Name] = t
	}
	return m
}

// renames reports removed and added tools, pairing a removed tool with an
// added one that has the same schemas as a rename.
func (d *differ) renames(removed, added []Contract) {
	used := map[string]bool{}
	for _, r := range removed {
		i := slices.IndexFunc(added, func(a Contract) bool {
			return !used[a.Name] && bytes.Equal(a.InputSchema, r.InputSchema) && bytes.Equal(a.OutputSchema, r.OutputSchema)
		})
		if i >= 0 {
			used[added[i].Name] = true
			d.add(Change{Tool: r.Name, Breaking: true, Msg: fmt.Sprintf("tool renamed to %q: clients calling %q fail", added[i].Name, r.Name)})
			continue
		}
		d.add(Change{Tool: r.Name, Breaking: true, Msg: "tool removed"})
	}
	for _, a := range added {
		if !used[a.Name] {
			d.add(Change{Tool: a.Name, Msg: "tool added"})
		}
	}
}
