// Package roundtrip checks generated schemas against the Go types they
// describe. The golden test copies it into a temporary workspace next to the
// generated packages, whose round-trip tests call Out and In.
//
// Out: random values of a handler's Out type marshal to JSON that the
// outputSchema (and the 2025-11-25 schema, wrapped) accepts.
// In: JSON instances generated from the inputSchema that the schema accepts
// decode into the handler's In type with unknown fields rejected, and an
// unknown property is rejected by both (when In is a struct; a json.RawMessage
// or map[string]any In has a schema written by hand, from input=FILE.json).
package roundtrip

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// samples is how many values each check tries.
const samples = 60

// maxDepth bounds recursion in generated values and instances.
const maxDepth = 4

// enums holds the declared constants of enum types, by type.
var enums = map[reflect.Type][]reflect.Value{}

// Enum registers the declared constants of an enum type: random values of
// that type are drawn from them.
func Enum[T any](vals ...T) {
	for _, v := range vals {
		enums[reflect.TypeFor[T]()] = append(enums[reflect.TypeFor[T]()], reflect.ValueOf(v))
	}
}

// A TB is the part of testing.TB the checks use; Fatalf must not return.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// compile compiles a schema document, failing t when it is not valid 2020-12.
func compile(t TB, name string, doc json.RawMessage) (*jsonschema.Schema, any) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s: schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "mem:///" + strings.ReplaceAll(name, " ", "_") + ".json"
	if err := c.AddResource(url, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", name, err)
	}
	return s, v
}

// instance parses JSON the way the validator expects it.
func instance(t TB, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("unmarshal %s: %v", data, err)
	}
	return v
}

// Out checks that random values of T marshal to JSON its output schemas
// accept. legacy may be nil; wrap is the legacy wrapping property or "".
func Out[T any](t TB, tool string, schema, legacy json.RawMessage, wrap string) {
	t.Helper()
	sch, _ := compile(t, tool+" outputSchema", schema)
	lsch := sch
	if legacy != nil {
		lsch, _ = compile(t, tool+" legacy outputSchema", legacy)
	}
	g := &valueGen{r: rand.New(rand.NewPCG(1, uint64(len(tool))))}
	for range samples {
		v := reflect.New(reflect.TypeFor[T]()).Elem()
		g.fill(v, 0, true)
		data, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatalf("%s: marshal %#v: %v", tool, v.Interface(), err)
		}
		inst := instance(t, data)
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("%s: outputSchema rejects %s: %v", tool, data, err)
		}
		if wrap != "" {
			inst = map[string]any{wrap: inst}
		}
		if err := lsch.Validate(inst); err != nil {
			t.Fatalf("%s: legacy outputSchema rejects %s (wrapped in %q): %v", tool, data, wrap, err)
		}
	}
}

// In checks that instances the input schema accepts decode into T, and that
// an unknown property is rejected by the schema and by the decoder.
func In[T any](t TB, tool string, schema json.RawMessage) {
	t.Helper()
	sch, doc := compile(t, tool+" inputSchema", schema)
	g := &instGen{r: rand.New(rand.NewPCG(2, uint64(len(tool)))), root: doc}
	accepted := 0
	for range samples {
		data, err := json.Marshal(g.instance(doc, 0))
		if err != nil {
			t.Fatalf("%s: marshal instance: %v", tool, err)
		}
		if sch.Validate(instance(t, data)) != nil {
			continue
		}
		accepted++
		if err := decodeStrict(data, new(T)); err != nil {
			t.Fatalf("%s: inputSchema accepts %s but it does not decode into %T: %v", tool, data, *new(T), err)
		}
		if !structType[T]() {
			continue // json.RawMessage or map[string]any from input=FILE.json: the schema is the user's
		}
		unknown := append([]byte(`{"mcpgenUnknown":1,`), bytes.TrimPrefix(data, []byte("{"))...)
		if bytes.Equal(data, []byte("{}")) {
			unknown = []byte(`{"mcpgenUnknown":1}`)
		}
		if sch.Validate(instance(t, unknown)) == nil {
			t.Fatalf("%s: inputSchema accepts the unknown property in %s", tool, unknown)
		}
		if decodeStrict(unknown, new(T)) == nil {
			t.Fatalf("%s: %s decodes into %T despite the unknown property", tool, unknown, *new(T))
		}
	}
	if accepted == 0 {
		t.Fatalf("%s: none of %d instances generated from the inputSchema was accepted by it", tool, samples)
	}
}

