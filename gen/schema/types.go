package schema

import (
	"encoding/json"
	"go/types"
	"math"
	"reflect"
	"strconv"

	"github.com/invopop/jsonschema"
)

// Patterns of strings the schemas constrain exactly.
const (
	// base64Pattern matches base64.StdEncoding output, as encoding/json
	// writes []byte.
	base64Pattern = `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`
	// numberPattern matches a JSON number.
	numberPattern = `^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`
	// jsonStringPattern matches a JSON string literal.
	jsonStringPattern = `^"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$`
)

// typ returns the schema of values of type t.
func (r *run) typ(t types.Type, w where) *jsonschema.Schema {
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		return nullable(r.typ(t.Elem(), w.addressable(true)))
	case *types.Named:
		return r.namedType(t, w)
	case *types.Basic:
		return r.basic(t, w)
	case *types.Slice:
		return r.slice(t, w)
	case *types.Array:
		return r.array(t, w)
	case *types.Map:
		return r.mapType(t, w)
	case *types.Struct:
		return r.structType(t, w)
	case *types.Interface:
		return r.iface(t, w)
	case *types.Chan:
		r.errorf(w, "chan type is not JSON-serializable")
	case *types.Signature:
		r.errorf(w, "func type is not JSON-serializable")
	case *types.TypeParam:
		r.errorf(w, "type parameter %s has no JSON form: use an instantiation of the generic type", t.Obj().Name())
	default:
		r.errorf(w, "internal error: unexpected type %s", typeString(t))
	}
	return &jsonschema.Schema{}
}

// nullable allows null besides s: encoding/json writes a nil pointer, slice
// or map as null and decodes null into them.
func nullable(s *jsonschema.Schema) *jsonschema.Schema {
	if s.Type == "null" || isEmpty(s) || nonNull(s) != s {
		return s
	}
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Type: "null"}}}
}

// nonNull returns the non-null branch of a nullable schema, or s.
func nonNull(s *jsonschema.Schema) *jsonschema.Schema {
	if len(s.AnyOf) == 2 && s.AnyOf[1].Type == "null" && s.Type == "" {
		return s.AnyOf[0]
	}
	return s
}

// namedType handles the types encoding/json treats specially, then caches
// the schema of every other named type.
func (r *run) namedType(n *types.Named, w where) *jsonschema.Schema {
	if s, ok := r.wellKnown(n, w); ok {
		return s
	}
	if s, ok := r.selfDescribed(n, w); ok {
		return r.withTypeDoc(s, n)
	}
	return r.named(n, w, func() *jsonschema.Schema { return r.buildNamed(n, w) })
}

// selfDescribed handles the named types whose JSON is not made of their
// structure: a //mcp:schema directive, marshal methods, or an interface.
// It is not cached, so that a problem with such a type is reported at each
// use.
func (r *run) selfDescribed(n *types.Named, w where) (*jsonschema.Schema, bool) {
	if d, ok := r.b.docs.directives[n.Origin().Obj()]; ok {
		return r.directiveSchema(n, d, w), true
	}
	if s, ok := r.marshalerSchema(n, w); ok {
		return s, true
	}
	if it, ok := n.Underlying().(*types.Interface); ok && !it.Empty() {
		r.errorf(w, "interface type %s is not JSON-serializable: its JSON depends on the dynamic type", typeString(n))
		return &jsonschema.Schema{}, true
	}
	return nil, false
}

// withTypeDoc adds the doc comment of n to s when s has no description.
func (r *run) withTypeDoc(s *jsonschema.Schema, n *types.Named) *jsonschema.Schema {
	doc := r.b.typeDoc(n)
	if doc == "" || s.Description != "" || isEmpty(s) {
		return s
	}
	c := *s
	c.Description = doc
	return &c
}

// wellKnown returns the schemas of standard types with their own JSON form.
func (r *run) wellKnown(n *types.Named, w where) (*jsonschema.Schema, bool) {
	obj := n.Obj()
	if obj.Pkg() == nil {
		return nil, false
	}
	switch obj.Pkg().Path() + "." + obj.Name() {
	case "time.Time":
		return &jsonschema.Schema{Type: "string", Format: "date-time"}, true
	case "time.Duration":
		return intSchema(types.Int64), true
	case "encoding/json.Number":
		return &jsonschema.Schema{Type: "number"}, true
	case "math/big.Int": // MarshalJSON writes the decimal integer
		if r.mode == modeOutput && r.pointerOnly(n, "MarshalJSON", w) {
			return &jsonschema.Schema{}, true
		}
		return &jsonschema.Schema{Type: "integer"}, true
	case "encoding/json.RawMessage":
		if w.anyOK {
			return &jsonschema.Schema{}, true
		}
		r.errorf(w, "json.RawMessage holds any JSON value: tag the field `mcp:\"any\"` to accept that explicitly")
		return &jsonschema.Schema{}, true
	}
	return nil, false
}

