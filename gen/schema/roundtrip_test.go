package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/types"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// rtRoots are the round-trip types with their Go types.
var rtRoots = map[string]reflect.Type{
	"RTAll":   reflect.TypeFor[RTAll](),
	"rtNode":  reflect.TypeFor[rtNode](),
	"RTExtra": reflect.TypeFor[RTExtra](),
}

// rtOutputOnly are round-trip types checked in the output direction only.
var rtOutputOnly = map[string]reflect.Type{
	"RTMore": reflect.TypeFor[RTMore](),
}

// rtEnums lists the values of the enum types for the value generator.
var rtEnums = map[reflect.Type][]any{
	reflect.TypeFor[rtLevel]():    {rtDebug, rtInfo},
	reflect.TypeFor[rtPriority](): {rtLow, rtHigh},
	reflect.TypeFor[rtRatio]():    {rtHuge, rtTiny, rtBig, rtMicro, rtHalf},
	reflect.TypeFor[rtRatio32]():  {rtHuge32, rtTiny32, rtOdd32},
	reflect.TypeFor[rtDelta]():    {rtDown, rtUp},
}

// loadRT derives the schemas of the round-trip types from this package's
// own source file.
func loadRT(t testing.TB) *testPkg {
	t.Helper()
	src, err := os.ReadFile("rttypes_test.go")
	if err != nil {
		t.Fatal(err)
	}
	return load(t, strings.Replace(string(src), "package schema", "package p", 1))
}

// rtIterations values or documents are tried per type; the first
// rtMutantDocs input documents also yield invalid variants.
const (
	rtIterations = 300
	rtMutantDocs = 40
)

func TestRoundTripOutput(t *testing.T) {
	p := loadRT(t)
	for name, rt := range joinMaps(rtRoots, rtOutputOnly) {
		t.Run(name, func(t *testing.T) {
			s, diags := p.b.Output(p.lookup(t, name), 0)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if err := checkOutput(s, rt, 1); err != nil {
				t.Error(err)
			}
		})
	}
}

func joinMaps(a, b map[string]reflect.Type) map[string]reflect.Type {
	m := maps.Clone(a)
	maps.Copy(m, b)
	return m
}

// TestPropertyOrder checks that the properties appear in the order
// json.Marshal writes them, for values with every embedded pointer set.
func TestPropertyOrder(t *testing.T) {
	p := loadRT(t)
	g := &valueGen{r: rand.New(rand.NewPCG(5, 5))}
	for name, rt := range joinMaps(rtRoots, rtOutputOnly) {
		s, _ := p.b.Output(p.lookup(t, name), 0)
		var want []string
		for k := range s.Properties.KeysFromOldest() {
			want = append(want, k)
		}
		for range 50 {
			v := g.value(rt, "", 0)
			fillEmbedded(v, g)
			data, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			got := topKeys(t, data)
			if diff := cmp.Diff(want, got); diff != "" && !isSubsequence(got, want) {
				t.Fatalf("%s: json.Marshal keys are not in schema order (-schema +marshal):\n%s", name, diff)
			}
		}
	}
}

// fillEmbedded allocates nil embedded pointers so their fields are written.
func fillEmbedded(v reflect.Value, g *valueGen) {
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Pointer && v.Field(i).IsNil() && v.Field(i).CanSet() {
			v.Field(i).Set(g.value(sf.Type.Elem(), "", 1).Addr())
		}
	}
}

