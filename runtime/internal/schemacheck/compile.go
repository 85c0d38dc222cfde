// Package schemacheck is the runtime's built-in JSON Schema 2020-12 validator:
// exact for every keyword mcpgen generates, walking raw JSON once without decoding it.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/format"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// This file compiles JSON Schema 2020-12 documents for the runtime's built-in
// validator (check.go). It covers every keyword mcpgen generates and the
// elicitation subset, exactly: type (and type arrays), properties, required,
// additionalProperties, propertyNames, minProperties, maxProperties, items,
// prefixItems, minItems, maxItems, uniqueItems, minLength, maxLength (in code points),
// pattern (Go's regexp, as mcpgen requires), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf (exact decimals), enum, const, anyOf, oneOf, $ref to
// "#" or a JSON Pointer within the document, $defs, and format (date-time, date,
// email and uri asserted; see internal/format). Annotations ($schema for 2020-12,
// $comment, title, description, default, examples, deprecated, readOnly, writeOnly,
// contentEncoding, contentMediaType, contentSchema) and unknown keywords (x-...) are
// ignored, as 2020-12 says.
//
// A schema using any other JSON Schema keyword (allOf, not, if, $anchor, $id, ...) is
// beyond the built-in validator: the runtime validates it with runtime/fullschema
// (santhosh-tekuri/jsonschema/v6) when that package is imported, and refuses to
// register it otherwise.

// JSON types as bits of a type set.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber // non-integral numbers; "number" allows tInteger too
	tString
	tArray
	tObject
)

// typeNames are the JSON Schema type names of the bits above ("number" covers two).
var typeNames = [...]struct {
	name string
	bits uint8
}{{"boolean", tBoolean}, {"integer", tInteger}, {"number", tInteger | tNumber},
	{"string", tString}, {"array", tArray}, {"object", tObject}, {"null", tNull}}

// A Schema is one compiled schema. A nil *Schema is the schema true (or one
// with annotations only): every value is valid.
type Schema struct {
	never bool  // the schema false
	types uint8 // allowed types; 0: any

	props     map[string]*schemaProp
	few       []namedProp // the properties when there are few: a scan beats hashing
	nProps    int         // len(props): each has an index below it
	required  []string    // in document order (for messages)
	reqMask   []uint64    // bits of the required properties' indexes
	closed    bool        // additionalProperties: false
	extra     *Schema
	propNames *Schema
	minProps  int
	maxProps  int // -1: none

	prefix   []*Schema
	items    *Schema
	minItems int
	maxItems int // -1: none
	unique   bool

	minLength int
	maxLength int // -1: none
	pattern   *regexp.Regexp
	format    string // an asserted format, or ""

	bounds     []numBound
	multipleOf []byte // a positive number literal, or nil

	enum    [][]byte // compact JSON values; nil: no enum
	isConst bool

	anyOf, oneOf []*Schema
	ref          *Schema

	walkObject bool // object keywords: the object walk applies them
	walkArray  bool // array keywords
	strings    bool // string keywords beyond type
	applies    bool // $ref, anyOf or oneOf: a valid value was walked by a subschema
}

// A schemaProp is a property named by "properties" (declared) or "required" (or both).
type schemaProp struct {
	schema   *Schema // nil: any value
	declared bool    // listed in "properties": not subject to additionalProperties
	index    int
}

// A namedProp is a property with its name.
type namedProp struct {
	name string
	prop *schemaProp
}

// maxFew is how many properties are looked up by scanning.
const maxFew = 8

// A numBound is minimum, maximum, exclusiveMinimum or exclusiveMaximum.
type numBound struct {
	keyword string
	limit   []byte          // the number literal
	lim     jsonwire.Number // parsed
	limInt  int64           // the limit, when it is an integer within int64 (limIsInt)
	isInt   bool
	upper   bool
	strict  bool
}

// An UnsupportedError (runtime.SchemaUnsupportedError) reports a keyword of a JSON Schema that the runtime's
// built-in validator does not implement. The runtime validates such a schema only
// when runtime/fullschema is imported (mcpgen adds that import to generated code
// whose schemas need it).
type UnsupportedError struct {
	Keyword string // e.g. "allOf"
	Pointer string // JSON Pointer of the keyword within the schema, e.g. "/properties/a/allOf"
	Reason  string // why, when not simply an unimplemented keyword
}

