package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// This file validates raw JSON against the subset of JSON Schema 2020-12 that mcpgen
// generates, without decoding it: no allocations on the common path. It is only a
// fast path in front of santhosh-tekuri/jsonschema, and it is sound: a "valid" answer
// is final, anything else (invalid, or beyond its reach such as escaped strings or
// huge numbers) is decided again by the full validator, which also writes the error
// messages. A schema using a keyword it does not implement gets no fast path at all.

// A verdict is the fast validator's answer.
type verdict int8

const (
	vValid   verdict = iota // the instance is valid: final
	vInvalid                // the instance is invalid: the full validator explains why
	vUnknown                // beyond the fast path: ask the full validator
)

// maxFastDepth bounds the nesting the fast path follows.
const maxFastDepth = 64

// JSON types as bits of a typeSet.
const (
	tNull uint8 = 1 << iota
	tBoolean
	tInteger
	tNumber // non-integral numbers; "number" allows tInteger too
	tString
	tArray
	tObject
)

// A fastSchema is one compiled schema node.
type fastSchema struct {
	never      bool  // the false schema
	types      uint8 // allowed types; 0 allows any
	props      map[string]*fastProp
	nRequired  int
	closed     bool        // additionalProperties: false
	extra      *fastSchema // additionalProperties schema; nil allows any
	items      *fastSchema
	minItems   int
	maxItems   int // -1: none
	minLength  int
	maxLength  int // -1: none
	pattern    *regexp.Regexp
	bounds     []fastBound
	enum       [][]byte // canonical scalar values; nil: no enum
	anyOf      []*fastSchema
	ref        *fastSchema
	needsChars bool // minLength, maxLength, pattern or a string enum/const
}

// A fastProp is a property named by "properties" (declared) or "required" (or both).
type fastProp struct {
	schema   *fastSchema // nil: any value
	declared bool        // listed in "properties": not subject to additionalProperties
	bit      int         // index among required properties, or -1
}

// A fastBound is minimum, maximum, exclusiveMinimum or exclusiveMaximum.
type fastBound struct {
	limit      float64
	upper      bool
	exclusive  bool
	limitInt   int64
	limitIsInt bool
}

// errFastUnsupported marks a schema the fast path does not cover.
var errFastUnsupported = fmt.Errorf("schema beyond the fast validator")

// unsupportedKeywords are the 2020-12 (and older) assertion and applicator keywords
// the fast path does not implement. Unknown keywords are annotations and ignored.
func unsupportedKeyword(k string) bool {
	switch k {
	case "not", "allOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependentRequired",
		"prefixItems", "contains", "minContains", "maxContains", "patternProperties", "propertyNames",
		"unevaluatedItems", "unevaluatedProperties", "minProperties", "maxProperties", "multipleOf",
		"$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$id",
		"id", "$vocabulary", "dependencies", "additionalItems", "definitions":
		return true
	}
	return false
}

// compileFast compiles a schema document for the fast path, or returns
// errFastUnsupported.
func compileFast(raw json.RawMessage) (*fastSchema, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	fc := &fastCompiler{root: doc, refs: map[string]*fastSchema{}}
	if root, ok := doc.(map[string]any); ok {
		if v, ok := root["$schema"]; ok && v != "https://json-schema.org/draft/2020-12/schema" {
			return nil, errFastUnsupported
		}
	}
	return fc.node(doc)
}

// A fastCompiler compiles one document, sharing nodes of $refs (recursion allowed).
type fastCompiler struct {
	root any
	refs map[string]*fastSchema
}

// node compiles one schema value.
func (fc *fastCompiler) node(v any) (*fastSchema, error) {
	switch v := v.(type) {
	case bool:
		return &fastSchema{never: !v, maxItems: -1, maxLength: -1}, nil
	case map[string]any:
		s := &fastSchema{maxItems: -1, maxLength: -1}
		return s, fc.fill(s, v)
	}
	return nil, errFastUnsupported
}

// fill compiles the keywords of an object schema into s.
func (fc *fastCompiler) fill(s *fastSchema, m map[string]any) error {
	for k, v := range m {
		if unsupportedKeyword(k) {
			return errFastUnsupported
		}
		if err := fc.keyword(s, k, v); err != nil {
			return err
		}
	}
	return fc.required(s, m["required"])
}