// topKeys returns the keys of a JSON object in document order.
func topKeys(t *testing.T, data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// isSubsequence reports whether sub appears in full in the same order
// (omitempty fields may be missing).
func isSubsequence(sub, full []string) bool {
	i := 0
	for _, k := range full {
		if i < len(sub) && sub[i] == k {
			i++
		}
	}
	return i == len(sub)
}

func TestRoundTripInput(t *testing.T) {
	p := loadRT(t)
	for name, rt := range rtRoots {
		t.Run(name, func(t *testing.T) {
			s, _, diags := p.b.Input(p.lookup(t, name), 0)
			if len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if err := checkInput(s, rt, 2); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestRoundTripEcho checks, for types whose JSON encoding/json reads back as
// it writes it, that what json.Marshal writes passes the input schema and
// decodes strictly: a client may send back what the server sent.
func TestRoundTripEcho(t *testing.T) {
	p := loadRT(t)
	s, _, diags := p.b.Input(p.lookup(t, "RTEcho"), 0)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	v, err := compile(s)
	if err != nil {
		t.Fatal(err)
	}
	rt := reflect.TypeFor[RTEcho]()
	g := &valueGen{r: rand.New(rand.NewPCG(3, 7))}
	for i := range rtIterations {
		data, err := json.Marshal(g.value(rt, "", 0).Interface())
		if err != nil {
			t.Fatalf("value %d: marshal: %v", i, err)
		}
		if err := validate(v, data); err != nil {
			t.Fatalf("value %d: json.Marshal wrote %s, which the input schema rejects: %v", i, data, err)
		}
		if err := strictDecode(data, rt); err != nil {
			t.Fatalf("value %d: %s does not decode: %v", i, data, err)
		}
	}
}

// TestRoundTripCatchesWrongSchemas shows the property checks failing on
// schemas that lie about the Go type.
func TestRoundTripCatchesWrongSchemas(t *testing.T) {
	p := loadRT(t)
	rt := rtRoots["RTAll"]
	mutations := []struct {
		name  string
		input bool
		want  string // in the failure message
		edit  func(s *jsonschema.Schema)
	}{
		{"output: nil slice not nullable", false, "output schema rejects", func(s *jsonschema.Schema) {
			setProp(s, "List", nonNull(prop(s, "List")))
		}},
		{"output: int8 maximum too small", false, "output schema rejects", func(s *jsonschema.Schema) {
			c := *prop(s, "I8")
			c.Maximum = "100"
			setProp(s, "I8", &c)
		}},
		{"output: omitempty field required", false, "output schema rejects", func(s *jsonschema.Schema) {
			s.Required = append(s.Required, "opts")
		}},
		{"output: []byte as integer array", false, "output schema rejects", func(s *jsonschema.Schema) {
			setProp(s, "Bytes", &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "integer"}})
		}},
		{"input: int8 maximum too large", true, "decoding fails", func(s *jsonschema.Schema) {
			c := *prop(s, "I8")
			c.Maximum = "1000"
			setProp(s, "I8", &c)
		}},
		{"input: object left open", true, "(unknown property)", func(s *jsonschema.Schema) {
			s.AdditionalProperties = nil
		}},
		{"input: uint64 minimum below zero", true, "decoding fails", func(s *jsonschema.Schema) {
			c := *prop(s, "U64")
			c.Minimum = "-5"
			setProp(s, "U64", &c)
		}},
	}
	for _, m := range mutations {
		t.Run(m.name, func(t *testing.T) {
			var err error
			if m.input {
				s, _, _ := p.b.Input(p.lookup(t, "RTAll"), 0)
				s = cloneSchema(t, s)
				m.edit(s)
				err = checkInput(s, rt, 3)
			} else {
				s, _ := p.b.Output(p.lookup(t, "RTAll"), 0)
				s = cloneSchema(t, s)
				m.edit(s)
				err = checkOutput(s, rt, 3)
			}
			if err == nil {
				t.Fatal("the property check accepted a wrong schema")
			}
			if !strings.Contains(err.Error(), m.want) {
				t.Fatalf("got failure %v, want one mentioning %q", err, m.want)
			}
		})
	}
}

func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	v, _ := s.Properties.Get(name)
	return v
}

func setProp(s *jsonschema.Schema, name string, v *jsonschema.Schema) { s.Properties.Set(name, v) }

// cloneSchema deep-copies s (the builder's schemas are shared and must not
// be edited), keeping property order.
func cloneSchema(t *testing.T, s *jsonschema.Schema) *jsonschema.Schema {
	js, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	c := &jsonschema.Schema{}
	if err := json.Unmarshal(js, c); err != nil {
		t.Fatal(err)
	}
	return c
}

// compile turns s into a validator that asserts formats and content.
func compile(s *jsonschema.Schema) (*sjs.Schema, error) {
	js, err := Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	c := sjs.NewCompiler()
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource("s.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("s.json")
}

// validate validates data against v. santhosh-tekuri/jsonschema v6.0.3
// panics on numbers whose exponent big.Rat cannot parse (1e1000010) when
// the schema has numeric bounds; the panic counts as a rejection here.
func validate(v *sjs.Schema, data []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("validator panicked: %v", p)
		}
	}()
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return v.Validate(doc)
}

// checkOutput marshals random values of rt and reports the first one the
// schema rejects.
func checkOutput(s *jsonschema.Schema, rt reflect.Type, seed uint64) error {
	v, err := compile(s)
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	g := &valueGen{r: rand.New(rand.NewPCG(seed, 7))}
	for i := range rtIterations {
		val := g.value(rt, "", 0)
		data, err := json.Marshal(val.Interface())
		if err != nil {
			return fmt.Errorf("value %d: marshal: %w", i, err)
		}
		if err := validate(v, data); err != nil {
			return fmt.Errorf("value %d: json.Marshal wrote %s, which the output schema rejects: %v", i, data, err)
		}
	}
	return nil
}

// checkInput generates random documents the schema accepts and checks that
// each decodes strictly into rt, then checks that documents with an unknown
// property, a wrong type or an out-of-range number are rejected by the
// schema.
func checkInput(s *jsonschema.Schema, rt reflect.Type, seed uint64) error {
	v, err := compile(s)
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	g := &docGen{r: rand.New(rand.NewPCG(seed, 11)), defs: s.Definitions}
	for i := range rtIterations {
		doc := g.doc(s, 0)
		data, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("doc %d: marshal: %w", i, err)
		}
		if err := validate(v, data); err != nil {
			return fmt.Errorf("doc %d: generator bug: schema rejects %s: %v", i, data, err)
		}
		if err := strictDecode(data, rt); err != nil {
			return fmt.Errorf("doc %d: the input schema accepts %s, but decoding fails: %v", i, data, err)
		}
		if i >= rtMutantDocs {
			continue
		}
		for _, bad := range g.mutants(s, doc) {
			bd, _ := json.Marshal(bad.doc)
			if validate(v, bd) == nil {
				return fmt.Errorf("doc %d: the input schema accepts %s (%s)", i, bd, bad.what)
			}
		}
	}
	return nil
}

