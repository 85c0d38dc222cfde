package schema

import (
	"go/types"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// structType describes a struct as a closed object whose properties are
// the fields encoding/json reads and writes, in the order it writes them.
func (r *run) structType(st *types.Struct, w where) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema}
	if r.mode == modeInput {
		r.unexportedArguments(st, w)
	}
	fields := structFields(st)
	if len(fields) > 0 {
		s.Properties = jsonschema.NewProperties()
	}
	for i := range fields {
		f := &fields[i]
		fs, required := r.field(f, w)
		s.Properties.Set(f.name, fs)
		if required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s
}

// goPath returns the Go names of a field's selector, embedded fields first.
func goPath(f *jsonField) string {
	names := make([]string, len(f.vars))
	for i, v := range f.vars {
		names[i] = v.Name()
	}
	return strings.Join(names, ".")
}

// field returns the schema of one property and whether it is required.
func (r *run) field(f *jsonField, parent where) (*jsonschema.Schema, bool) {
	v := f.last()
	w := where{path: parent.path + "." + goPath(f), pos: v.Pos(), addr: parent.addr || f.viaPointer}
	var header, effect string
	w.anyOK, header, effect = r.mcpTag(f, w)
	if r.mode == modeInput && f.viaUnexportedPointer {
		r.errorf(w, "the field is promoted through an embedded pointer to an unexported struct type, which encoding/json cannot allocate when decoding: export the type or embed it without a pointer")
	}
	var s *jsonschema.Schema
	if f.quoted {
		s = r.quotedSchema(f, w)
	} else {
		s = r.typ(f.typ, w)
	}
	if doc := r.b.fieldDoc(v); doc != "" {
		c := *s
		c.Description = doc
		s = &c
	}
	s, tr := r.applyTag(f, s, w)
	if header != "" && r.mode == modeInput {
		s = r.headerField(s, header, w)
	}
	if effect != "" {
		s = r.effectField(s, f, effect, w)
	}
	if r.mode == modeOutput {
		return s, !f.viaPointer && !f.omitZero && !(f.omitEmpty && emptiable(f.typ))
	}
	if tr.hasDefault && isPointer(f.typ) {
		r.errorf(w, "a pointer field cannot have a default: it is already optional (absent means nil)")
		delete(r.b.defaultJSON, keyOf(v))
	}
	optional := f.omitEmpty || f.omitZero || isPointer(f.typ) || f.viaPointer || tr.hasDefault
	return s, tr.required || !optional
}

// mcpTag reads the `mcp:"..."` struct tag: comma-separated options "any"
// (the field takes any JSON value), "header=NAME" (the input property
// carries "x-mcp-header": NAME), "idempotency_key" (a write's idempotency key)
// and "external_id" (the output field a write's receipt takes its external id
// from). It reports whether the field opts in to any JSON value, the header name
// ("" when none) and the effect option ("" when none).
func (r *run) mcpTag(f *jsonField, w where) (anyOK bool, header, effect string) {
	tag, ok := f.tag.Lookup("mcp")
	if !ok {
		return false, "", ""
	}
	for _, opt := range strings.Split(tag, ",") {
		switch name, isHeader := strings.CutPrefix(opt, "header="); {
		case opt == "any":
			anyOK = true
		case opt == TagIdempotencyKey || opt == TagExternalID:
			effect = opt
		case isHeader && name == "":
			r.errorf(w, "mcp tag: header= needs a name: an x-mcp-header value must not be empty")
		case isHeader:
			header = name
		default:
			r.errorf(w, "unknown mcp tag option %q: the options are `mcp:\"any\"`, `mcp:\"header=NAME\"`, `mcp:\"idempotency_key\"` and `mcp:\"external_id\"`", opt)
		}
	}
	if anyOK && !containsAny(f.typ) {
		r.errorf(w, "`mcp:\"any\"` has no effect: the field's type holds no any, interface{} or json.RawMessage")
	}
	return anyOK, header, effect
}

