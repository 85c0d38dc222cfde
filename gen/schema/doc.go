// Package schema derives JSON Schema 2020-12 documents from Go types, at
// generate time, with the exact semantics of encoding/json: an input schema
// accepts only documents that decode into the Go type (with unknown fields
// disallowed), and an output schema accepts everything json.Marshal can
// write for the type.
//
// # Use
//
//	b := schema.New(fset, pkgs) // one Builder per run: it caches per named type
//	in, defaults, diags := b.Input(inType, paramPos)
//	out, diags2 := b.Output(outType, resultPos)
//	js, err := schema.Marshal(in) // indented JSON for a Go raw string literal
//	if !schema.IsObjectRoot(out) {
//		legacy := schema.LegacyWrap(out) // {"result": ...} for 2025-11-25 clients
//	}
//	pos := b.Positions(in, inType, paramPos) // JSON pointer -> Go field, for
//	field := pos.Lookup("/properties/limit") // diagnostics about the schema
//
// Input requires a struct or a pointer to one (or a type whose
// //mcp:schema describes an object). Output accepts any type; a
// pointer root is described by its element (the generated adapter never
// marshals a nil result). Diagnostics are sorted and deduplicated within a
// call; a type shared by several roots reports its problems in each call,
// so merge with deduplication by (Pos, Msg). When a call returns
// diagnostics, its schema is incomplete and must not be emitted.
//
// Defaults lists the `jsonschema:"default=..."` values the generated code
// must store in the input value before decoding (Path from the root struct,
// embedded field names included; Type the field's Go type; JSON the value).
//
// # Shape
//
// Every struct is a closed object ("additionalProperties": false) with its
// properties in the order json.Marshal writes them (Go field order after
// embedding). Maps are the only open objects. Everything is inlined except
// recursive types, which get a local "$defs" entry named after the type
// (with type arguments, e.g. Tree_int for Tree[int]; qualified by package
// name on a clash, in the order the Builder meets them) and
// "$ref": "#/$defs/Name". A recursive root is written out in
// full at the root, so the root is always a plain schema with "type".
// No "$schema" keyword is written (2020-12 is the MCP default).
// Inlining repeats a shared type at each use; a root whose inlined schema
// would exceed 50,000 subschemas is refused with a diagnostic. The Builder
// itself builds each named type once per direction.
//
// Null: encoding/json writes a nil pointer, slice or map as null and
// decodes null into them, so their schemas are
// {"anyOf": [<schema>, {"type": "null"}]}, in input and output alike. anyOf
// is used rather than a type array because some providers (Gemini) reject
// type arrays. Other types do not accept null (encoding/json would ignore
// it; the schema is stricter, never looser).
//
// Required: in input, a property is required unless its field is a
// pointer, has omitempty or omitzero, has a default, or is promoted through
// an embedded pointer; `jsonschema:"required"` forces it. In output, a
// property is required unless json.Marshal may omit it: omitzero,
// omitempty on a type that can be empty (omitempty never omits a struct or
// a non-empty array), or promotion through an embedded pointer.
//
// # Mapping
//
//	bool                     {"type":"boolean"}
//	intN, uintN, uintptr     {"type":"integer","minimum":..,"maximum":..} (int and uint are 64-bit;
//	                         bounds beyond 2^53 are written exactly; output schemas leave out
//	                         the machine range of 64-bit types, machinebounds.go)
//	float32                  {"type":"number"} with ±math.MaxFloat32 bounds
//	float64                  {"type":"number"} (no bounds: 1e400 validates but does not decode)
//	string                   {"type":"string"}
//	[]byte                   {"type":"string","contentEncoding":"base64","pattern":<std base64>}, nullable
//	[N]T                     {"type":"array","items":T,"minItems":N,"maxItems":N} ([N]byte is an array of integers)
//	[]T                      {"type":"array","items":T}, nullable; T byte-kinded: base64 as []byte
//	                         unless *T has MarshalJSON or MarshalText (output) or UnmarshalJSON
//	                         or UnmarshalText (input), which make it an array of T
//	map[K]V                  {"type":"object","additionalProperties":V}, nullable; integer keys get
//	                         "propertyNames": {"pattern": decimal integers of the key's range};
//	                         string and TextMarshaler keys any string; other keys are errors
//	struct                   closed object (above)
//	*T                       T, nullable
//	time.Time                {"type":"string","format":"date-time"}
//	time.Duration            integer nanoseconds (int64 bounds)
//	json.Number              {"type":"number"}
//	*big.Int                 {"type":"integer"} (unbounded; a big.Int value that json.Marshal
//	                         cannot address is an error: its MarshalJSON has a pointer receiver)
//	*big.Float, *big.Rat     {"type":"string"} (MarshalText)
//	TextMarshaler types      {"type":"string"} (output: MarshalText; input: UnmarshalText)
//	named type with consts   the underlying schema plus "enum": the values of the constants of
//	                         that type declared in its package, in declaration order, without
//	                         repeats; not for the standard library (time.Month and fs.FileMode
//	                         keep their plain schema). The enum restricts output too: the author
//	                         promises to return only those values (a //mcp:schema lifts it).
//	generic instantiation    its instantiated fields
//	any, json.RawMessage     {} only with the field tag `mcp:"any"` (it also covers elements:
//	                         map[string]any); an error otherwise
//	chan, func, complex, unsafe.Pointer, non-empty interfaces: errors naming the field path
//
// The field tag `mcp:"header=NAME"` (options combine: `mcp:"any,header=X"`)
// adds "x-mcp-header": NAME to the input property, so that Streamable HTTP
// clients mirror the argument into an Mcp-Param-NAME header (2026-07-28) and
// the runtime checks the header against the body. Each rule of the spec is a
// positioned error: NAME empty or not an RFC 9110 token; a property that is
// not a plain string, boolean or integer (number, pointer, slice, map and
// struct fields are refused); integer bounds beyond ±(2^53-1) (narrow int and
// int64 with `jsonschema:"minimum=...,maximum=..."`, or use a 32-bit type);
// a name repeated case-insensitively in one input schema; a property not
// reachable from the root through properties only (under an array, map or
// recursive $defs type). Output schemas ignore the option.
//
// A type whose JSON comes from MarshalJSON (output) or UnmarshalJSON
// (input) needs its schema written by hand in its doc comment:
//
//	// ID identifies a note.
//	//
//	//mcp:schema {"type":"string","format":"uuid"}
//	type ID [16]byte
//
// The JSON is parsed and checked against the 2020-12 metaschema; it must be
// a self-contained object (no $ref). The directive works on any named type
// and the author answers for it.
//
// Methods on the pointer receiver: json.Marshal calls them only for
// addressable values. Output schemas track addressability as encoding/json
// does: a pointer result, anything behind a pointer, slice elements, and
// fields and array elements of addressable values are addressable; a result
// passed by value and map values are not. A MarshalJSON or MarshalText
// declared on the pointer receiver only, reached where the value is not
// addressable, is an error (declare it on the value receiver, or use a
// pointer).
//
// The ",string" json option makes a string of the value: booleans get
// {"enum":["true","false"]}, integers a decimal pattern, floats the JSON
// number pattern, strings the JSON string literal pattern; enums become the
// quoted values, spelled as encoding/json writes them (float constants too:
// "100000000000000000000", "0.000001", "1e+21"). Where the type has its own
// methods, encoding/json decides differently, and so does the schema: output
// is what MarshalJSON or MarshalText writes (the option is ignored); input to
// an UnmarshalText type is a string holding a JSON string literal (the JSON
// string pattern); input to an UnmarshalJSON type is an error (encoding/json
// would pass the string's content to UnmarshalJSON). Integer patterns (here and for map keys) match exactly the
// canonical decimals in range for kinds of up to 32 bits, e.g. for int8
// ^(?:0|[1-9][0-9]?|1[01][0-9]|12[0-7]|-(?:[1-9][0-9]?|1[01][0-9]|12[0-8]))$;
// for 64-bit kinds they bound the number of digits only (an exact pattern
// would take a kilobyte).
//
// # Descriptions
//
// A property's description is the doc comment of its field, else its line
// comment, else the doc comment of its named type (the text from
// go/ast.CommentGroup.Text: directives dropped, trimmed; nothing added).
// Comments are read from the syntax of the packages given to New (and of
// their imports when loaded with syntax), except the standard library's.
//
// # Constraints
//
// The `jsonschema:"..."` field tag uses invopop/jsonschema's grammar:
// comma-separated key=value pairs, with `\,` for a comma inside a value
// (written `\\,` in the tag source, which is a quoted Go string; a tag
// that does not unquote is an error). Keys: title, description, required
// (flag; input only), default, example, enum (repeat for each value),
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf,
// minLength, maxLength, pattern, format (one of the 2020-12 formats),
// minItems, maxItems, uniqueItems (flag). On a ",string" field only title,
// description and required apply. On an array of scalars, element keys (enum, minimum,
// pattern, ...) apply to the items and default/example list elements, as in
// invopop. Checked at generate time, each a positioned error at the field:
// an unknown key; a key that does not apply to the type; a malformed
// number; a bound wider than the Go type's range (narrower bounds replace
// the type's); min above max; a pattern Go's regexp cannot compile (JSON
// Schema patterns are ECMA-262: use the common subset); an unknown format;
// enum, default or example values of the wrong type, outside the bounds,
// lengths or pattern, or outside the type's own enum. A default applies only
// to fields reached from the root through non-pointer struct fields (the
// generated code can pre-fill those), of a basic type or a slice or array
// of one, without UnmarshalJSON or UnmarshalText (so that the Go value
// means what decoding the JSON would); elsewhere, and on pointer fields,
// it is an error.
//
// # Other libraries' tags
//
// Tags written for the official Go SDK (the whole jsonschema tag is the
// description) or mcp-go (jsonschema_description; text and enum= in the
// jsonschema tag; json:",required"; invopop keys mcpgen lacks) get one
// error per field saying what to write instead, unless SetDialect names
// that library's Dialect: then they are read as it reads them. FixTag
// rewrites such a tag into mcpgen's form (foreigntags.go).
//
// # Known inexactness
//
// JSON Schema cannot see how a number is written: 1.0 and 1e2 are integers
// to a validator, but encoding/json rejects them for Go integer fields, so
// the runtime reports them when decoding. 64-bit map keys and ",string"
// 64-bit integers with as many digits as the bounds may be out of range.
// A TextUnmarshaler type is any string to the schema, though its method
// may refuse some (add `jsonschema:"format=..."` or "pattern=..." where one
// fits). float64 has no bounds (1e400 validates but does not decode).
//
// Two gaps are closed by the mcpgen runtime rather than by the schema: format
// "date-time" is an annotation to a JSON Schema 2020-12 validator, but the
// runtime asserts it exactly as encoding/json decodes time.Time; and a JSON
// object repeating a member name is one value to a validator (the last) but
// several to encoding/json, so the runtime refuses it before validation (it
// also refuses numbers beyond float64).
package schema
