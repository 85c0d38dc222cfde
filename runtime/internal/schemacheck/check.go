package schemacheck

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/format"
	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// This file validates raw JSON (valid JSON, as json.Valid accepts it) against a
// compiled schema (compile.go) in place, without decoding it. One walk serves two
// modes: with a nil *explainer it only answers valid or not, allocating nothing on a
// valid value of the common shapes; with an explainer it records every failure with
// the JSON Pointer of the value, for the message the model reads.
//
// Beyond the schema, the walk refuses two things in every value: an object that
// repeats a member name (encoding/json would decode each occurrence in turn, while a
// validator sees one of them: they could disagree) and a number beyond float64 (no Go
// handler decodes it). A valid answer implies the walk visited every value, so both
// are always found.

// A vpath is the location of a value being checked, as a chain to the root; only
// explanations build it (valid answers need no locations).
type vpath struct {
	parent *vpath
	key    []byte // a member's key literal, quotes included; nil for an array item
	index  int
}

// maxFailures bounds the failures an explanation lists.
const maxFailures = 20

// An explainer collects failures.
type explainer struct {
	fails []fullhook.Failure
	more  int
}

func (x *explainer) add(p *vpath, kw, msg string) {
	if len(x.fails) >= maxFailures {
		x.more++
		return
	}
	x.fails = append(x.fails, fullhook.Failure{Pointer: p.pointer(), Keyword: kw, Message: msg})
}

// Valid reports whether v (valid JSON, surrounding space allowed) is valid.
func (n *Schema) Valid(v []byte) bool {
	v = jsonwire.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	_, ok := n.check(v, 0, nil, nil)
	return ok
}

// Explain returns why v is invalid (nil when it is valid). Repeated member names and
// out-of-range numbers are reported alone: they are refused before validation.
func (n *Schema) Explain(v []byte) []fullhook.Failure {
	v = jsonwire.TrimSpace(v)
	if len(v) == 0 {
		return []fullhook.Failure{{Keyword: "type", Message: "no value"}}
	}
	var pre explainer
	if _, ok := walkAny(v, 0, nil, &pre); !ok {
		return pre.list()
	}
	var x explainer
	n.check(v, 0, nil, &x)
	return x.list()
}

// list returns the failures, with a last line counting those left out.
func (x *explainer) list() []fullhook.Failure {
	if x.more > 0 {
		return append(x.fails, fullhook.Failure{Keyword: "more", Message: fmt.Sprintf("and %d more", x.more)})
	}
	return x.fails
}

// The check functions below validate the value starting at b[i] and return the index
// just past it, walking it once. x is nil in the valid-only mode, where a false answer
// returns early and its index means nothing; with an explainer the index is always
// right, so that the walk goes on to record every failure.

// check validates the value at b[i] against n.
func (n *Schema) check(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	if n == nil {
		return walkAny(b, i, p, x)
	}
	if n.never {
		if x == nil {
			return i, false
		}
		x.add(p, "false", "no value is allowed here")
		return jsonwire.ValueEnd(b, i), false
	}
	end, ok := -1, true
	if n.ref != nil {
		e, refOK := n.ref.check(b, i, p, x)
		if !refOK && x == nil {
			return i, false
		}
		end, ok = e, refOK
	}
	var e int
	var own bool
	switch b[i] {
	case '{':
		e, own = n.checkObjectValue(b, i, p, x)
	case '[':
		e, own = n.checkArrayValue(b, i, p, x)
	case '"':
		e, own = n.checkString(b, i, p, x)
	case 't', 'f':
		e, own = n.checkType(tBoolean, b, i, p, x)
	case 'n':
		e, own = n.checkType(tNull, b, i, p, x)
	default:
		e, own = n.checkNumber(b, i, p, x)
	}
	if !own {
		if x == nil {
			return i, false
		}
		ok = false
	}
	if e >= 0 {
		end = e
	}
	if n.anyOf != nil {
		e, altOK := checkAnyOf(n.anyOf, b, i, p, x)
		if !altOK && x == nil {
			return i, false
		}
		end, ok = max(end, e), ok && altOK
	}
	if n.oneOf != nil {
		e, altOK := checkOneOf(n.oneOf, b, i, p, x)
		if !altOK && x == nil {
			return i, false
		}
		end, ok = max(end, e), ok && altOK
	}
	if end < 0 { // not walked: only possible when an explanation skipped it
		end = jsonwire.ValueEnd(b, i)
	}
	if n.enum != nil && !n.inEnum(b[i:end]) {
		if x == nil {
			return i, false
		}
		n.enumFailure(b[i:end], p, x)
		ok = false
	}
	return end, ok
}