// The mcp tag options of writes.
const (
	TagIdempotencyKey = "idempotency_key"
	TagExternalID     = "external_id"
)

// IdempotencyKeyDescription is appended to the description of an input field
// tagged `mcp:"idempotency_key"`.
const IdempotencyKeyDescription = "Idempotency key: a new unique value (e.g. a UUID) for each new action; " +
	"when retrying the same action, send the same value with the same arguments: the server then " +
	"returns the first call's result instead of acting twice."

// effectField checks a field tagged idempotency_key (a string input field) or
// external_id (a string or integer output field) and describes an idempotency key.
func (r *run) effectField(s *jsonschema.Schema, f *jsonField, effect string, w where) *jsonschema.Schema {
	basic, _ := types.Unalias(f.typ).Underlying().(*types.Basic)
	switch {
	case effect == TagIdempotencyKey && r.mode != modeInput:
		r.errorf(w, "`mcp:\"idempotency_key\"` belongs on a field of the tool's input struct")
	case effect == TagExternalID && r.mode != modeOutput:
		r.errorf(w, "`mcp:\"external_id\"` belongs on a field of the tool's result struct")
	case effect == TagIdempotencyKey && (basic == nil || basic.Info()&types.IsString == 0):
		r.errorf(w, "`mcp:\"idempotency_key\"` needs a string field, got %s", f.typ)
	case effect == TagExternalID && (basic == nil || basic.Info()&(types.IsString|types.IsInteger) == 0):
		r.errorf(w, "`mcp:\"external_id\"` needs a string or integer field, got %s", f.typ)
	case effect == TagIdempotencyKey:
		c := *s
		if c.Description != "" {
			c.Description += " "
		}
		c.Description += IdempotencyKeyDescription
		return &c
	}
	return s
}

// containsAny reports whether t is, or has as elements (through pointers,
// slices, arrays, maps and named non-struct types), an empty interface or
// json.RawMessage: what `mcp:"any"` opts in.
func containsAny(t types.Type) bool {
	for range 100 { // element chains are short; the bound stops cycles
		switch u := types.Unalias(t).(type) {
		case *types.Named:
			if o := u.Obj(); o.Pkg() != nil && o.Pkg().Path() == "encoding/json" && o.Name() == "RawMessage" {
				return true
			}
			if isStruct(u) {
				return false
			}
			t = u.Underlying()
		case *types.Interface:
			return u.Empty()
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		case *types.Array:
			t = u.Elem()
		case *types.Map:
			t = u.Elem()
		default:
			return false
		}
	}
	return false
}

func isPointer(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Pointer)
	return ok
}

// emptiable reports whether omitempty can omit a value of type t.
func emptiable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		return false
	case *types.Array:
		return u.Len() == 0
	}
	return true
}

// unexportedArguments reports the unexported fields of an input struct that
// look meant as arguments: documented, or tagged json (other than "-") or
// jsonschema. encoding/json never sets an unexported field, so it would
// vanish from the schema and the call silently. json:"-" marks one as
// deliberately internal.
func (r *run) unexportedArguments(st *types.Struct, w where) {
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Exported() || f.Anonymous() {
			continue
		}
		tag := reflect.StructTag(st.Tag(i))
		jtag, hasJSON := tag.Lookup("json")
		if jtag == "-" {
			continue
		}
		_, hasSchema := tag.Lookup("jsonschema")
		var why string
		switch {
		case hasJSON || hasSchema:
			why = "has a json or jsonschema tag"
		case r.b.fieldDoc(f) != "":
			why = "is documented"
		default:
			continue
		}
		name := f.Name()
		exported := strings.ToUpper(name[:1]) + name[1:]
		r.errorf(where{path: w.path + "." + name, pos: f.Pos()},
			"unexported field %s %s, but encoding/json never reads unexported fields, so it is no argument and is left out of the input schema: export it (%s), or tag it json:\"-\" if it is not meant as an argument", name, why, exported)
	}
}