// buildNamed derives the schema of a named type that is not well known.
func (r *run) buildNamed(n *types.Named, w where) *jsonschema.Schema {
	if vals := r.b.enumValues(n); len(vals) > 0 {
		s := r.typ(n.Underlying(), w)
		c := *s
		c.Enum = vals
		c.Minimum, c.Maximum = "", "" // the values are in range
		return &c
	}
	return r.typ(n.Underlying(), w)
}

// marshalerSchema handles types with JSON or text methods, which decide
// their JSON themselves.
func (r *run) marshalerSchema(n *types.Named, w where) (*jsonschema.Schema, bool) {
	name := typeString(n)
	if r.mode == modeOutput {
		if r.pointerOnly(n, "MarshalJSON", w) || r.pointerOnly(n, "MarshalText", w) {
			return &jsonschema.Schema{}, true
		}
		if hasMethod(n, w.addr, "MarshalJSON") {
			r.errorf(w, "type %s has a MarshalJSON method%s, so its JSON cannot be derived: describe it with a `//mcp:schema {...}` line in the doc comment of %s", name, promoted(n, w.addr, "MarshalJSON"), n.Obj().Name())
			return &jsonschema.Schema{}, true
		}
		if hasMethod(n, w.addr, "MarshalText") {
			return &jsonschema.Schema{Type: "string"}, true
		}
		return nil, false
	}
	if hasMethod(n, true, "UnmarshalJSON") {
		r.errorf(w, "type %s has an UnmarshalJSON method%s, so the JSON it accepts cannot be derived: describe it with a `//mcp:schema {...}` line in the doc comment of %s", name, promoted(n, true, "UnmarshalJSON"), n.Obj().Name())
		return &jsonschema.Schema{}, true
	}
	if hasMethod(n, true, "UnmarshalText") {
		return &jsonschema.Schema{Type: "string"}, true
	}
	return nil, false
}

// pointerOnly reports (as an error) a marshal method declared on the
// pointer receiver only: json.Marshal calls it for addressable values but
// not for others (a value passed to json.Marshal, a map element), so the
// JSON of the type depends on where the value sits.
func (r *run) pointerOnly(n *types.Named, method string, w where) bool {
	if w.addr || !ptrOnly(n, method) {
		return false
	}
	r.errorf(w, "type %s declares %s on the pointer receiver, which json.Marshal ignores for values that are not addressable: declare it on the value receiver", typeString(n), method)
	return true
}

// ptrOnly reports whether *t has the method and t does not.
func ptrOnly(t types.Type, method string) bool {
	return hasMethod(t, true, method) && !hasMethod(t, false, method)
}

// addressable returns w with the given addressability.
func (w where) addressable(addr bool) where {
	w.addr = addr
	return w
}

// addrSensitive reports whether the output schema of t depends on whether
// the value is addressable: t, or a type reached from it through struct
// fields and array elements (which keep the addressability of their
// container), declares MarshalJSON or MarshalText on the pointer receiver
// only. Pointers and slices always make their elements addressable, and map
// values never are, so the search stops there.
func (b *Builder) addrSensitive(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.Named:
		if v, ok := b.sensitive.At(u).(bool); ok {
			return v
		}
		b.sensitive.Set(u, false) // value types cannot contain themselves
		res := ptrOnly(u, "MarshalJSON") || ptrOnly(u, "MarshalText")
		if !res && !hasMethod(u, false, "MarshalJSON") && !hasMethod(u, false, "MarshalText") {
			res = b.addrSensitive(u.Underlying())
		}
		b.sensitive.Set(u, res)
		return res
	case *types.Array:
		return b.addrSensitive(u.Elem())
	case *types.Struct:
		for _, f := range structFields(u) {
			if !f.viaPointer && b.addrSensitive(f.typ) {
				return true
			}
		}
	}
	return false
}

