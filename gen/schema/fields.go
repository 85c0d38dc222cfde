package schema

import (
	"cmp"
	"go/types"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/tools/go/types/typeutil"
)

// A jsonField is one property of a struct as encoding/json sees it, after
// embedded structs have been flattened and conflicts resolved.
type jsonField struct {
	name      string       // JSON property name
	tagged    bool         // name came from a json tag
	index     []int        // field index sequence from the root struct
	vars      []*types.Var // the Go fields along index (embedded ones first)
	typ       types.Type   // field type (an unnamed pointer is kept: see quoted)
	tag       reflect.StructTag
	omitEmpty bool
	omitZero  bool
	quoted    bool // the ",string" option applies
	// viaPointer reports whether the field is promoted through an embedded
	// pointer: encoding/json skips it when that pointer is nil.
	viaPointer bool
	// viaUnexportedPointer reports whether one of those embedded pointers
	// points to an unexported struct type: encoding/json cannot allocate it
	// when decoding.
	viaUnexportedPointer bool
}

// last returns the Go field that declares the property.
func (f *jsonField) last() *types.Var { return f.vars[len(f.vars)-1] }

// structFields mirrors encoding/json's typeFields (go1.26) on go/types.
// The result is in the order json.Marshal writes the properties.
func structFields(st *types.Struct) []jsonField {
	type queued struct {
		typ         *types.Struct
		key         types.Type
		index       []int
		vars        []*types.Var
		viaPtr      bool
		viaUnexpPtr bool
	}
	current := []queued{}
	next := []queued{{typ: st, key: st}}
	var count, nextCount *typeutil.Map
	var visited typeutil.Map
	var fields []jsonField

	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, new(typeutil.Map)
		for _, f := range current {
			if visited.At(f.key) != nil {
				continue
			}
			visited.Set(f.key, true)
			for i := range f.typ.NumFields() {
				sf := f.typ.Field(i)
				tag := reflect.StructTag(f.typ.Tag(i))
				isPtr := false
				if sf.Anonymous() {
					t := types.Unalias(sf.Type())
					if p, ok := t.(*types.Pointer); ok {
						t = types.Unalias(p.Elem())
						isPtr = true
					}
					if !sf.Exported() && !isStruct(t) {
						continue
					}
				} else if !sf.Exported() {
					continue
				}
				jtag := tag.Get("json")
				if jtag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(jtag, ",")
				if !isValidTag(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				vars := append(slices.Clip(f.vars), sf)

				ft := types.Unalias(sf.Type())
				if p, ok := ft.(*types.Pointer); ok {
					ft = types.Unalias(p.Elem())
				}
				if name != "" || !sf.Anonymous() || !isStruct(ft) {
					fld := jsonField{
						name:                 name,
						tagged:               name != "",
						index:                index,
						vars:                 vars,
						typ:                  sf.Type(),
						tag:                  tag,
						omitEmpty:            hasOpt(opts, "omitempty"),
						omitZero:             hasOpt(opts, "omitzero"),
						quoted:               hasOpt(opts, "string") && quotable(ft),
						viaPointer:           f.viaPtr,
						viaUnexportedPointer: f.viaUnexpPtr,
					}
					if fld.name == "" {
						fld.name = sf.Name()
					}
					fields = append(fields, fld)
					if n, _ := count.At(f.key).(int); n > 1 {
						// As in encoding/json: a duplicate makes the
						// annihilation below drop the name.
						fields = append(fields, fld)
					}
					continue
				}
				n, _ := nextCount.At(ft).(int)
				nextCount.Set(ft, n+1)
				if n == 0 {
					unexp := isPtr && !exportedName(ft)
					next = append(next, queued{
						typ: ft.Underlying().(*types.Struct), key: ft, index: index, vars: vars,
						viaPtr: f.viaPtr || isPtr, viaUnexpPtr: f.viaUnexpPtr || unexp,
					})
				}
			}
		}
	}
	return dominantFields(fields)
}

// dominantFields drops hidden and conflicting fields and restores field order.
func dominantFields(fields []jsonField) []jsonField {
	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return +1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		name := fields[i].name
		for advance = 1; i+advance < len(fields) && fields[i+advance].name == name; advance++ {
		}
		group := fields[i : i+advance]
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue // conflict at the same depth: encoding/json drops the name
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

func isStruct(t types.Type) bool {
	_, ok := t.Underlying().(*types.Struct)
	return ok
}

// exportedName reports whether t is a named type with an exported name.
func exportedName(t types.Type) bool {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Exported()
	}
	return false
}

// quotable reports whether the ",string" option applies to a field of type t
// (after following one unnamed pointer).
func quotable(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return false
	}
	return b.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0 &&
		b.Info()&types.IsComplex == 0 && b.Kind() != types.UnsafePointer
}

// hasOpt reports whether the comma-separated json tag options contain opt.
func hasOpt(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// isValidTag is encoding/json's rule for a usable name in a json tag.
func isValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