func strictDecode(data []byte, rt reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(reflect.New(rt).Interface())
}

// A valueGen makes random Go values that cover nil, empty, extreme and
// unicode cases.
type valueGen struct{ r *rand.Rand }

var rtStrings = []string{"", "a", "héllo wörld", "日本語", "emoji 🎉", "<&>", "quote\"back\\slash", "\u2028\u2029", "tab\tnl\n", "\x00ctl", "\xff\xfeinvalid"}

func (g *valueGen) pick(n int) int { return g.r.IntN(n) }

func (g *valueGen) value(t reflect.Type, tag string, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	if vals, ok := rtEnums[t]; ok {
		v.Set(reflect.ValueOf(vals[g.pick(len(vals))]))
		return v
	}
	switch t {
	case reflect.TypeFor[time.Time]():
		sec := g.r.Int64N(253402300799) - 62135596800 // years 0001 to 9999
		loc := time.FixedZone("z", (g.pick(48)-24)*1800)
		v.Set(reflect.ValueOf(time.Unix(sec, g.r.Int64N(1e9)).In(loc)))
		return v
	case reflect.TypeFor[json.Number]():
		v.SetString([]string{"0", "-1", "1.5e300", "123456789012345678901234567890", "-0.25"}[g.pick(5)])
		return v
	case reflect.TypeFor[json.RawMessage]():
		if g.pick(4) > 0 {
			v.SetBytes([]byte(`{"k":[1,"x",null,true]}`))
		}
		return v
	}
	lo, hi := tagBounds(tag)
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(g.pick(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		min, max := -int64(1)<<(t.Bits()-1), int64(1)<<(t.Bits()-1)-1
		random := int64(g.r.Uint64()) >> (64 - t.Bits())
		if lo != nil {
			min, max = *lo, *hi
			random = min + g.r.Int64N(max-min+1)
		}
		v.SetInt([]int64{min, max, random, random}[g.pick(4)])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		max := uint64(math.MaxUint64) >> (64 - t.Bits())
		v.SetUint([]uint64{0, max, g.r.Uint64() & max}[g.pick(3)])
	case reflect.Float32:
		v.SetFloat([]float64{0, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, float64(g.r.Float32()) * 1e30}[g.pick(5)])
	case reflect.Float64:
		v.SetFloat([]float64{0, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, g.r.NormFloat64() * 1e10, 1e21}[g.pick(6)])
	case reflect.String:
		s := rtStrings[g.pick(len(rtStrings))]
		if lo != nil {
			s = strings.Repeat("é", int(*lo+g.r.Int64N(*hi-*lo+1)))
		}
		v.SetString(s)
	case reflect.Pointer:
		if depth < 4 && g.pick(3) > 0 {
			v.Set(g.value(t.Elem(), tag, depth+1).Addr())
		}
	case reflect.Slice:
		g.slice(v, t, depth)
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(g.value(t.Elem(), "", depth+1))
		}
	case reflect.Map:
		g.mapValue(v, t, depth)
	case reflect.Struct:
		for i := range t.NumField() {
			f := v.Field(i)
			sf := t.Field(i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				f = v.Field(i)
			}
			if f.CanSet() {
				f.Set(g.value(sf.Type, sf.Tag.Get("jsonschema"), depth+1))
			} else if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				for j := range sf.Type.NumField() {
					if ff := f.Field(j); ff.CanSet() {
						ff.Set(g.value(sf.Type.Field(j).Type, sf.Type.Field(j).Tag.Get("jsonschema"), depth+1))
					}
				}
			}
		}
	case reflect.Interface:
		vals := []any{nil, 1.5, "s", []any{"x", 2.0}, map[string]any{"k": nil}}
		if x := vals[g.pick(len(vals))]; x != nil {
			v.Set(reflect.ValueOf(x))
		}
	}
	return v
}