// promoted describes where a method promoted through embedding comes from,
// or returns "".
func promoted(t types.Type, pointer bool, name string) string {
	obj, index, _ := types.LookupFieldOrMethod(t, pointer, nil, name)
	fn, ok := obj.(*types.Func)
	if !ok || len(index) < 2 {
		return ""
	}
	recv := fn.Signature().Recv().Type()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	return " (promoted from embedded " + typeString(recv) + ")"
}

// hasMethod reports whether t (or *t when pointer is set) has the method.
func hasMethod(t types.Type, pointer bool, name string) bool {
	obj, _, _ := types.LookupFieldOrMethod(t, pointer, nil, name)
	_, ok := obj.(*types.Func)
	return ok
}

// basic maps Go's basic types.
func (r *run) basic(t *types.Basic, w where) *jsonschema.Schema {
	info := t.Info()
	switch {
	case info&types.IsBoolean != 0:
		return &jsonschema.Schema{Type: "boolean"}
	case info&types.IsInteger != 0:
		return intSchema(t.Kind())
	case info&types.IsComplex != 0:
		r.errorf(w, "%s type is not JSON-serializable", t)
	case t.Kind() == types.Float32:
		return &jsonschema.Schema{Type: "number", Minimum: float32Min, Maximum: float32Max}
	case info&types.IsFloat != 0:
		return &jsonschema.Schema{Type: "number"}
	case info&types.IsString != 0:
		return &jsonschema.Schema{Type: "string"}
	default:
		r.errorf(w, "%s type is not JSON-serializable", t)
	}
	return &jsonschema.Schema{}
}

// The float32 bounds are written as json.Marshal writes math.MaxFloat32
// (3.4028235e+38, a little above the exact value), so that the largest
// float32 validates; encoding/json decodes numbers up to there into it.
var (
	float32Max = json.Number(strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32))
	float32Min = json.Number("-" + string(float32Max))
)

// intRange returns the bounds of an integer kind (int and uint are 64-bit).
func intRange(k types.BasicKind) (lo, hi string) {
	switch k {
	case types.Int8:
		return "-128", "127"
	case types.Int16:
		return "-32768", "32767"
	case types.Int32:
		return "-2147483648", "2147483647"
	case types.Int, types.Int64:
		return "-9223372036854775808", "9223372036854775807"
	case types.Uint8:
		return "0", "255"
	case types.Uint16:
		return "0", "65535"
	case types.Uint32:
		return "0", "4294967295"
	default: // uint, uint64, uintptr
		return "0", "18446744073709551615"
	}
}

func intSchema(k types.BasicKind) *jsonschema.Schema {
	lo, hi := intRange(k)
	return &jsonschema.Schema{Type: "integer", Minimum: json.Number(lo), Maximum: json.Number(hi)}
}

// isByte reports whether t is a byte-like element type whose slices the
// schema describes as base64. encoding/json writes a slice of a byte kind in
// base64 unless *T has MarshalJSON or MarshalText, and then an array of what
// they write. It reads base64 into any such slice, bypassing the element's
// methods, and an array element by element; when *T has UnmarshalJSON or
// UnmarshalText the input schema is that array, as its methods read it.
func (r *run) isByte(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	if !ok || b.Kind() != types.Uint8 {
		return false
	}
	if r.mode == modeOutput {
		return !hasMethod(t, true, "MarshalJSON") && !hasMethod(t, true, "MarshalText")
	}
	return !hasMethod(t, true, "UnmarshalJSON") && !hasMethod(t, true, "UnmarshalText")
}

func bytesSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", ContentEncoding: "base64", Pattern: base64Pattern}
}

func (r *run) slice(t *types.Slice, w where) *jsonschema.Schema {
	if r.isByte(t.Elem()) {
		return nullable(bytesSchema())
	}
	return nullable(&jsonschema.Schema{Type: "array", Items: r.typ(t.Elem(), w.addressable(true))})
}

func (r *run) array(t *types.Array, w where) *jsonschema.Schema {
	n := uint64(t.Len())
	return &jsonschema.Schema{Type: "array", Items: r.typ(t.Elem(), w), MinItems: &n, MaxItems: &n}
}

// mapType describes a map: the one kind of open object.
func (r *run) mapType(t *types.Map, w where) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: r.typ(t.Elem(), w.addressable(false))}
	names, ok := r.mapKey(t.Key())
	if !ok {
		r.errorf(w, "map key type %s is not JSON-serializable: keys must be strings, integers or implement encoding.TextMarshaler and encoding.TextUnmarshaler", typeString(t.Key()))
	}
	s.PropertyNames = names
	return nullable(s)
}