// keyword compiles one keyword (annotations and unknown keywords are ignored).
func (fc *fastCompiler) keyword(s *fastSchema, k string, v any) error {
	var err error
	switch k {
	case "type":
		s.types, err = typeSet(v)
	case "properties":
		err = fc.properties(s, v)
	case "additionalProperties":
		err = fc.additional(s, v)
	case "items":
		s.items, err = fc.node(v)
	case "minItems", "maxItems", "minLength", "maxLength":
		err = s.count(k, v)
	case "pattern":
		err = s.compilePattern(v)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		err = s.bound(k, v)
	case "enum":
		err = s.compileEnum(v)
	case "const":
		err = s.compileEnum([]any{v})
	case "anyOf":
		err = fc.anyOf(s, v)
	case "$ref":
		err = fc.resolve(s, v)
	case "uniqueItems":
		if v != false {
			err = errFastUnsupported
		}
	}
	return err
}

// typeSet compiles "type".
func typeSet(v any) (uint8, error) {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	var set uint8
	for _, n := range names {
		switch n {
		case "null":
			set |= tNull
		case "boolean":
			set |= tBoolean
		case "integer":
			set |= tInteger
		case "number":
			set |= tInteger | tNumber
		case "string":
			set |= tString
		case "array":
			set |= tArray
		case "object":
			set |= tObject
		default:
			return 0, errFastUnsupported
		}
	}
	return set, nil
}

// properties compiles "properties".
func (fc *fastCompiler) properties(s *fastSchema, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errFastUnsupported
	}
	if s.props == nil {
		s.props = make(map[string]*fastProp, len(m))
	}
	for name, sub := range m {
		n, err := fc.node(sub)
		if err != nil {
			return err
		}
		p := s.prop(name)
		p.schema, p.declared = n, true
	}
	return nil
}

// prop returns the entry of a property, creating it.
func (s *fastSchema) prop(name string) *fastProp {
	if s.props == nil {
		s.props = map[string]*fastProp{}
	}
	p := s.props[name]
	if p == nil {
		p = &fastProp{bit: -1}
		s.props[name] = p
	}
	return p
}

// required compiles "required" into property bits (at most 64).
func (fc *fastCompiler) required(s *fastSchema, v any) error {
	if v == nil {
		return nil
	}
	names, ok := v.([]any)
	if !ok || len(names) > 64 {
		return errFastUnsupported
	}
	for _, n := range names {
		name, ok := n.(string)
		if !ok {
			return errFastUnsupported
		}
		if p := s.prop(name); p.bit < 0 {
			p.bit = s.nRequired
			s.nRequired++
		}
	}
	return nil
}

// additional compiles "additionalProperties".
func (fc *fastCompiler) additional(s *fastSchema, v any) error {
	if v == false {
		s.closed = true
		return nil
	}
	n, err := fc.node(v)
	s.extra = n
	return err
}

// count compiles the item and length bounds.
func (s *fastSchema) count(k string, v any) error {
	num, ok := v.(json.Number)
	n, err := num.Int64()
	if !ok || err != nil || n < 0 || n > math.MaxInt32 {
		return errFastUnsupported
	}
	switch k {
	case "minItems":
		s.minItems = int(n)
	case "maxItems":
		s.maxItems = int(n)
	case "minLength":
		s.minLength, s.needsChars = int(n), true
	case "maxLength":
		s.maxLength, s.needsChars = int(n), true
	}
	return nil
}

// compilePattern compiles "pattern" with Go's regexp, as the full validator does.
func (s *fastSchema) compilePattern(v any) error {
	p, ok := v.(string)
	if !ok {
		return errFastUnsupported
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return errFastUnsupported
	}
	s.pattern, s.needsChars = re, true
	return nil
}

// bound compiles a numeric bound.
func (s *fastSchema) bound(k string, v any) error {
	num, ok := v.(json.Number)
	if !ok {
		return errFastUnsupported
	}
	f, err := num.Float64()
	if err != nil || math.IsInf(f, 0) {
		return errFastUnsupported
	}
	b := fastBound{limit: f, upper: strings.HasPrefix(k, "max") || k == "exclusiveMaximum",
		exclusive: strings.HasPrefix(k, "exclusive")}
	b.limitInt, b.limitIsInt = parseInt([]byte(num))
	s.bounds = append(s.bounds, b)
	return nil
}