// Empty walks values that no schema constrains.
var Empty = newNode()

// walkAny walks a value no schema constrains: it refuses only repeated member names
// and numbers beyond float64.
func walkAny(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	switch b[i] {
	case '{':
		return Empty.checkObject(b, i, p, x)
	case '[':
		return Empty.checkArray(b, i, p, x)
	case '"', 't', 'f', 'n':
		return jsonwire.ScalarEnd(b, i), true
	}
	return walkNumber(b, i, p, x)
}

// walkNumber refuses a number beyond float64 (out of line: walkAny recurses, and
// deep values must cost little stack).
//
//go:noinline
func walkNumber(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	end := jsonwire.NumberEnd(b, i)
	if end-i < 300 && !bytesContainExponent(b[i:end]) {
		return end, true // fewer than 300 digits: far within float64
	}
	num := jsonwire.ParseNumber(b[i:end])
	return end, checkRange(&num, b[i:end], p, x)
}

// bytesContainExponent reports whether a number literal has an exponent.
func bytesContainExponent(v []byte) bool {
	for _, c := range v {
		if c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// WalkOK reports whether v (trimmed) holds no repeated member name and no number
// beyond float64.
func WalkOK(v []byte) bool {
	_, ok := walkAny(v, 0, nil, nil)
	return ok
}

// checkRange refuses a number beyond float64.
func checkRange(num *jsonwire.Number, v []byte, p *vpath, x *explainer) bool {
	if !num.OutOfRange() {
		return true
	}
	if x != nil {
		x.add(p, "range", "got "+describeGot(v)+": a number is out of range (beyond ±1.8e308, the range of float64)")
	}
	return false
}

// checkType checks "type" for a literal of type t.
func (n *Schema) checkType(t uint8, b []byte, i int, p *vpath, x *explainer) (int, bool) {
	end := jsonwire.ScalarEnd(b, i)
	if n.allows(t) {
		return end, true
	}
	return end, n.typeFailure(b[i:end], p, x)
}

// typeFailure records a value of a type the schema does not allow.
func (n *Schema) typeFailure(v []byte, p *vpath, x *explainer) bool {
	if x != nil {
		x.add(p, "type", "got "+kindName(v)+", want "+typeList(n.types))
	}
	return false
}

// compositeTypeFailure records an object or array of a type not allowed.
func (n *Schema) compositeTypeFailure(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	if x == nil {
		return i, false
	}
	n.typeFailure(b[i:i+1], p, x)
	return jsonwire.ValueEnd(b, i), false
}

// checkObjectValue checks an object; -1 when $ref, anyOf or oneOf walk it instead.
func (n *Schema) checkObjectValue(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	switch {
	case !n.allows(tObject):
		return n.compositeTypeFailure(b, i, p, x)
	case n.walkObject:
		return n.checkObject(b, i, p, x)
	case n.applies:
		return -1, true
	}
	return walkAny(b, i, p, x)
}

// checkArrayValue checks an array; -1 when $ref, anyOf or oneOf walk it instead.
func (n *Schema) checkArrayValue(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	switch {
	case !n.allows(tArray):
		return n.compositeTypeFailure(b, i, p, x)
	case n.walkArray:
		return n.checkArray(b, i, p, x)
	case n.applies:
		return -1, true
	}
	return walkAny(b, i, p, x)
}

// A keyTracker finds repeated member names among those that are not declared
// properties (those have a bit each): on the stack for the first few, then in a map.
type keyTracker struct {
	n    int
	keys [8][2]int32 // offsets of key literals
	many map[string]struct{}
}

// repeated reports whether the key literal b[start:end] was seen before, and records
// it.
func (t *keyTracker) repeated(b []byte, start, end int) bool {
	key := b[start+1 : end-1]
	if t.n < len(t.keys) {
		for _, k := range t.keys[:t.n] {
			if jsonwire.StringsEqual(b[k[0]+1:k[1]-1], key) {
				return true
			}
		}
		t.keys[t.n] = [2]int32{int32(start), int32(end)}
		t.n++
		return false
	}
	if t.many == nil { // a large object: one map for it
		t.many = make(map[string]struct{}, 2*len(t.keys))
		for _, k := range t.keys {
			t.many[string(jsonwire.AppendUnquoted(nil, b[k[0]+1:k[1]-1]))] = struct{}{}
		}
	}
	name := string(jsonwire.AppendUnquoted(nil, key))
	if _, dup := t.many[name]; dup {
		return true
	}
	t.many[name] = struct{}{}
	return false
}

// lookupProp returns the property a key literal names, or nil.
func (n *Schema) lookupProp(key []byte) *schemaProp {
	if n.props == nil {
		return nil
	}
	body := key[1 : len(key)-1]
	if !jsonwire.PlainString(body) {
		return n.lookupEscaped(body)
	}
	if n.few != nil {
		for _, p := range n.few {
			if p.name == string(body) {
				return p.prop
			}
		}
		return nil
	}
	return n.props[string(body)]
}

// lookupEscaped looks up a name written with escapes (out of line, to keep the
// recursive walk's frames small).
//
//go:noinline
func (n *Schema) lookupEscaped(body []byte) *schemaProp {
	var buf [128]byte
	return n.props[string(jsonwire.AppendUnquoted(buf[:0], body))]
}

// checkObject walks every member: properties, additionalProperties, propertyNames,
// required, minProperties, maxProperties, and repeated names.
func (n *Schema) checkObject(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	var bits [1]uint64
	seen := bits[:]
	if n.nProps > 64 {
		seen = make([]uint64, (n.nProps+63)/64) // a struct of more than 64 fields
	}
	var others keyTracker
	ok, count := true, 0
	j := jsonwire.SkipWS(b, i+1)
	for ; b[j] == '"'; count++ {
		keyEnd := jsonwire.StringEnd(b, j)
		key := b[j:keyEnd]
		vs := jsonwire.MemberValue(b, keyEnd)
		var child *vpath // only explanations need locations (and allocate them)
		if x != nil {
			child = &vpath{parent: p, key: key}
		}
		prop := n.lookupProp(key)
		var dup bool
		if prop != nil {
			word, bit := prop.index/64, uint64(1)<<(prop.index%64)
			dup = seen[word]&bit != 0
			seen[word] |= bit
		} else {
			dup = others.repeated(b, j, keyEnd)
		}
		var ve int
		if dup {
			if x == nil {
				return j, false
			}
			x.add(child, "duplicate", "the member name "+quoteName(key)+" is repeated: a JSON object may hold each name once")
			ok, ve = false, jsonwire.ValueEnd(b, vs)
		} else {
			var memberOK bool
			if ve, memberOK = n.checkMember(prop, key, b, vs, child, p, x); !memberOK {
				if x == nil {
					return j, false
				}
				ok = false
			}
		}
		j = jsonwire.NextItem(b, ve)
	}
	for w, mask := range n.reqMask {
		if seen[w]&mask != mask {
			if x == nil {
				return j, false
			}
			for _, name := range n.required {
				if k := n.props[name].index; seen[k/64]&(1<<(k%64)) == 0 {
					x.add(p, "required", "missing property "+quoteString(name))
				}
			}
			ok = false
			break
		}
	}
	if count < n.minProps || n.maxProps >= 0 && count > n.maxProps {
		if x == nil {
			return j, false
		}
		x.add(p, countKeyword(count < n.minProps, "Properties"), countMessage(count, n.minProps, n.maxProps, "properties"))
		ok = false
	}
	return j + 1, ok
}

// checkMember checks the member value at b[vs] (p is the object's location).
func (n *Schema) checkMember(prop *schemaProp, key, b []byte, vs int, child, p *vpath, x *explainer) (int, bool) {
	var sub *Schema
	switch {
	case prop != nil && prop.declared:
		sub = prop.schema
	case n.closed:
		if x == nil {
			return vs, false
		}
		x.add(p, "additionalProperties", "unknown property "+quoteName(key))
		return jsonwire.ValueEnd(b, vs), false
	default:
		sub = n.extra // nil: any value
	}
	ok := true
	if n.propNames != nil {
		if _, nameOK := n.propNames.check(key, 0, child, nil); !nameOK {
			if x == nil {
				return vs, false
			}
			x.add(child, "propertyNames", "the name "+quoteName(key)+" is not allowed"+n.propNames.patternHint())
			ok = false
		}
	}
	end, valOK := sub.check(b, vs, child, x)
	return end, valOK && ok
}

// patternHint describes the pattern names must match, if any.
func (n *Schema) patternHint() string {
	if n.pattern == nil {
		return ""
	}
	return " (want a name matching " + n.pattern.String() + ")"
}

// uniqueDirect is how many items uniqueItems compares pairwise; longer arrays are
// hashed.
const uniqueDirect = 20

// checkArray walks every item: prefixItems, items, minItems, maxItems, uniqueItems.
func (n *Schema) checkArray(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	ok, count := true, 0
	j := jsonwire.SkipWS(b, i+1)
	for ; b[j] != ']'; count++ {
		sub := n.items
		if count < len(n.prefix) {
			sub = n.prefix[count]
		}
		var child *vpath
		if x != nil {
			child = &vpath{parent: p, index: count}
		}
		end, itemOK := sub.check(b, j, child, x)
		if !itemOK {
			if x == nil {
				return j, false
			}
			ok = false
		}
		j = jsonwire.NextItem(b, end)
	}
	if count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
		if x == nil {
			return j, false
		}
		x.add(p, countKeyword(count < n.minItems, "Items"), countMessage(count, n.minItems, n.maxItems, "items"))
		ok = false
	}
	if n.unique {
		if first, second := repeatedItem(b, i, count); first >= 0 {
			if x == nil {
				return j, false
			}
			x.add(p, "uniqueItems", fmt.Sprintf("items %d and %d are equal, want unique items", first, second))
			ok = false
		}
	}
	return j + 1, ok
}

// repeatedItem returns the indexes of two equal items of the array at b[i] (count
// items), or -1, -1: pairwise for short arrays, by hashes for long ones.
func repeatedItem(b []byte, i, count int) (int, int) {
	if count > uniqueDirect {
		return repeatedItemHashed(b, i)
	}
	var items [uniqueDirect][2]int32
	for j, k := jsonwire.SkipWS(b, i+1), 0; b[j] != ']'; k++ {
		end := jsonwire.ValueEnd(b, j)
		items[k] = [2]int32{int32(j), int32(end)}
		j = jsonwire.NextItem(b, end)
	}
	for j := 1; j < count; j++ {
		for i := range j {
			if jsonwire.Equal(b[items[i][0]:items[i][1]], b[items[j][0]:items[j][1]]) {
				return i, j
			}
		}
	}
	return -1, -1
}

// repeatedItemHashed finds two equal items of a long array (at b[i]) by their hashes.
func repeatedItemHashed(b []byte, i int) (int, int) {
	type item struct {
		start, end int
		hash       uint64
	}
	var all []item
	for j := jsonwire.SkipWS(b, i+1); b[j] != ']'; {
		h, end := jsonwire.HashAt(b, j)
		all = append(all, item{j, end, h})
		j = jsonwire.NextItem(b, end)
	}
	byHash := make(map[uint64][]int, len(all))
	for j, it := range all {
		for _, k := range byHash[it.hash] {
			if jsonwire.Equal(b[all[k].start:all[k].end], b[it.start:it.end]) {
				return k, j
			}
		}
		byHash[it.hash] = append(byHash[it.hash], j)
	}
	return -1, -1
}

// countKeyword names a count rule, e.g. "minItems".
func countKeyword(low bool, what string) string {
	if low {
		return "min" + what
	}
	return "max" + what
}

// countMessage describes a count out of its bounds.
func countMessage(count, lo, hi int, what string) string {
	if count < lo {
		return fmt.Sprintf("got %d %s, want at least %d", count, what, lo)
	}
	return fmt.Sprintf("got %d %s, want at most %d", count, what, hi)
}

// checkString checks a string literal: type, lengths, pattern and format.
func (n *Schema) checkString(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	end := jsonwire.StringEnd(b, i)
	v := b[i:end]
	if !n.allows(tString) {
		return end, n.typeFailure(v, p, x)
	}
	if !n.strings {
		return end, true
	}
	body := v[1 : len(v)-1]
	ok := true
	if n.minLength > 0 || n.maxLength >= 0 {
		if c := jsonwire.RuneCount(body); c < n.minLength || n.maxLength >= 0 && c > n.maxLength {
			if x == nil {
				return end, false
			}
			kw, want := "minLength", fmt.Sprintf("at least %d", n.minLength)
			if c >= n.minLength {
				kw, want = "maxLength", fmt.Sprintf("at most %d", n.maxLength)
			}
			x.add(p, kw, fmt.Sprintf("got %d characters, want %s", c, want))
			ok = false
		}
	}
	if n.pattern != nil && !n.matchPattern(body) {
		if x == nil {
			return end, false
		}
		x.add(p, "pattern", describeGot(v)+" does not match "+n.pattern.String())
		ok = false
	}
	if n.format != "" && !checkFormat(n.format, v) {
		if x == nil {
			return end, false
		}
		x.add(p, "format", "got "+describeGot(v)+", want "+formatWant[n.format])
		ok = false
	}
	return end, ok
}

// matchPattern matches the decoded string. Go's regexp reads an invalid UTF-8 byte
// as U+FFFD, as encoding/json decodes it, so only escapes need decoding.
func (n *Schema) matchPattern(body []byte) bool {
	if !jsonwire.ContainsByte(body, '\\') {
		return n.pattern.Match(body)
	}
	buf := unquoteBufs.Get().(*[]byte)
	*buf = jsonwire.AppendUnquoted((*buf)[:0], body)
	ok := n.pattern.Match(*buf)
	unquoteBufs.Put(buf)
	return ok
}

// unquoteBufs hold decoded strings for the regexp (which keeps its input on the heap).
var unquoteBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// formatWant describes each asserted format.
var formatWant = map[string]string{
	"date-time": "an RFC 3339 date-time such as 2006-01-02T15:04:05Z (no escapes)",
	"date":      "a date such as 2006-01-02",
	"email":     "an email address",
	"uri":       "an absolute URI",
}

// checkFormat asserts a format on a string literal.
func checkFormat(name string, lit []byte) bool {
	if name == "date-time" {
		return format.DateTimeLiteral(lit)
	}
	body := lit[1 : len(lit)-1]
	plain := jsonwire.PlainString(body)
	if name == "date" && plain {
		return format.Date(body)
	}
	var s string
	if plain {
		s = string(body)
	} else {
		s = string(jsonwire.AppendUnquoted(nil, body))
	}
	switch name {
	case "date":
		return format.Date(s)
	case "email":
		return format.Email(s)
	case "uri":
		return format.URI(s)
	}
	return true
}

// checkNumber checks a number: range, type, bounds and multipleOf.
func (n *Schema) checkNumber(b []byte, i int, p *vpath, x *explainer) (int, bool) {
	end := jsonwire.NumberEnd(b, i)
	v := b[i:end]
	if iv, small := jsonwire.SmallInt(v); small && x == nil && n.multipleOf == nil {
		return end, n.checkSmallInt(iv, v)
	}
	num := jsonwire.ParseNumber(v)
	if !checkRange(&num, v, p, x) {
		return end, false
	}
	if n.types != 0 {
		t := tNumber
		if num.IsInteger() {
			t = tInteger
		}
		if !n.allows(t) {
			return end, n.typeFailure(v, p, x)
		}
	}
	ok := true
	for k := range n.bounds {
		bd := &n.bounds[k]
		if !bd.admits(&num) {
			if x == nil {
				return end, false
			}
			x.add(p, bd.keyword, "got "+describeGot(v)+", want "+bd.want())
			ok = false
		}
	}
	if n.multipleOf != nil {
		m := jsonwire.ParseNumber(n.multipleOf)
		if !jsonwire.MultipleOf(&num, &m) {
			if x == nil {
				return end, false
			}
			x.add(p, "multipleOf", "got "+describeGot(v)+", want a multiple of "+string(n.multipleOf))
			ok = false
		}
	}
	return end, ok
}

// checkSmallInt is checkNumber for an integer literal of at most 18 digits (valid
// mode).
func (n *Schema) checkSmallInt(iv int64, v []byte) bool {
	if !n.allows(tInteger) {
		return false
	}
	for k := range n.bounds {
		bd := &n.bounds[k]
		if bd.isInt {
			if !bd.holds(jsonwire.CmpInt(iv, bd.limInt)) {
				return false
			}
		} else if num := jsonwire.ParseNumber(v); !bd.admits(&num) {
			return false
		}
	}
	return true
}

// admits reports whether num is within the bound.
func (b *numBound) admits(num *jsonwire.Number) bool {
	return b.holds(jsonwire.CompareNumbers(num, &b.lim))
}

// holds reports whether a comparison of a number with the limit satisfies the bound.
func (b *numBound) holds(c int) bool {
	switch {
	case b.upper && b.strict:
		return c < 0
	case b.upper:
		return c <= 0
	case b.strict:
		return c > 0
	}
	return c >= 0
}

// want describes the bound.
func (b *numBound) want() string {
	switch {
	case b.upper && b.strict:
		return "less than " + string(b.limit)
	case b.upper:
		return "at most " + string(b.limit)
	case b.strict:
		return "more than " + string(b.limit)
	}
	return "at least " + string(b.limit)
}

// inEnum reports whether v equals a value of enum (or const).
func (n *Schema) inEnum(v []byte) bool {
	for _, e := range n.enum {
		if jsonwire.Equal(v, e) {
			return true
		}
	}
	return false
}

// enumFailure records a value outside enum or const.
func (n *Schema) enumFailure(v []byte, p *vpath, x *explainer) {
	if n.isConst {
		x.add(p, "const", "got "+describeGot(v)+", want "+describeValue(n.enum[0]))
		return
	}
	var want strings.Builder
	for i, e := range n.enum {
		if i == 10 {
			fmt.Fprintf(&want, ", ... (%d values)", len(n.enum))
			break
		}
		if i > 0 {
			want.WriteString(", ")
		}
		want.WriteString(describeValue(e))
	}
	x.add(p, "enum", "got "+describeGot(v)+", want one of "+want.String())
}

// checkAnyOf checks anyOf.
func checkAnyOf(alts []*Schema, b []byte, i int, p *vpath, x *explainer) (int, bool) {
	if x != nil {
		return explainAlternatives("anyOf", alts, b, i, p, x)
	}
	t := kindBit(b, i)
	for _, alt := range alts {
		if alt.admits(t) {
			if end, ok := alt.check(b, i, p, nil); ok {
				return end, true
			}
		}
	}
	return i, false
}

// checkOneOf checks oneOf: exactly one alternative.
func checkOneOf(alts []*Schema, b []byte, i int, p *vpath, x *explainer) (int, bool) {
	t := kindBit(b, i)
	first, end := -1, -1
	for k, alt := range alts {
		if !alt.admits(t) {
			continue
		}
		if e, ok := alt.check(b, i, p, nil); ok {
			if first >= 0 {
				if x == nil {
					return i, false
				}
				x.add(p, "oneOf", fmt.Sprintf("got %s, which matches alternatives %d and %d, want exactly one", describeGot(b[i:e]), first, k))
				return e, false
			}
			first, end = k, e
		}
	}
	if first >= 0 {
		return end, true
	}
	if x == nil {
		return i, false
	}
	return explainAlternatives("oneOf", alts, b, i, p, x)
}

// explainAlternatives explains, or finds valid, a value against alternatives: when
// only one admits the value's type, its own failures (nullable fields read as the
// field's schema); otherwise one line.
func explainAlternatives(kw string, alts []*Schema, b []byte, i int, p *vpath, x *explainer) (int, bool) {
	t := kindBit(b, i)
	var cands []*Schema
	var types uint8
	for _, alt := range alts {
		if alt.admits(t) {
			cands = append(cands, alt)
		}
		types |= alt.typesOf()
	}
	switch len(cands) {
	case 0:
		x.add(p, "type", "got "+kindName(b[i:scalarOrFirst(b, i)])+", want "+typeList(types))
		return jsonwire.ValueEnd(b, i), false
	case 1:
		return cands[0].check(b, i, p, x)
	}
	for _, alt := range cands {
		if end, ok := alt.check(b, i, p, nil); ok {
			return end, true
		}
	}
	end := jsonwire.ValueEnd(b, i)
	x.add(p, kw, fmt.Sprintf("got %s, which matches none of the %d alternatives", describeGot(b[i:end]), len(alts)))
	return end, false
}

// scalarOrFirst returns the end of a scalar at b[i], or i+1 for an object or array
// (enough for kindName).
func scalarOrFirst(b []byte, i int) int {
	if b[i] == '{' || b[i] == '[' {
		return i + 1
	}
	return jsonwire.ScalarEnd(b, i)
}

// admits reports whether the schema's "type" (through $ref and anyOf) may admit a
// value of type t; false means the value certainly fails.
func (n *Schema) admits(t uint8) bool {
	switch {
	case n == nil:
		return true
	case n.never || !n.allows(t):
		return false
	case n.ref != nil && !n.ref.admits(t):
		return false
	}
	if n.anyOf != nil {
		for _, alt := range n.anyOf {
			if alt.admits(t) {
				return true
			}
		}
		return false
	}
	return true
}

// typesOf returns the types the schema may admit (0: any).
func (n *Schema) typesOf() uint8 {
	const all = tNull | tBoolean | tInteger | tNumber | tString | tArray | tObject
	var set uint8
	for t := tNull; t != 0 && t <= tObject; t <<= 1 {
		if n.admits(t) {
			set |= t
		}
	}
	if set == all {
		return 0
	}
	return set
}

// kindBit is the type bit of the value at b[i] (numbers: integer or non-integral
// number).
func kindBit(b []byte, i int) uint8 {
	switch b[i] {
	case '{':
		return tObject
	case '[':
		return tArray
	case '"':
		return tString
	case 't', 'f':
		return tBoolean
	case 'n':
		return tNull
	}
	if num := jsonwire.ParseNumber(b[i:jsonwire.NumberEnd(b, i)]); num.IsInteger() {
		return tInteger
	}
	return tNumber
}

// kindName names the type of a value.
func kindName(v []byte) string {
	switch kindBit(v, 0) {
	case tObject:
		return "object"
	case tArray:
		return "array"
	case tString:
		return "string"
	case tBoolean:
		return "boolean"
	case tNull:
		return "null"
	case tInteger:
		return "integer"
	}
	return "number"
}

// typeList names a type set: "integer", "string or null".
func typeList(set uint8) string {
	if set == 0 {
		return "any value"
	}
	var names []string
	for _, t := range typeNames {
		var in bool
		switch t.name {
		case "integer":
			in = set&tInteger != 0 && set&tNumber == 0
		case "number":
			in = set&tNumber != 0
		default:
			in = set&t.bits != 0
		}
		if in {
			names = append(names, t.name)
		}
	}
	return strings.Join(names, " or ")
}

// describeValue renders a value for a message: scalars as JSON (long ones cut),
// arrays and objects by kind.
func describeValue(v []byte) string {
	const limit = 60
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		s := string(jsonwire.AppendUnquoted(nil, v[1:len(v)-1]))
		if utf8.RuneCountInString(s) > limit {
			s = string([]rune(s)[:limit]) + "..."
		}
		return strconv.Quote(s)
	}
	if len(v) > limit {
		return string(v[:limit]) + "..."
	}
	return string(v)
}

