package schema

import (
	"encoding/json"
	"fmt"
	"go/types"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/invopop/jsonschema"
)

// knownFormats are the formats of JSON Schema 2020-12 (section 7.3).
var knownFormats = []string{
	"date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
	"ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
	"json-pointer", "relative-json-pointer", "regex",
}

// A tagResult is what a jsonschema tag says about the field itself.
type tagResult struct {
	required   bool // the `required` flag
	hasDefault bool
}

// A tagState applies one field's jsonschema tag.
type tagState struct {
	r     *run
	w     where
	outer jsonschema.Schema  // annotations: title, description, default, examples
	inner *jsonschema.Schema // the non-null schema of the field
	items *jsonschema.Schema // inner's items, when inner is an array
	// type bounds before the tag, to reject wider bounds
	typeMin, typeMax     json.Number
	typeMinIt, typeMaxIt *uint64
	setMin, setExMin     bool
	defaults, examples   []string
	enums                []string
	enumTarget, exTarget *jsonschema.Schema
	defaultTarget        *jsonschema.Schema
	numTarget            *jsonschema.Schema
	bad                  bool
}

// splitTag splits a jsonschema tag on commas not escaped with '\', as
// invopop/jsonschema does.
func splitTag(tag string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		switch {
		case c == '\\' && i+1 < len(tag) && tag[i+1] == ',':
			cur.WriteByte(',')
			i++
		case c == ',':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

// applyTag applies the field's `jsonschema:"..."` tag to its schema s.
func (r *run) applyTag(f *jsonField, s *jsonschema.Schema, w where) (*jsonschema.Schema, tagResult) {
	var tr tagResult
	raw, ok := r.jsonschemaTag(f, w) // foreigntags.go
	if _, has := f.tag.Lookup("jsonschema"); !has && strings.Contains(string(f.tag), `jsonschema:"`) {
		r.errorf(w, `malformed jsonschema tag: it is read as a Go string literal, so a comma inside a value is written \\, (go vet reports this too)`)
	}
	if !ok || raw == "" {
		return s, tr
	}
	isNull := nonNull(s) != s
	inner := *nonNull(s)
	ts := &tagState{r: r, w: w, outer: *s, inner: &inner}
	if isNull {
		ts.outer = jsonschema.Schema{Description: s.Description, Title: s.Title}
	}
	if inner.Type == "array" && inner.Items != nil {
		items := *inner.Items
		ts.items = &items
		inner.Items = &items
	}
	ts.typeMinIt, ts.typeMaxIt = inner.MinItems, inner.MaxItems
	for _, e := range splitTag(raw) {
		if e == "" {
			continue
		}
		key, val, hasVal := strings.Cut(e, "=")
		if f.quoted && key != "title" && key != "description" && key != "required" {
			r.errorf(w, "jsonschema tag: %s does not apply to a field with the ,string option (only title, description and required do)", key)
			continue
		}
		ts.entry(key, val, hasVal, &tr)
	}
	ts.finish(&tr)
	if tr.hasDefault && !ts.bad && !defaultable(f.typ) {
		ts.errorf("default is not supported for type %s: the generated code pre-fills defaults as Go values, which needs a basic type (or a slice or array of one) without unmarshal methods", typeString(f.typ))
	}
	if r.mode == modeInput && tr.hasDefault && !ts.bad {
		r.b.defaultJSON[keyOf(f.last())] = r.defaultLiteral(ts)
	}
	var out *jsonschema.Schema
	if isNull {
		out = nullable(ts.inner)
	} else {
		out = ts.inner
	}
	c := *out
	c.Title, c.Description, c.Default, c.Examples = ts.outer.Title, ts.outer.Description, ts.outer.Default, ts.outer.Examples
	return &c, tr
}

func (ts *tagState) errorf(format string, args ...any) {
	ts.bad = true
	ts.r.errorf(ts.w, "jsonschema tag: "+format, args...)
}

// entry applies one key=value pair.
func (ts *tagState) entry(key, val string, hasVal bool, tr *tagResult) {
	if !hasVal && key != "required" && key != "uniqueItems" {
		ts.errorf("%s needs a value (%s=...)", key, key)
		return
	}
	switch key {
	case "title":
		ts.outer.Title = val
	case "description":
		ts.outer.Description = val
	case "required":
		b, err := strconv.ParseBool(orTrue(val, hasVal))
		if err != nil {
			ts.errorf("required=%s: want true or false", val)
		}
		tr.required = b
	case "default":
		if t := ts.valueTarget(key); t != nil {
			ts.defaultTarget = t
			ts.defaults = append(ts.defaults, val)
		}
	case "example":
		if t := ts.valueTarget(key); t != nil {
			ts.exTarget = t
			ts.examples = append(ts.examples, val)
		}
	case "enum":
		if t := ts.scalarTarget(key); t != nil {
			ts.enumTarget = t
			ts.enums = append(ts.enums, val)
		}
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		ts.numeric(key, val)
	case "minLength", "maxLength", "pattern", "format":
		ts.stringKey(key, val)
	case "minItems", "maxItems", "uniqueItems":
		ts.arrayKey(key, val, hasVal)
	default:
		ts.errorf("unknown key %q (known: title, description, required, default, example, enum, minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, minLength, maxLength, pattern, format, minItems, maxItems, uniqueItems)", key)
	}
}

func orTrue(val string, hasVal bool) string {
	if !hasVal {
		return "true"
	}
	return val
}

// kindOf names the JSON type of a schema for messages.
func kindOf(s *jsonschema.Schema) string {
	if s.Type == "" {
		return "this type"
	}
	return "a value of type " + s.Type
}

// targetOf returns the schema a key of the given JSON types applies to:
// the field itself or, for arrays, its items (as in invopop/jsonschema).
func (ts *tagState) targetOf(key string, types ...string) *jsonschema.Schema {
	if slices.Contains(types, ts.inner.Type) && ts.inner.ContentEncoding == "" {
		return ts.inner
	}
	if ts.items != nil && slices.Contains(types, ts.items.Type) && ts.items.ContentEncoding == "" {
		return ts.items
	}
	ts.errorf("%s does not apply to %s", key, kindOf(ts.inner))
	return nil
}

func (ts *tagState) scalarTarget(key string) *jsonschema.Schema {
	return ts.targetOf(key, "string", "integer", "number", "boolean")
}

// valueTarget is where default and example go: the field, for scalars and
// arrays of scalars (a list of elements), or its items.
func (ts *tagState) valueTarget(key string) *jsonschema.Schema {
	if ts.inner.Type == "array" && ts.items != nil {
		if slices.Contains([]string{"string", "integer", "number", "boolean"}, ts.items.Type) {
			return ts.inner
		}
	}
	return ts.scalarTarget(key)
}

// numeric applies a numeric keyword, refusing bounds wider than the type's.
func (ts *tagState) numeric(key, val string) {
	t := ts.targetOf(key, "integer", "number")
	if t == nil {
		return
	}
	if ts.numTarget == nil {
		ts.numTarget, ts.typeMin, ts.typeMax = t, t.Minimum, t.Maximum
	}
	n, ok := parseNumber(val)
	if !ok || (t.Type == "integer" && !n.IsInt()) {
		ts.errorf("%s=%s: want %s", key, val, numberWord(t))
		return
	}
	num := json.Number(val)
	lo, hi := ratOf(ts.typeMin), ratOf(ts.typeMax)
	one := big.NewRat(1, 1)
	if t.Type != "integer" {
		one = new(big.Rat)
	}
	switch key {
	case "minimum":
		if lo != nil && n.Cmp(lo) < 0 {
			ts.errorf("minimum=%s is below the type's minimum %s", val, ts.typeMin)
		}
		t.Minimum, ts.setMin = num, true
	case "maximum":
		if hi != nil && n.Cmp(hi) > 0 {
			ts.errorf("maximum=%s is above the type's maximum %s", val, ts.typeMax)
		}
		t.Maximum = num
	case "exclusiveMinimum":
		if lo != nil && n.Cmp(new(big.Rat).Sub(lo, one)) < 0 {
			ts.errorf("exclusiveMinimum=%s is below the type's minimum %s", val, ts.typeMin)
		}
		t.ExclusiveMinimum, ts.setExMin = num, true
	case "exclusiveMaximum":
		if hi != nil && n.Cmp(new(big.Rat).Add(hi, one)) > 0 {
			ts.errorf("exclusiveMaximum=%s is above the type's maximum %s", val, ts.typeMax)
		}
		t.ExclusiveMaximum = num
		if t.Maximum == ts.typeMax {
			t.Maximum = ""
		}
	case "multipleOf":
		if n.Sign() <= 0 {
			ts.errorf("multipleOf=%s: want a number greater than 0", val)
		}
		t.MultipleOf = num
	}
}

func numberWord(t *jsonschema.Schema) string {
	if t.Type == "integer" {
		return "an integer"
	}
	return "a number"
}

var numberRE = regexp.MustCompile(numberPattern)

// parseNumber parses a JSON number exactly.
func parseNumber(s string) (*big.Rat, bool) {
	if !numberRE.MatchString(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

func ratOf(n json.Number) *big.Rat {
	if n == "" {
		return nil
	}
	r, _ := parseNumber(string(n))
	return r
}

func (ts *tagState) stringKey(key, val string) {
	t := ts.targetOf(key, "string")
	if t == nil {
		return
	}
	switch key {
	case "minLength", "maxLength":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			ts.errorf("%s=%s: want a non-negative integer", key, val)
			return
		}
		if key == "minLength" {
			t.MinLength = &n
		} else {
			t.MaxLength = &n
		}
	case "pattern":
		if _, err := regexp.Compile(val); err != nil {
			ts.errorf("pattern %q does not compile: %v", val, regexpErr(err))
			return
		}
		if t.Pattern != "" {
			ts.errorf("pattern does not apply: the type already has a pattern")
			return
		}
		t.Pattern = val
	case "format":
		if !slices.Contains(knownFormats, val) {
			ts.errorf("unknown format %q (known: %s)", val, strings.Join(knownFormats, ", "))
			return
		}
		t.Format = val
	}
}

// regexpErr strips the "error parsing regexp: " prefix Go's message starts with.
func regexpErr(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

func (ts *tagState) arrayKey(key, val string, hasVal bool) {
	if ts.inner.Type != "array" {
		ts.errorf("%s does not apply to %s", key, kindOf(ts.inner))
		return
	}
	if key == "uniqueItems" {
		b, err := strconv.ParseBool(orTrue(val, hasVal))
		if err != nil {
			ts.errorf("uniqueItems=%s: want true or false", val)
		}
		ts.inner.UniqueItems = b
		return
	}
	n, err := strconv.ParseUint(val, 10, 64)
	if err != nil {
		ts.errorf("%s=%s: want a non-negative integer", key, val)
		return
	}
	if key == "minItems" {
		if ts.typeMinIt != nil && n < *ts.typeMinIt {
			ts.errorf("minItems=%d is below the array length %d", n, *ts.typeMinIt)
		}
		ts.inner.MinItems = &n
	} else {
		if ts.typeMaxIt != nil && n > *ts.typeMaxIt {
			ts.errorf("maxItems=%d is above the array length %d", n, *ts.typeMaxIt)
		}
		ts.inner.MaxItems = &n
	}
}

// finish checks the bounds against each other, then the values against
// the bounds.
func (ts *tagState) finish(tr *tagResult) {
	if t := ts.numTarget; t != nil && ts.setExMin && !ts.setMin && t.Minimum == ts.typeMin {
		t.Minimum = ""
	}
	for _, t := range []*jsonschema.Schema{ts.inner, ts.items} {
		if t != nil {
			ts.checkBounds(t)
		}
	}
	if ts.enumTarget != nil {
		ts.applyEnum()
	}
	if ts.defaultTarget != nil {
		tr.hasDefault = true
		ts.outer.Default = ts.values("default", ts.defaultTarget, ts.defaults, true)
	}
	if ts.exTarget != nil {
		for _, e := range ts.examples {
			ts.outer.Examples = append(ts.outer.Examples, ts.values("example", ts.exTarget, []string{e}, false))
		}
	}
}

// checkBounds reports bounds that leave no valid value.
func (ts *tagState) checkBounds(t *jsonschema.Schema) {
	lo, loName, loEx := tighter(t.Minimum, t.ExclusiveMinimum, 1)
	hi, hiName, hiEx := tighter(t.Maximum, t.ExclusiveMaximum, -1)
	if lo != nil && hi != nil {
		l, h := lo, hi
		if t.Type == "integer" { // exclusive integer bounds move to the next integer
			l, h = intBound(lo, loEx, 1), intBound(hi, hiEx, -1)
			loEx, hiEx = false, false
		}
		if c := l.Cmp(h); c > 0 || (c == 0 && (loEx || hiEx)) {
			ts.errorf("%s leaves no valid value with %s", loName, hiName)
		}
	}
	if t.MinLength != nil && t.MaxLength != nil && *t.MinLength > *t.MaxLength {
		ts.errorf("minLength=%d is greater than maxLength=%d", *t.MinLength, *t.MaxLength)
	}
	if t.MinItems != nil && t.MaxItems != nil && *t.MinItems > *t.MaxItems {
		ts.errorf("minItems=%d is greater than maxItems=%d", *t.MinItems, *t.MaxItems)
	}
}

// tighter returns the tighter of an inclusive and an exclusive bound (dir
// 1 for lower bounds, -1 for upper ones), named for messages.
func tighter(incl, excl json.Number, dir int) (*big.Rat, string, bool) {
	i, e := ratOf(incl), ratOf(excl)
	iName, eName := "maximum="+string(incl), "exclusiveMaximum="+string(excl)
	if dir > 0 {
		iName, eName = "minimum="+string(incl), "exclusiveMinimum="+string(excl)
	}
	switch {
	case i == nil && e == nil:
		return nil, "", false
	case e == nil:
		return i, iName, false
	case i == nil || e.Cmp(i)*dir >= 0:
		return e, eName, true
	}
	return i, iName, false
}

// intBound moves an integer bound inward to the closest integer it allows.
func intBound(b *big.Rat, exclusive bool, dir int64) *big.Rat {
	n := new(big.Int).Quo(b.Num(), b.Denom()) // truncated toward zero
	r := new(big.Rat).SetInt(n)
	if exclusive && r.Cmp(b) == 0 {
		return r.Add(r, big.NewRat(dir, 1))
	}
	if r.Cmp(b)*int(dir) < 0 {
		r.Add(r, big.NewRat(dir, 1))
	}
	return r
}

// applyEnum replaces the target's enum by the tag's values, which must be
// values of the type (and of its own enum, if any).
func (ts *tagState) applyEnum() {
	t := ts.enumTarget
	var vals []any
	for _, raw := range ts.enums {
		v, err := parseValue(t, raw)
		if err == nil {
			err = checkValue(t, v)
		}
		if err != nil {
			ts.errorf("enum=%s: %v", raw, err)
			continue
		}
		vals = append(vals, v)
	}
	t.Enum = vals
}

// values parses default or example values for target. For an array
// target, each raw value is one element.
func (ts *tagState) values(key string, target *jsonschema.Schema, raws []string, isDefault bool) any {
	if target.Type == "array" {
		elems := []any{}
		for _, raw := range raws {
			elems = append(elems, ts.value(key, target.Items, raw))
		}
		return elems
	}
	if isDefault && len(raws) > 1 {
		ts.errorf("default is given %d times", len(raws))
	}
	return ts.value(key, target, raws[0])
}

func (ts *tagState) value(key string, target *jsonschema.Schema, raw string) any {
	v, err := parseValue(target, raw)
	if err == nil {
		err = checkValue(target, v)
	}
	if err != nil {
		ts.errorf("%s=%s: %v", key, raw, err)
	}
	return v
}

// defaultable reports whether a default of type t can be written as a Go
// literal that means what decoding its JSON would: a basic type, or a slice
// or array of one, with no UnmarshalJSON or UnmarshalText method.
func defaultable(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.Slice:
		return defaultable(u.Elem())
	case *types.Array:
		return defaultable(u.Elem())
	case *types.Pointer:
		return defaultable(u.Elem()) // reported as a pointer field
	}
	if hasMethod(t, true, "UnmarshalJSON") || hasMethod(t, true, "UnmarshalText") {
		return false
	}
	_, ok := t.Underlying().(*types.Basic)
	return ok
}

// defaultLiteral returns the JSON of the field's default.
func (r *run) defaultLiteral(ts *tagState) string {
	b, _ := json.Marshal(ts.outer.Default)
	return string(b)
}

// parseValue reads a tag value as a value of the JSON type of t.
func parseValue(t *jsonschema.Schema, raw string) (any, error) {
	switch t.Type {
	case "string":
		return raw, nil
	case "boolean":
		b, err := strconv.ParseBool(raw)
		if err != nil || (raw != "true" && raw != "false") {
			return nil, fmt.Errorf("want true or false")
		}
		return b, nil
	case "integer", "number":
		n, ok := parseNumber(raw)
		if !ok || (t.Type == "integer" && !n.IsInt()) {
			return nil, fmt.Errorf("want %s", numberWord(t))
		}
		return json.Number(raw), nil
	}
	return nil, fmt.Errorf("values of %s cannot be written in a tag", kindOf(t))
}

// checkValue reports whether v satisfies the constraints of t that a tag
// value can break: enum, bounds, lengths and pattern.
func checkValue(t *jsonschema.Schema, v any) error {
	if len(t.Enum) > 0 && !slices.ContainsFunc(t.Enum, func(e any) bool { return sameValue(e, v) }) {
		return fmt.Errorf("not one of the allowed values %s", enumList(t.Enum))
	}
	switch v := v.(type) {
	case json.Number:
		return checkNumber(t, v)
	case string:
		return checkString(t, v)
	}
	return nil
}

func checkNumber(t *jsonschema.Schema, v json.Number) error {
	n := ratOf(v)
	if m := ratOf(t.Minimum); m != nil && n.Cmp(m) < 0 {
		return fmt.Errorf("below the minimum %s", t.Minimum)
	}
	if m := ratOf(t.Maximum); m != nil && n.Cmp(m) > 0 {
		return fmt.Errorf("above the maximum %s", t.Maximum)
	}
	if m := ratOf(t.ExclusiveMinimum); m != nil && n.Cmp(m) <= 0 {
		return fmt.Errorf("not above the exclusive minimum %s", t.ExclusiveMinimum)
	}
	if m := ratOf(t.ExclusiveMaximum); m != nil && n.Cmp(m) >= 0 {
		return fmt.Errorf("not below the exclusive maximum %s", t.ExclusiveMaximum)
	}
	if m := ratOf(t.MultipleOf); m != nil && m.Sign() > 0 && !new(big.Rat).Quo(n, m).IsInt() {
		return fmt.Errorf("not a multiple of %s", t.MultipleOf)
	}
	return nil
}

func checkString(t *jsonschema.Schema, v string) error {
	n := uint64(utf8.RuneCountInString(v))
	if t.MinLength != nil && n < *t.MinLength {
		return fmt.Errorf("shorter than minLength %d", *t.MinLength)
	}
	if t.MaxLength != nil && n > *t.MaxLength {
		return fmt.Errorf("longer than maxLength %d", *t.MaxLength)
	}
	if t.Pattern != "" {
		if re, err := regexp.Compile(t.Pattern); err == nil && !re.MatchString(v) {
			return fmt.Errorf("does not match the pattern %q", t.Pattern)
		}
	}
	return nil
}

// sameValue compares JSON values, numbers by value.
func sameValue(a, b any) bool {
	na, aok := a.(json.Number)
	nb, bok := b.(json.Number)
	if aok && bok {
		ra, rb := ratOf(na), ratOf(nb)
		return ra != nil && rb != nil && ra.Cmp(rb) == 0
	}
	return a == b
}

func enumList(vals []any) string {
	b, _ := json.Marshal(vals)
	return string(b)
}