// compileEnum compiles "enum" (or "const") of scalar values.
func (s *fastSchema) compileEnum(v any) error {
	vals, ok := v.([]any)
	if !ok {
		return errFastUnsupported
	}
	s.enum = make([][]byte, 0, len(vals))
	for _, x := range vals {
		switch x.(type) {
		case string, bool, nil:
		default: // numbers, arrays and objects compare by value: leave them to the full validator
			return errFastUnsupported
		}
		b, err := json.Marshal(x)
		if err != nil || bytes.IndexByte(b, '\\') >= 0 {
			return errFastUnsupported
		}
		s.enum = append(s.enum, b)
		if _, isString := x.(string); isString {
			s.needsChars = true
		}
	}
	return nil
}

// anyOf compiles "anyOf".
func (fc *fastCompiler) anyOf(s *fastSchema, v any) error {
	subs, ok := v.([]any)
	if !ok || len(subs) == 0 {
		return errFastUnsupported
	}
	for _, sub := range subs {
		n, err := fc.node(sub)
		if err != nil {
			return err
		}
		s.anyOf = append(s.anyOf, n)
	}
	return nil
}

// resolve compiles a local "$ref" ("#" or "#/$defs/Name"), sharing nodes so that
// recursive types compile.
func (fc *fastCompiler) resolve(s *fastSchema, v any) error {
	ref, ok := v.(string)
	if !ok {
		return errFastUnsupported
	}
	if n, ok := fc.refs[ref]; ok {
		s.ref = n
		return nil
	}
	target, err := fc.lookup(ref)
	if err != nil {
		return err
	}
	n := &fastSchema{maxItems: -1, maxLength: -1}
	fc.refs[ref] = n
	s.ref = n
	m, ok := target.(map[string]any)
	if !ok {
		b, _ := target.(bool)
		n.never = !b
		return nil
	}
	return fc.fill(n, m)
}

// lookup finds the target of a local $ref.
func (fc *fastCompiler) lookup(ref string) (any, error) {
	if ref == "#" {
		return fc.root, nil
	}
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	root, isMap := fc.root.(map[string]any)
	if !ok || !isMap || strings.ContainsAny(name, "/~%") {
		return nil, errFastUnsupported
	}
	defs, _ := root["$defs"].(map[string]any)
	target, ok := defs[name]
	if !ok {
		return nil, errFastUnsupported
	}
	return target, nil
}

// closedTree reports whether every object the schema admits, at any depth, is closed
// (additionalProperties: false), so that a valid instance has no unknown members.
func (s *fastSchema) closedTree(seen map[*fastSchema]bool) bool {
	if s == nil || s.never || seen[s] {
		return true
	}
	seen[s] = true
	if s.allows(tObject) && s.anyOf == nil && s.ref == nil && !s.closed {
		return false
	}
	for _, p := range s.props {
		if p.schema == nil && p.declared || !p.schema.closedTree(seen) {
			return false
		}
	}
	subs := append([]*fastSchema{s.items, s.extra, s.ref}, s.anyOf...)
	for _, sub := range subs {
		if !sub.closedTree(seen) {
			return false
		}
	}
	return true
}

// validate checks one raw JSON value (valid JSON, no surrounding space).
func (s *fastSchema) validate(v []byte, depth int) verdict {
	if depth > maxFastDepth {
		return vUnknown
	}
	if s.never {
		return vInvalid
	}
	if s.ref != nil {
		if r := s.ref.validate(v, depth+1); r != vValid {
			return r
		}
	}
	r := s.validateOwn(v, depth)
	if r != vValid || s.anyOf == nil {
		return r
	}
	return s.validateAnyOf(v, depth)
}

// validateOwn checks the keywords other than $ref and anyOf.
func (s *fastSchema) validateOwn(v []byte, depth int) verdict {
	switch v[0] {
	case '{':
		if !s.allows(tObject) {
			return vInvalid
		}
		return s.validateObject(v, depth)
	case '[':
		if !s.allows(tArray) {
			return vInvalid
		}
		return s.validateArray(v, depth)
	case '"':
		if !s.allows(tString) {
			return vInvalid
		}
		return s.validateString(v)
	case 't', 'f', 'n':
		if !s.allows(tBoolean) && v[0] != 'n' || !s.allows(tNull) && v[0] == 'n' {
			return vInvalid
		}
		return s.checkEnum(v)
	}
	return s.validateNumber(v)
}

// allows reports whether "type" admits t.
func (s *fastSchema) allows(t uint8) bool {
	return s.types == 0 || s.types&t != 0
}