// describeGot describes a value of the instance (the caller's) without
// echoing it: its kind, and a string's length. Arguments may be secrets, and a
// message must not hand a value back (docs/runtime.md: invalid_arguments names
// the JSON Pointer and the rule, never the values).
func describeGot(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		n := utf8.RuneCount(jsonwire.AppendUnquoted(nil, v[1:len(v)-1]))
		if n == 1 {
			return "a string of 1 character"
		}
		return "a string of " + strconv.Itoa(n) + " characters"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// quoteName renders a member name from its key literal, in single quotes.
func quoteName(key []byte) string {
	return quoteString(string(jsonwire.AppendUnquoted(nil, key[1:len(key)-1])))
}

// quoteString renders a property name in single quotes.
func quoteString(s string) string {
	q := strconv.Quote(s)
	return "'" + strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`) + "'"
}

// maxPointer bounds the length of a pointer in a message.
const maxPointer = 200

// pointer renders the location as a JSON Pointer ("" for the root).
func (p *vpath) pointer() string {
	var toks []string
	for q := p; q != nil; q = q.parent {
		if q.key != nil {
			toks = append(toks, escapeToken(string(jsonwire.AppendUnquoted(nil, q.key[1:len(q.key)-1]))))
		} else {
			toks = append(toks, strconv.Itoa(q.index))
		}
	}
	var b strings.Builder
	for i := len(toks) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(toks[i])
	}
	s := b.String()
	if len(s) > maxPointer {
		cut := len(s) - maxPointer
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		s = "..." + s[cut:]
	}
	return s
}