func (e *UnsupportedError) Error() string {
	loc := e.Pointer
	if loc == "" {
		loc = "the root"
	}
	msg := fmt.Sprintf("keyword %q at %s is beyond the runtime's built-in validator", e.Keyword, loc)
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg
}

// Check reports whether the built-in validator decides every instance of the JSON
// Schema 2020-12 document schema exactly: nil when it does, an *UnsupportedError
// naming the first keyword beyond it, or another error for a schema that is not
// valid JSON Schema (runtime.CheckSchema).
func Check(schema []byte) error {
	_, err := Compile(schema, false)
	return err
}

// Compile compiles a schema document. Without regexps, patterns are only
// parsed (enough to check them).
func Compile(raw []byte, regexps bool) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not JSON: data after the schema")
	}
	c := &schemaCompiler{root: doc, refs: map[string]*Schema{}, regexps: regexps}
	root, err := c.node(doc, "")
	if err != nil {
		return nil, err
	}
	if err := c.checkCycles(root); err != nil {
		return nil, err
	}
	return root, nil
}

// A schemaCompiler compiles one document, sharing the nodes of $ref targets so that
// recursive schemas compile.
type schemaCompiler struct {
	root    any
	refs    map[string]*Schema
	regexps bool
}

// errInvalidSchema wraps problems that make a document invalid JSON Schema.
var errInvalidSchema = errors.New("invalid JSON Schema")

func invalid(ptr, format string, args ...any) error {
	if ptr == "" {
		ptr = "the root"
	}
	return fmt.Errorf("%w: %s: %s", errInvalidSchema, ptr, fmt.Sprintf(format, args...))
}

// node compiles the schema v found at ptr.
func (c *schemaCompiler) node(v any, ptr string) (*Schema, error) {
	switch v := v.(type) {
	case bool:
		if v {
			return nil, nil
		}
		return &Schema{never: true}, nil
	case map[string]any:
		n := newNode()
		if err := c.fill(n, v, ptr); err != nil {
			return nil, err
		}
		if n.empty() {
			return nil, nil
		}
		return n, nil
	}
	return nil, invalid(ptr, "a schema must be an object or a boolean")
}

func newNode() *Schema {
	return &Schema{maxProps: -1, maxItems: -1, maxLength: -1}
}

// empty reports whether n asserts nothing.
func (n *Schema) empty() bool {
	return !n.never && n.types == 0 && !n.walkObject && !n.walkArray && !n.strings &&
		n.bounds == nil && n.multipleOf == nil && n.enum == nil && !n.applies
}

// keywordClass sorts the keywords of a schema object.
func keywordClass(k string) (supported, annotation bool) {
	switch k {
	case "type", "properties", "required", "additionalProperties", "propertyNames", "minProperties",
		"maxProperties", "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "minLength",
		"maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"multipleOf", "enum", "const", "anyOf", "oneOf", "$ref", "$defs":
		return true, false
	case "not", "allOf", "if", "then", "else", "dependentSchemas", "dependentRequired",
		"contains", "minContains", "maxContains", "patternProperties", "unevaluatedItems",
		"unevaluatedProperties", "$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor",
		"$recursiveAnchor", "$id", "id", "$vocabulary", "dependencies", "additionalItems", "definitions":
		return false, false
	}
	return false, true // annotations and unknown keywords
}

// fill compiles the keywords of an object schema into n, in a fixed order so that the
// first problem reported does not depend on map iteration.
func (c *schemaCompiler) fill(n *Schema, m map[string]any, ptr string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		supported, annotation := keywordClass(k)
		at := ptr + "/" + escapeToken(k)
		switch {
		case k == "$schema":
			if s, _ := m[k].(string); strings.TrimSuffix(s, "#") != "https://json-schema.org/draft/2020-12/schema" {
				return &UnsupportedError{Keyword: k, Pointer: at, Reason: "only JSON Schema 2020-12 is built in"}
			}
		case annotation:
		case !supported:
			return &UnsupportedError{Keyword: k, Pointer: at}
		default:
			if err := c.keyword(n, k, m[k], at); err != nil {
				return err
			}
		}
	}
	if err := c.required(n, m["required"], ptr+"/required"); err != nil {
		return err
	}
	if len(n.props) <= maxFew {
		for _, name := range sortedKeysOf(n.props) {
			n.few = append(n.few, namedProp{name, n.props[name]})
		}
	}
	n.walkObject = n.props != nil || n.closed || n.extra != nil || n.propNames != nil || n.minProps > 0 || n.maxProps >= 0
	n.walkArray = n.prefix != nil || n.items != nil || n.minItems > 0 || n.maxItems >= 0 || n.unique
	n.strings = n.minLength > 0 || n.maxLength >= 0 || n.pattern != nil || n.format != ""
	n.applies = n.ref != nil || n.anyOf != nil || n.oneOf != nil
	return nil
}