// structType reports whether T is a struct or a pointer to one: an In that
// mcpgen derived the schema of, which rejects unknown properties.
func structType[T any]() bool {
	t := reflect.TypeFor[T]()
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// decodeStrict decodes data into v rejecting unknown fields, as the runtime does.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// A valueGen makes random Go values.
type valueGen struct{ r *rand.Rand }

var (
	timeType    = reflect.TypeFor[time.Time]()
	marshalerTy = reflect.TypeFor[json.Marshaler]()
)

// fill sets v (settable, or a struct with settable fields) to a random value.
// root values are never nil pointers: adapters reject nil results.
func (g *valueGen) fill(v reflect.Value, depth int, root bool) {
	t := v.Type()
	if vals := enums[t]; len(vals) > 0 {
		v.Set(vals[g.r.IntN(len(vals))])
		return
	}
	switch {
	case t == timeType:
		v.Set(reflect.ValueOf(time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).UTC()))
		return
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Struct && t.Implements(marshalerTy):
		return // custom encoding: keep the zero value
	}
	g.fillKind(v, depth, root)
}

// fillKind fills v by its kind.
func (g *valueGen) fillKind(v reflect.Value, depth int, root bool) {
	t := v.Type()
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(g.r.IntN(2) == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		choices := []int64{0, 1, -1, 7, -(1 << (bits - 1)), 1<<(bits-1) - 1}
		v.SetInt(choices[g.r.IntN(len(choices))])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		choices := []uint64{0, 1, 42, 1<<t.Bits() - 1}
		v.SetUint(choices[g.r.IntN(len(choices))])
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(float32(g.r.NormFloat64() * 1000)))
	case reflect.String:
		v.SetString(g.str())
	case reflect.Slice:
		g.fillSlice(v, depth, root)
	case reflect.Array:
		for i := range v.Len() {
			g.fill(v.Index(i), depth+1, false)
		}
	case reflect.Map:
		g.fillMap(v, depth, root)
	case reflect.Pointer:
		if !root && (depth >= maxDepth || g.r.IntN(3) == 0) {
			return
		}
		p := reflect.New(t.Elem())
		g.fill(p.Elem(), depth+1, false)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := t.Field(i); f.IsExported() || f.Anonymous {
				g.fillField(v.Field(i), depth)
			}
		}
	}
}

// fillField fills a struct field that is settable or an embedded struct.
func (g *valueGen) fillField(f reflect.Value, depth int) {
	if f.CanSet() {
		g.fill(f, depth+1, false)
		return
	}
	if f.Kind() == reflect.Struct { // embedded unexported struct: its exported fields are settable
		g.fillKind(f, depth+1, false)
	}
}

// fillSlice fills a slice (nil a quarter of the time).
func (g *valueGen) fillSlice(v reflect.Value, depth int, root bool) {
	if depth >= maxDepth || g.r.IntN(4) == 0 {
		return
	}
	n := g.r.IntN(4)
	s := reflect.MakeSlice(v.Type(), n, n)
	for i := range n {
		g.fill(s.Index(i), depth+1, false)
	}
	v.Set(s)
}