// checkEnum checks a literal against enum/const by its canonical bytes.
func (s *fastSchema) checkEnum(v []byte) verdict {
	if s.enum == nil {
		return vValid
	}
	for _, e := range s.enum {
		if bytes.Equal(e, v) {
			return vValid
		}
	}
	return vInvalid
}

// validateAnyOf checks anyOf: valid if a branch is valid.
func (s *fastSchema) validateAnyOf(v []byte, depth int) verdict {
	result := vInvalid
	for _, sub := range s.anyOf {
		switch sub.validate(v, depth+1) {
		case vValid:
			return vValid
		case vUnknown:
			result = vUnknown
		}
	}
	return result
}

// validateObject checks properties, required and additionalProperties.
func (s *fastSchema) validateObject(v []byte, depth int) verdict {
	if s.enum != nil {
		return vInvalid // enums hold scalars only
	}
	result := vValid
	var seen uint64
	eachMember(v, func(key, val []byte) {
		if result == vValid {
			result, seen = s.validateMember(key, val, depth, seen)
		}
	})
	if result == vValid && s.nRequired > 0 && seen != 1<<s.nRequired-1 {
		return vInvalid
	}
	return result
}

// validateMember checks one member of an object and records required ones.
func (s *fastSchema) validateMember(key, val []byte, depth int, seen uint64) (verdict, uint64) {
	p := s.props[string(key)]
	if p != nil && p.bit >= 0 {
		seen |= 1 << p.bit
	}
	switch {
	case p != nil && p.declared:
		if p.schema == nil {
			return vValid, seen
		}
		return p.schema.validate(val, depth+1), seen
	case s.closed:
		return vInvalid, seen
	case s.extra != nil:
		return s.extra.validate(val, depth+1), seen
	}
	return vValid, seen
}

// validateArray checks items, minItems and maxItems.
func (s *fastSchema) validateArray(v []byte, depth int) verdict {
	if s.enum != nil {
		return vInvalid
	}
	result, n := vValid, 0
	for i := skipWS(v, 1); i < len(v) && v[i] != ']'; n++ {
		end := valueEnd(v, i)
		if s.items != nil && result == vValid {
			result = s.items.validate(v[i:end], depth+1)
		}
		i = skipWS(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipWS(v, i+1)
		}
	}
	if result == vValid && (n < s.minItems || s.maxItems >= 0 && n > s.maxItems) {
		return vInvalid
	}
	return result
}

// validateString checks lengths, pattern and enum of a string.
func (s *fastSchema) validateString(v []byte) verdict {
	if !s.needsChars {
		return s.checkEnum(v) // an enum of non-strings still refuses every string
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return vUnknown // escapes: the full validator decodes them
	}
	n := utf8.RuneCount(inner)
	switch {
	case n < s.minLength, s.maxLength >= 0 && n > s.maxLength:
		return vInvalid
	case s.pattern != nil && !s.pattern.Match(inner):
		return vInvalid
	}
	return s.checkEnum(v)
}

// validateNumber checks type, bounds and enum of a number. Only integers within
// int64 are decided here.
func (s *fastSchema) validateNumber(v []byte) verdict {
	if s.enum != nil {
		return vInvalid // enums on the fast path hold no numbers
	}
	i, ok := parseInt(v)
	if !ok {
		return vUnknown // fractions, exponents, huge integers
	}
	if !s.allows(tInteger) {
		return vInvalid
	}
	for _, b := range s.bounds {
		if r := b.check(i); r != vValid {
			return r
		}
	}
	return vValid
}

// check compares an integer instance with the bound.
func (b fastBound) check(i int64) verdict {
	var cmp int
	switch {
	case b.limitIsInt:
		cmp = compare(i, b.limitInt)
	case i > -1<<53 && i < 1<<53:
		cmp = compare(float64(i), b.limit)
	default:
		return vUnknown
	}
	var ok bool
	switch {
	case b.upper && b.exclusive:
		ok = cmp < 0
	case b.upper:
		ok = cmp <= 0
	case b.exclusive:
		ok = cmp > 0
	default:
		ok = cmp >= 0
	}
	if !ok {
		return vInvalid
	}
	return vValid
}

// compare returns -1, 0 or 1.
func compare[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseInt parses a JSON integer literal (digits, optional '-') into an int64,
// reporting false for anything else or on overflow.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' || n > (math.MaxUint64-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return int64(-n), true // -(1<<63) wraps to itself
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}