// mapKey returns the propertyNames schema for a key type (nil: any string),
// in encoding/json's order of precedence for the mode.
func (r *run) mapKey(k types.Type) (*jsonschema.Schema, bool) {
	b, _ := k.Underlying().(*types.Basic)
	isString := b != nil && b.Info()&types.IsString != 0
	isInt := b != nil && b.Info()&types.IsInteger != 0
	if r.mode == modeOutput {
		switch {
		case isString:
			return nil, true
		case hasMethod(k, false, "MarshalText"):
			return nil, true
		}
	} else {
		switch {
		case hasMethod(k, true, "UnmarshalText"):
			return nil, true
		case isString:
			return nil, true
		}
	}
	if isInt {
		return &jsonschema.Schema{Type: "string", Pattern: intKeyPattern(b.Kind())}, true
	}
	return nil, false
}

func (r *run) iface(t *types.Interface, w where) *jsonschema.Schema {
	if t.Empty() {
		if !w.anyOK {
			r.errorf(w, "an interface holds any JSON value: tag the field `mcp:\"any\"` to accept that explicitly")
		}
		return &jsonschema.Schema{}
	}
	r.errorf(w, "interface type %s is not JSON-serializable: its JSON depends on the dynamic type", typeString(t))
	return &jsonschema.Schema{}
}

// quotedSchema describes a field with the ",string" option: its JSON is the
// JSON of the value inside a string, except where the type's own methods take
// over. encoding/json ignores the option when writing a type with MarshalJSON
// or MarshalText (it writes what they write); when reading, it passes the
// string's content to UnmarshalJSON, and to UnmarshalText only when that
// content is itself a JSON string literal.
func (r *run) quotedSchema(f *jsonField, w where) *jsonschema.Schema {
	plain := r.typ(f.typ, w)
	ft := types.Unalias(f.typ)
	ptr := false
	if p, ok := ft.(*types.Pointer); ok {
		ft, ptr = types.Unalias(p.Elem()), true
	}
	inner := nonNull(plain)
	var q *jsonschema.Schema
	switch {
	case r.mode == modeOutput && (hasMethod(ft, true, "MarshalJSON") || hasMethod(ft, true, "MarshalText")):
		return plain // written by the method; a pointer-only one reached by value is already an error
	case r.mode == modeInput && hasMethod(ft, true, "UnmarshalJSON"):
		r.errorf(w, "the \",string\" option on type %s, which has an UnmarshalJSON method: encoding/json then passes the content of a JSON string to UnmarshalJSON, so the JSON it accepts cannot be derived (and is not what MarshalJSON writes): drop \",string\"", typeString(ft))
		return &jsonschema.Schema{}
	case r.mode == modeInput && hasMethod(ft, true, "UnmarshalText"):
		// The content must be a JSON string literal, whose value UnmarshalText reads.
		q = &jsonschema.Schema{Type: "string", Pattern: jsonStringPattern, Description: inner.Description}
	default:
		q = quotedBasic(ft.Underlying().(*types.Basic), inner)
	}
	if ptr {
		return nullable(q)
	}
	return q
}

// quotedBasic is the ",string" form of a value of kind b whose plain schema
// is inner: booleans "true" or "false", numbers their JSON text, strings
// their JSON string literal, enum values quoted as encoding/json writes them.
func quotedBasic(b *types.Basic, inner *jsonschema.Schema) *jsonschema.Schema {
	q := &jsonschema.Schema{Type: "string", Description: inner.Description}
	switch info := b.Info(); {
	case len(inner.Enum) > 0:
		for _, v := range inner.Enum {
			js, _ := json.Marshal(v)
			q.Enum = append(q.Enum, string(js))
		}
	case info&types.IsBoolean != 0:
		q.Enum = []any{"true", "false"}
	case info&types.IsInteger != 0:
		q.Pattern = intKeyPattern(b.Kind())
	case info&types.IsFloat != 0 || inner.Type == "number": // json.Number is string-kinded
		q.Pattern = numberPattern
	default:
		q.Pattern = jsonStringPattern
	}
	return q
}

// isEmpty reports whether s is the empty schema {} (any value).
func isEmpty(s *jsonschema.Schema) bool {
	if s.Type != "" || s.Ref != "" || s.Properties != nil {
		return false // the common cases, without reflection
	}
	return reflect.DeepEqual(s, &emptySchema)
}

// emptySchema is the zero schema isEmpty compares with.
var emptySchema jsonschema.Schema
