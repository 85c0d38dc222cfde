package schema

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/types/typeutil"
)

// defaults lists the input defaults that the generated decoder can apply:
// those of fields reached from the root through non-pointer struct fields
// only. Decoding starts from a zero value behind a pointer and in slice,
// array and map elements, so a default there would be a lie: it is an error.
func (r *run) defaults(root types.Type, at token.Pos) []Default {
	d := &defaultWalk{r: r}
	d.walk(root, nil, r.root, true)
	return d.out
}

type defaultWalk struct {
	r    *run
	out  []Default
	seen typeutil.Map // named types walked indirectly
}

func (d *defaultWalk) walk(t types.Type, path []string, gopath string, direct bool) {
	switch u := types.Unalias(t).(type) {
	case *types.Pointer:
		d.walk(u.Elem(), path, gopath, false)
	case *types.Slice:
		d.walk(u.Elem(), path, gopath, false)
	case *types.Array:
		d.walk(u.Elem(), path, gopath, false)
	case *types.Map:
		d.walk(u.Elem(), path, gopath, false)
	case *types.Named:
		if d.r.opaque(u) {
			return
		}
		if !direct {
			if d.seen.At(u) != nil {
				return
			}
			d.seen.Set(u, true)
		}
		d.walk(u.Underlying(), path, gopath, direct)
	case *types.Struct:
		d.fields(u, path, gopath, direct)
	}
}

func (d *defaultWalk) fields(st *types.Struct, path []string, gopath string, direct bool) {
	for _, f := range structFields(st) {
		p := slices.Clone(path)
		for _, v := range f.vars {
			p = append(p, v.Name())
		}
		fp := gopath + "." + goPath(&f)
		ok := direct && !f.viaPointer
		if js, has := d.r.b.defaultJSON[keyOf(f.last())]; has {
			if ok {
				d.out = append(d.out, Default{Path: p, Type: f.typ, JSON: js})
			} else {
				d.r.errorf(where{path: fp, pos: f.last().Pos()},
					"jsonschema tag: default cannot be applied here: the field is reached through a pointer, slice, array or map, where decoding starts from a zero value")
			}
		}
		if !f.quoted {
			d.walk(f.typ, p, fp, ok)
		}
	}
}

// opaque reports whether the JSON of n is not made of its fields (a well
// known type, a //mcp:schema directive, or unmarshal methods).
func (r *run) opaque(n *types.Named) bool {
	if obj := n.Obj(); obj.Pkg() != nil {
		switch obj.Pkg().Path() + "." + obj.Name() {
		case "time.Time", "time.Duration", "encoding/json.Number", "encoding/json.RawMessage", "math/big.Int":
			return true
		}
	}
	if _, ok := r.b.docs.directives[n.Origin().Obj()]; ok {
		return true
	}
	return hasMethod(n, true, "UnmarshalJSON") || hasMethod(n, true, "UnmarshalText")
}