// keyword compiles one supported keyword.
func (c *schemaCompiler) keyword(n *Schema, k string, v any, ptr string) error {
	var err error
	switch k {
	case "type":
		n.types, err = typeSet(v, ptr)
		if err == nil && n.types == 0 {
			n.never = true // "type": [] is invalid JSON Schema, but would allow nothing
		}
	case "properties":
		err = c.properties(n, v, ptr)
	case "additionalProperties":
		if v == false {
			n.closed = true
		} else {
			n.extra, err = c.node(v, ptr)
		}
	case "propertyNames":
		n.propNames, err = c.node(v, ptr)
	case "items":
		n.items, err = c.node(v, ptr)
	case "prefixItems":
		n.prefix, err = c.list(v, ptr)
	case "anyOf":
		n.anyOf, err = c.list(v, ptr)
	case "oneOf":
		n.oneOf, err = c.list(v, ptr)
	case "minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength":
		err = n.count(k, v, ptr)
	case "uniqueItems":
		b, ok := v.(bool)
		if !ok {
			return invalid(ptr, "uniqueItems must be a boolean")
		}
		n.unique = b
	case "pattern":
		err = c.compilePattern(n, v, ptr)
	case "format":
		s, ok := v.(string)
		if !ok {
			return invalid(ptr, "format must be a string")
		}
		if format.Asserted(s) {
			n.format = s
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		lit, ok := numberLiteral(v)
		if !ok {
			return invalid(ptr, "%s must be a number", k)
		}
		b := numBound{keyword: k, limit: lit, lim: jsonwire.ParseNumber(lit),
			upper: strings.HasSuffix(strings.ToLower(k), "maximum"), strict: strings.HasPrefix(k, "exclusive")}
		b.limInt, b.isInt = jsonwire.SmallInt(lit)
		n.bounds = append(n.bounds, b)
	case "multipleOf":
		lit, ok := numberLiteral(v)
		if !ok || jsonwire.ParseNumber(lit).Sign() <= 0 {
			return invalid(ptr, "multipleOf must be a number above 0")
		}
		n.multipleOf = lit
	case "enum":
		vals, ok := v.([]any)
		if !ok {
			return invalid(ptr, "enum must be an array")
		}
		err = n.compileEnum(vals, ptr)
	case "const":
		n.isConst = true
		err = n.compileEnum([]any{v}, ptr)
	case "$ref":
		err = c.resolve(n, v, ptr)
	case "$defs":
		defs, ok := v.(map[string]any)
		if !ok {
			return invalid(ptr, "$defs must be an object")
		}
		if c.regexps {
			break // checked already; what is used is compiled through $ref
		}
		for _, name := range sortedKeys(defs) {
			if _, err := c.node(defs[name], ptr+"/"+escapeToken(name)); err != nil {
				return err
			}
		}
	}
	return err
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// typeSet compiles "type".
func typeSet(v any, ptr string) (uint8, error) {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	var set uint8
	for _, name := range names {
		s, _ := name.(string)
		found := false
		for _, t := range typeNames {
			if t.name == s {
				set, found = set|t.bits, true
			}
		}
		if !found {
			return 0, invalid(ptr, "unknown type %v", name)
		}
	}
	return set, nil
}

// list compiles a non-empty array of schemas.
func (c *schemaCompiler) list(v any, ptr string) ([]*Schema, error) {
	subs, ok := v.([]any)
	if !ok || len(subs) == 0 {
		return nil, invalid(ptr, "must be a non-empty array of schemas")
	}
	out := make([]*Schema, len(subs))
	for i, sub := range subs {
		var err error
		if out[i], err = c.node(sub, ptr+"/"+strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// properties compiles "properties".
func (c *schemaCompiler) properties(n *Schema, v any, ptr string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return invalid(ptr, "properties must be an object")
	}
	for _, name := range sortedKeys(m) {
		sub, err := c.node(m[name], ptr+"/"+escapeToken(name))
		if err != nil {
			return err
		}
		p := n.prop(name)
		p.schema, p.declared = sub, true
	}
	return nil
}

// prop returns the entry of a property, creating it.
func (n *Schema) prop(name string) *schemaProp {
	if n.props == nil {
		n.props = map[string]*schemaProp{}
	}
	p := n.props[name]
	if p == nil {
		p = &schemaProp{index: n.nProps}
		n.nProps++
		n.props[name] = p
	}
	return p
}

// required compiles "required" into property bits.
func (c *schemaCompiler) required(n *Schema, v any, ptr string) error {
	if v == nil {
		return nil
	}
	names, ok := v.([]any)
	if !ok {
		return invalid(ptr, "required must be an array of strings")
	}
	for _, name := range names {
		s, ok := name.(string)
		if !ok {
			return invalid(ptr, "required must be an array of strings")
		}
		if _, seen := n.props[s]; seen && slicesContains(n.required, s) {
			continue
		}
		p := n.prop(s)
		n.required = append(n.required, s)
		for len(n.reqMask) <= p.index/64 {
			n.reqMask = append(n.reqMask, 0)
		}
		n.reqMask[p.index/64] |= 1 << (p.index % 64)
	}
	return nil
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// count compiles a non-negative integer keyword.
func (n *Schema) count(k string, v any, ptr string) error {
	lit, ok := numberLiteral(v)
	if !ok {
		return invalid(ptr, "%s must be a non-negative integer", k)
	}
	x := jsonwire.ParseNumber(lit)
	if !x.IsInteger() || x.Sign() < 0 {
		return invalid(ptr, "%s must be a non-negative integer", k)
	}
	c := math.MaxInt32 // beyond any length a message can have
	if x.Point() <= 9 {
		c = 0
		for i := 0; int64(i) < x.Point(); i++ {
			c = c*10 + int(x.Sig(i)-'0')
		}
		c = min(c, math.MaxInt32)
	}
	switch k {
	case "minProperties":
		n.minProps = c
	case "maxProperties":
		n.maxProps = c
	case "minItems":
		n.minItems = c
	case "maxItems":
		n.maxItems = c
	case "minLength":
		n.minLength = c
	case "maxLength":
		n.maxLength = c
	}
	return nil
}

// numberLiteral returns the literal of a JSON number decoded with UseNumber.
func numberLiteral(v any) ([]byte, bool) {
	num, ok := v.(json.Number)
	return []byte(num), ok && num != "" && json.Valid([]byte(num))
}

// compilePattern compiles "pattern" with Go's regexp (RE2 syntax: mcpgen refuses
// patterns it cannot compile).
func (c *schemaCompiler) compilePattern(n *Schema, v any, ptr string) error {
	p, ok := v.(string)
	if !ok {
		return invalid(ptr, "pattern must be a string")
	}
	if !c.regexps {
		if _, err := syntax.Parse(p, syntax.Perl); err != nil {
			return &UnsupportedError{Keyword: "pattern", Pointer: ptr,
				Reason: "Go's regexp cannot compile it: " + err.Error()}
		}
		n.pattern = placeholderPattern
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return &UnsupportedError{Keyword: "pattern", Pointer: ptr,
			Reason: "Go's regexp cannot compile it: " + err.Error()}
	}
	n.pattern = re
	return nil
}

// placeholderPattern stands for patterns only checked, not compiled (CheckSchema).
var placeholderPattern = &regexp.Regexp{}

// compileEnum compiles "enum" (or "const") into compact JSON values.
func (n *Schema) compileEnum(vals []any, ptr string) error {
	n.enum = make([][]byte, 0, len(vals))
	for _, x := range vals {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err != nil {
			return invalid(ptr, "%v", err)
		}
		n.enum = append(n.enum, bytes.TrimSpace(buf.Bytes()))
	}
	return nil
}

// resolve compiles a local "$ref": "#" or a JSON Pointer fragment ("#/$defs/Name").
func (c *schemaCompiler) resolve(n *Schema, v any, ptr string) error {
	ref, ok := v.(string)
	if !ok {
		return invalid(ptr, "$ref must be a string")
	}
	if target, ok := c.refs[ref]; ok {
		n.ref = target
		return nil
	}
	if !strings.HasPrefix(ref, "#") || len(ref) > 1 && ref[1] != '/' || strings.Contains(ref, "%") {
		return &UnsupportedError{Keyword: "$ref", Pointer: ptr,
			Reason: fmt.Sprintf("%q: only JSON Pointers within the document are built in", ref)}
	}
	target, err := c.lookup(ref[1:])
	if err != nil {
		return &UnsupportedError{Keyword: "$ref", Pointer: ptr, Reason: fmt.Sprintf("%q: %v", ref, err)}
	}
	t := newNode()
	c.refs[ref] = t
	n.ref = t
	switch target := target.(type) {
	case bool:
		t.never = !target
		return nil
	case map[string]any:
		return c.fill(t, target, ref[1:])
	}
	return invalid(ptr, "$ref %q does not point to a schema", ref)
}

// lookup follows a JSON Pointer from the document root.
func (c *schemaCompiler) lookup(pointer string) (any, error) {
	cur := c.root
	if pointer == "" {
		return cur, nil
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil, errors.New("no such location")
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || tok != strconv.Itoa(i) {
				return nil, errors.New("no such location")
			}
			cur = v[i]
		default:
			return nil, errors.New("no such location")
		}
	}
	return cur, nil
}

// checkCycles refuses schemas whose $ref, anyOf or oneOf lead back to a schema
// applying to the same value without descending into it: no validation would end.
func (c *schemaCompiler) checkCycles(root *Schema) error {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*Schema]int{}
	var visit func(n *Schema) bool
	visit = func(n *Schema) bool {
		if n == nil || state[n] == done {
			return true
		}
		if state[n] == visiting {
			return false
		}
		state[n] = visiting
		for _, next := range append(append([]*Schema{n.ref}, n.anyOf...), n.oneOf...) {
			if !visit(next) {
				return false
			}
		}
		state[n] = done
		return true
	}
	var all []*Schema
	seen := map[*Schema]bool{}
	var collect func(n *Schema)
	collect = func(n *Schema) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		for _, sub := range n.children() {
			collect(sub)
		}
	}
	collect(root)
	for _, n := range all {
		if !visit(n) {
			return &UnsupportedError{Keyword: "$ref", Reason: "a cycle of $ref that never descends into the value"}
		}
	}
	return nil
}

// children returns every subschema of n.
func (n *Schema) children() []*Schema {
	subs := []*Schema{n.extra, n.propNames, n.items, n.ref}
	subs = append(subs, n.prefix...)
	subs = append(subs, n.anyOf...)
	subs = append(subs, n.oneOf...)
	for _, p := range n.props {
		subs = append(subs, p.schema)
	}
	return subs
}

// ClosedTree reports whether every object the schema admits, at any depth, is closed
// (additionalProperties: false), so that a valid value has no unknown members and
// decodes without DisallowUnknownFields. It is conservative: false when unsure.
func (n *Schema) ClosedTree(seen map[*Schema]bool) bool {
	if n == nil {
		return false // true admits any object
	}
	if n.never || seen[n] {
		return true
	}
	seen[n] = true
	if n.allows(tObject) && !n.closed && !n.applies {
		return false
	}
	if n.allows(tArray) && n.items == nil && !n.applies && (n.prefix == nil || n.maxItems < 0 || n.maxItems > len(n.prefix)) {
		return false // items of any value
	}
	for _, p := range n.props {
		if p.declared && !p.schema.ClosedTree(seen) {
			return false
		}
	}
	subs := append([]*Schema{}, n.prefix...)
	subs = append(append(subs, n.anyOf...), n.oneOf...)
	for _, sub := range []*Schema{n.extra, n.items, n.ref} {
		if sub != nil {
			subs = append(subs, sub)
		}
	}
	for _, sub := range subs {
		if !sub.ClosedTree(seen) {
			return false
		}
	}
	return true
}

// allows reports whether "type" admits t.
func (n *Schema) allows(t uint8) bool {
	return n.types == 0 || n.types&t != 0
}

// escapeToken escapes a JSON Pointer reference token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