// fillMap fills a map (nil a quarter of the time).
func (g *valueGen) fillMap(v reflect.Value, depth int, root bool) {
	if depth >= maxDepth || g.r.IntN(4) == 0 {
		return
	}
	m := reflect.MakeMap(v.Type())
	for range g.r.IntN(4) {
		k := reflect.New(v.Type().Key()).Elem()
		g.fill(k, depth+1, false)
		e := reflect.New(v.Type().Elem()).Elem()
		g.fill(e, depth+1, false)
		m.SetMapIndex(k, e)
	}
	v.Set(m)
}

// words are the strings random values draw from.
var words = []string{"", "a", "notes", "héllo wörld", "日本語", `"quoted"`, "<tag>&amp;", "line\nbreak", "MCP"}

// str returns a random string.
func (g *valueGen) str() string { return words[g.r.IntN(len(words))] }

// An instGen makes random JSON instances of a schema.
type instGen struct {
	r    *rand.Rand
	root any
}

// instance returns a random instance of schema s (it may not validate:
// callers keep only the accepted ones).
func (g *instGen) instance(s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok {
		return nil // true/false schemas: null is as good as anything
	}
	if ref, ok := m["$ref"].(string); ok {
		return g.instance(g.resolve(ref), depth+1)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.r.IntN(len(e))]
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 && g.r.IntN(2) == 0 {
		return ex[g.r.IntN(len(ex))]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			return g.instance(alts[g.pick(alts, depth)], depth)
		}
	}
	return g.typed(m, g.typeOf(m, depth), depth)
}

// pick chooses an alternative, preferring null ones when deep.
func (g *instGen) pick(alts []any, depth int) int {
	if depth >= maxDepth {
		for i, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] == "null" {
				return i
			}
		}
	}
	return g.r.IntN(len(alts))
}

// typeOf chooses one of the schema's types.
func (g *instGen) typeOf(m map[string]any, depth int) string {
	switch ty := m["type"].(type) {
	case string:
		return ty
	case []any:
		for _, x := range ty {
			if x == "null" && depth >= maxDepth {
				return "null"
			}
		}
		s, _ := ty[g.r.IntN(len(ty))].(string)
		return s
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	return "string"
}

// resolve follows a local "#/$defs/Name" reference.
func (g *instGen) resolve(ref string) any {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	root, _ := g.root.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	if !ok || defs == nil {
		panic("unsupported $ref " + ref)
	}
	return defs[name]
}

// typed returns an instance of one JSON type.
func (g *instGen) typed(m map[string]any, ty string, depth int) any {
	switch ty {
	case "object":
		return g.object(m, depth)
	case "array":
		return g.array(m, depth)
	case "string":
		return g.str(m)
	case "integer":
		return g.integer(m)
	case "number":
		return g.number(m)
	case "boolean":
		return g.r.IntN(2) == 1
	}
	return nil
}

// object returns an object with the required properties and some optional ones.
func (g *instGen) object(m map[string]any, depth int) any {
	out := map[string]any{}
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	for name, ps := range props {
		if required[name] || (depth < maxDepth && g.r.IntN(2) == 0) {
			out[name] = g.instance(ps, depth+1)
		}
	}
	if ap, ok := m["additionalProperties"].(map[string]any); ok && len(props) == 0 && depth < maxDepth {
		for range g.r.IntN(3) {
			key, _ := g.instance(m["propertyNames"], depth+1).(string)
			if m["propertyNames"] == nil {
				key, _ = g.str(map[string]any{}).(string)
			}
			out[key] = g.instance(ap, depth+1)
		}
	}
	return out
}

// array returns an array within minItems and maxItems.
func (g *instGen) array(m map[string]any, depth int) any {
	lo, hi := count(m["minItems"], 0), count(m["maxItems"], -1)
	n := lo
	if depth < maxDepth {
		n += g.r.IntN(3)
	}
	if hi >= 0 && n > hi {
		n = hi
	}
	out := make([]any, n)
	for i := range out {
		out[i] = g.instance(m["items"], depth+1)
	}
	return out
}

// count reads a non-negative integer keyword, or def.
func count(v any, def int) int {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	}
	return def
}