func (g *valueGen) slice(v reflect.Value, t reflect.Type, depth int) {
	switch n := g.pick(5); {
	case n == 0 || depth > 4:
		return // nil
	case n == 1:
		v.Set(reflect.MakeSlice(t, 0, 0))
	default:
		l := g.pick(4)
		v.Set(reflect.MakeSlice(t, l, l))
		for i := range l {
			v.Index(i).Set(g.value(t.Elem(), "", depth+1))
		}
	}
}

func (g *valueGen) mapValue(v reflect.Value, t reflect.Type, depth int) {
	if g.pick(5) == 0 || depth > 4 {
		return
	}
	v.Set(reflect.MakeMap(t))
	for range g.pick(4) {
		v.SetMapIndex(g.value(t.Key(), "", depth+1), g.value(t.Elem(), "", depth+1))
	}
}

// tagBounds reads minimum/maximum or minLength/maxLength from a jsonschema
// tag, for the few constrained fields of the test types.
func tagBounds(tag string) (lo, hi *int64) {
	for _, e := range splitTag(tag) {
		k, val, _ := strings.Cut(e, "=")
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "minimum", "minLength":
			lo = &n
		case "maximum", "maxLength":
			hi = &n
		}
	}
	if lo == nil || hi == nil {
		return nil, nil
	}
	return lo, hi
}

// A docGen makes random JSON documents from a schema.
type docGen struct {
	r    *rand.Rand
	defs jsonschema.Definitions
}

func (g *docGen) pick(n int) int { return g.r.IntN(n) }

func (g *docGen) doc(s *jsonschema.Schema, depth int) any {
	if s.Ref != "" {
		return g.doc(g.defs[strings.TrimPrefix(s.Ref, defsPrefix)], depth)
	}
	if len(s.AnyOf) > 0 {
		if depth > 3 && s.AnyOf[len(s.AnyOf)-1].Type == "null" {
			return nil
		}
		return g.doc(s.AnyOf[g.pick(len(s.AnyOf))], depth)
	}
	if len(s.Enum) > 0 {
		return s.Enum[g.pick(len(s.Enum))]
	}
	switch s.Type {
	case "object":
		return g.object(s, depth)
	case "array":
		n := g.pick(3)
		if depth > 3 {
			n = 0
		}
		if s.MinItems != nil {
			n = max(n, int(*s.MinItems))
		}
		if s.MaxItems != nil {
			n = min(n, int(*s.MaxItems))
		}
		out := []any{}
		for range n {
			out = append(out, g.doc(s.Items, depth+1))
		}
		return out
	case "integer":
		return g.integer(s)
	case "number":
		lo, hi := -1e300, 1e300
		if s.Minimum != "" {
			lo, _ = strconv.ParseFloat(string(s.Minimum), 64)
			hi, _ = strconv.ParseFloat(string(s.Maximum), 64)
		}
		return []float64{lo, hi, 0, lo/2 + g.r.Float64()*(hi/2-lo/2)}[g.pick(4)]
	case "boolean":
		return g.pick(2) == 0
	case "string":
		return g.str(s)
	case "":
		return []any{nil, "x", 1.0, map[string]any{"a": []any{}}}[g.pick(4)]
	}
	return nil
}

