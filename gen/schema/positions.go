package schema

import (
	"go/token"
	"go/types"
	"strings"

	"github.com/invopop/jsonschema"
)

// Positions maps the JSON pointers (RFC 6901, "" for the root) of the
// subschemas of one schema to the Go declaration responsible for them: the
// root to the handler's parameter or result, a property to its struct
// field. Subschemas without an entry (items, anyOf branches, $defs) belong
// to their nearest ancestor with one; Lookup resolves them.
type Positions map[string]token.Position

// Lookup returns the position of the subschema at ptr: its own or its
// nearest ancestor's.
func (p Positions) Lookup(ptr string) token.Position {
	for {
		if pos, ok := p[ptr]; ok {
			return pos
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return p[""]
		}
		ptr = ptr[:i]
	}
}

// Positions links the subschemas of s, a schema that Input or Output
// returned for type t at position at, back to the struct fields they
// describe. It walks s and t side by side, so it needs no state from the
// run that built s (cached subschemas are shared between roots, so they
// cannot carry positions themselves).
func (b *Builder) Positions(s *jsonschema.Schema, t types.Type, at token.Pos) Positions {
	w := &posWalk{b: b, root: s, out: Positions{"": b.fset.Position(at)}, seen: map[string]bool{}}
	w.walk(s, derefRoot(t), "")
	return w.out
}

// A posWalk is the state of one Positions call.
type posWalk struct {
	b    *Builder
	root *jsonschema.Schema
	out  Positions
	seen map[string]bool // $defs entries already walked
}

// walk records the positions of the properties under s, which describes t,
// at JSON pointer ptr.
func (w *posWalk) walk(s *jsonschema.Schema, t types.Type, ptr string) {
	if s == nil || t == nil {
		return
	}
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		w.walk(s, p.Elem(), ptr)
		return
	}
	switch {
	case s.Ref != "":
		w.ref(s.Ref, t)
	case len(s.AnyOf) == 2 && s.AnyOf[1] != nil && s.AnyOf[1].Type == "null":
		w.walk(s.AnyOf[0], t, ptr+"/anyOf/0")
	case s.Properties != nil:
		w.object(s, t, ptr)
	case s.Items != nil:
		if el := elem(t); el != nil {
			w.walk(s.Items, el, ptr+"/items")
		}
	case s.AdditionalProperties != nil && s.AdditionalProperties != jsonschema.FalseSchema:
		if m, ok := t.Underlying().(*types.Map); ok {
			w.walk(s.AdditionalProperties, m.Elem(), ptr+"/additionalProperties")
		}
	}
}

// ref walks the $defs entry a $ref names, once per entry.
func (w *posWalk) ref(ref string, t types.Type) {
	name, ok := strings.CutPrefix(ref, defsPrefix)
	if !ok || w.seen[name] || w.root.Definitions == nil {
		return
	}
	w.seen[name] = true
	w.walk(w.root.Definitions[name], t, "/$defs/"+escapePointer(name))
}

// object records the position of each property of s that a field of the
// struct t declares, then walks into the property.
func (w *posWalk) object(s *jsonschema.Schema, t types.Type, ptr string) {
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return // a //mcp:schema or a map: no fields to point at
	}
	fields := structFields(st)
	byName := make(map[string]*jsonField, len(fields))
	for i := range fields {
		byName[fields[i].name] = &fields[i]
	}
	for name, ps := range s.Properties.FromOldest() {
		f := byName[name]
		if f == nil {
			continue
		}
		p := ptr + "/properties/" + escapePointer(name)
		w.out[p] = w.b.fset.Position(f.last().Pos())
		if !f.quoted {
			w.walk(ps, f.typ, p)
		}
	}
}

// elem returns the element type of a slice or array type, or nil.
func elem(t types.Type) types.Type {
	switch u := t.Underlying().(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

// escapePointer escapes a JSON pointer reference token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