// candidates are strings tried against patterns and formats.
var candidates = []string{"a", "abc", "0", "1", "-1", "42", "1.5", "true", "false", `"a"`, `""`, "notes",
	"ABC", "a-b", "AGVsbG8=", "x@example.com", "https://example.com/x", "2024-01-02",
	"2024-01-02T03:04:05Z", "03:04:05Z", "123e4567-e89b-12d3-a456-426614174000", "example.com", "127.0.0.1", "::1"}

// formats are the instances used for string formats.
var formats = map[string]string{
	"email": "x@example.com", "uri": "https://example.com/x", "date": "2024-01-02", "time": "03:04:05Z",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "hostname": "example.com", "ipv4": "127.0.0.1", "ipv6": "::1",
}

// str returns a string honouring format, contentEncoding, length and pattern
// where it can.
func (g *instGen) str(m map[string]any) any {
	format, _ := m["format"].(string)
	switch {
	case format == "date-time":
		return time.Unix(g.r.Int64N(4e9), 0).UTC().Format(time.RFC3339)
	case formats[format] != "":
		return formats[format]
	case m["contentEncoding"] == "base64":
		b := make([]byte, g.r.IntN(6))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	lo := count(m["minLength"], 0)
	hi := count(m["maxLength"], lo+5)
	if p, ok := m["pattern"].(string); ok {
		if re, err := regexp.Compile(p); err == nil {
			var ok []string
			for _, c := range candidates {
				if n := len([]rune(c)); re.MatchString(c) && n >= lo && n <= hi {
					ok = append(ok, c)
				}
			}
			if len(ok) > 0 {
				return ok[g.r.IntN(len(ok))]
			}
		}
	}
	n := lo + g.r.IntN(hi-lo+1)
	return strings.Repeat("é", n/2) + strings.Repeat("x", n-n/2)
}

// bound reads a numeric keyword as a big.Float, or nil.
func bound(v any) *big.Float {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	f, _, err := big.ParseFloat(string(n), 10, 200, big.ToNearestEven)
	if err != nil {
		return nil
	}
	return f
}

// inRange reports whether x satisfies the numeric keywords of m.
func inRange(m map[string]any, x *big.Float) bool {
	if b := bound(m["minimum"]); b != nil && x.Cmp(b) < 0 {
		return false
	}
	if b := bound(m["maximum"]); b != nil && x.Cmp(b) > 0 {
		return false
	}
	if b := bound(m["exclusiveMinimum"]); b != nil && x.Cmp(b) <= 0 {
		return false
	}
	if b := bound(m["exclusiveMaximum"]); b != nil && x.Cmp(b) >= 0 {
		return false
	}
	return true
}

// numberFrom picks one of the in-range values among cands and the bounds.
func (g *instGen) numberFrom(m map[string]any, cands []string, integer bool) any {
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if n, ok := m[k].(json.Number); ok {
			cands = append(cands, string(n))
			if b := bound(n); b != nil && integer && b.IsInt() {
				i, _ := b.Int(nil)
				cands = append(cands, new(big.Int).Add(i, big.NewInt(1)).String(), new(big.Int).Sub(i, big.NewInt(1)).String())
			}
		}
	}
	var ok []string
	for _, c := range cands {
		if f := bound(json.Number(c)); f != nil && inRange(m, f) && (!integer || f.IsInt()) {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return json.Number("0")
	}
	return json.Number(ok[g.r.IntN(len(ok))])
}

// integer returns an integer within the schema's bounds.
func (g *instGen) integer(m map[string]any) any {
	return g.numberFrom(m, []string{"0", "1", "-1", "7", "1000", "-1000", strconv.Itoa(g.r.IntN(100))}, true)
}

// number returns a number within the schema's bounds.
func (g *instGen) number(m map[string]any) any {
	return g.numberFrom(m, []string{"0", "1.5", "-2.25", "1000", fmt.Sprint(g.r.Float64())}, false)
}