func (g *docGen) object(s *jsonschema.Schema, depth int) any {
	out := map[string]any{}
	if s.Properties != nil {
		for name, ps := range s.Properties.FromOldest() {
			if slicesContains(s.Required, name) || (depth < 3 && g.pick(2) == 0) {
				out[name] = g.doc(ps, depth+1)
			}
		}
	}
	if ap := s.AdditionalProperties; ap != nil && !isFalse(ap) && depth < 4 {
		for range g.pick(3) {
			key := rtStrings[g.pick(len(rtStrings)-1)]
			if s.PropertyNames != nil {
				key = g.str(s.PropertyNames).(string)
			}
			out[key] = g.doc(ap, depth+1)
		}
	}
	return out
}

func isFalse(s *jsonschema.Schema) bool {
	b, ok := boolSchema(s)
	return ok && !b
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (g *docGen) integer(s *jsonschema.Schema) any {
	lo, hi := ratOf(s.Minimum), ratOf(s.Maximum)
	if r := ratOf(s.ExclusiveMinimum); r != nil {
		lo = new(big.Rat).Add(r, big.NewRat(1, 1))
	}
	if r := ratOf(s.ExclusiveMaximum); r != nil {
		hi = new(big.Rat).Sub(r, big.NewRat(1, 1))
	}
	if lo == nil || hi == nil {
		return json.Number(strconv.Itoa(g.pick(100)))
	}
	span := new(big.Int).Sub(hi.Num(), lo.Num())
	off := new(big.Int).Mul(span, new(big.Int).SetUint64(g.r.Uint64()))
	off.Rsh(off, 64)
	mid := new(big.Int).Add(lo.Num(), off)
	return json.Number([]string{lo.Num().String(), hi.Num().String(), mid.String()}[g.pick(3)])
}

func (g *docGen) str(s *jsonschema.Schema) any {
	switch s.Pattern {
	case base64Pattern:
		b := make([]byte, g.pick(7))
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return base64.StdEncoding.EncodeToString(b)
	case intKeyPattern(types.Int8):
		return strconv.Itoa([]int{-128, 127, 0, g.pick(256) - 128}[g.pick(4)])
	case intKeyPattern(types.Int64):
		return strconv.FormatInt([]int64{math.MinInt64, math.MaxInt64, int64(g.r.Uint64())}[g.pick(3)], 10)
	case intKeyPattern(types.Uint16):
		return strconv.Itoa(g.pick(65536))
	case numberPattern:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'g', -1, 64)
	case jsonStringPattern:
		b, _ := json.Marshal(rtStrings[g.pick(len(rtStrings)-1)])
		return string(b)
	case "":
	default:
		panic("docGen: no generator for pattern " + s.Pattern)
	}
	if s.Format == "date-time" {
		return time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).UTC().Format(time.RFC3339Nano)
	}
	str := rtStrings[g.pick(len(rtStrings)-1)]
	if s.MinLength != nil {
		str = strings.Repeat("ü", int(*s.MinLength)+g.pick(int(*s.MaxLength-*s.MinLength)+1))
	}
	return str
}

// A mutant is a document the schema must reject.
type mutant struct {
	what string
	doc  any
}

var intRE = regexp.MustCompile(`^-?[0-9]+$`)

// mutants derives invalid documents from a valid object document: an
// unknown property, and per property a value of the wrong type and values
// just outside integer bounds.
func (g *docGen) mutants(s *jsonschema.Schema, doc any) []mutant {
	obj, ok := doc.(map[string]any)
	if !ok || s.Properties == nil {
		return nil
	}
	with := func(k string, v any) map[string]any {
		c := make(map[string]any, len(obj)+1)
		for k, v := range obj {
			c[k] = v
		}
		c[k] = v
		return c
	}
	out := []mutant{{"unknown property", with("zzUnknown", 1)}}
	for name, ps := range s.Properties.FromOldest() {
		inner := nonNull(ps)
		if inner.Ref != "" {
			inner = g.defs[strings.TrimPrefix(inner.Ref, defsPrefix)]
		}
		switch inner.Type {
		case "integer", "number":
			out = append(out, mutant{name + " as a string", with(name, "1")})
		case "string", "boolean", "object", "array":
			out = append(out, mutant{name + " as a number", with(name, json.Number("1"))})
		}
		if inner.Type == "integer" && intRE.MatchString(string(inner.Maximum)) {
			out = append(out, mutant{name + " above maximum", with(name, json.Number(addOne(string(inner.Maximum), 1)))})
			out = append(out, mutant{name + " below minimum", with(name, json.Number(addOne(string(inner.Minimum), -1)))})
		}
	}
	return out
}

func addOne(n string, d int64) string {
	b, _ := new(big.Int).SetString(n, 10)
	return b.Add(b, big.NewInt(d)).String()
}
