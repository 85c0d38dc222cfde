package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"regexp"
	"testing"
)

// FuzzInputAgreement checks, for the round-trip type RTAll, that every
// document the input schema accepts decodes strictly, apart from the gaps
// the package doc lists (see knownGap).
func FuzzInputAgreement(f *testing.F) {
	p := loadRT(f)
	s, _, diags := p.b.Input(p.lookup(f, "RTAll"), 0)
	if len(diags) > 0 {
		f.Fatalf("diagnostics: %v", diags)
	}
	v, err := compile(s)
	if err != nil {
		f.Fatal(err)
	}
	g := &docGen{r: rand.New(rand.NewPCG(9, 9)), defs: s.Definitions}
	for range 20 {
		data, err := json.Marshal(g.doc(s, 0))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"I8": 1.0}`))
	rt := rtRoots["RTAll"]
	f.Fuzz(func(t *testing.T, data []byte) {
		if validate(v, data) != nil || hasDuplicateKeys(data) {
			return
		}
		if err := strictDecode(data, rt); err != nil && !knownGap(err) {
			t.Fatalf("the input schema accepts %s, but decoding fails: %v", data, err)
		}
	})
}

// hasDuplicateKeys reports whether an object in data repeats a member name.
// Such documents are a known gap: the validator sees the last value of a
// repeated member while encoding/json decodes every one in turn, so an
// earlier, malformed value can fail decoding after validation passed.
func hasDuplicateKeys(data []byte) bool {
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.keys != nil && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string)
			if top.keys[key] {
				return true
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		if top != nil && top.keys != nil {
			top.wantKey = true // this token is a member's value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

func TestHasDuplicateKeys(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a":"a","b":{"a":1}}`:     false,
		`{"a":[{"a":1},{"a":2}]}`:   false,
		`{"a":1,"a":2}`:             true,
		`{"x":{"b":[],"b":null}}`:   true,
		`[{"k":1},{"k":2,"k":3}]`:   true,
		`{"a":{"c":1},"b":{"c":1}}`: false,
	} {
		if got := hasDuplicateKeys([]byte(doc)); got != want {
			t.Errorf("hasDuplicateKeys(%s) = %v, want %v", doc, got, want)
		}
	}
}

var (
	gapNumber = regexp.MustCompile(`^number (-?[0-9]*[.eE].*|-?[0-9]{19,})$`)
	gapQuoted = regexp.MustCompile(`invalid use of ,string struct tag, trying to unmarshal "-?[0-9]{19,}" into`)
)

// knownGap reports decoding errors that JSON Schema cannot prevent: an
// integer written with a fraction or exponent (1.0, 1e2), a float64 beyond
// its range (1e400), and a 64-bit integer beyond its range with no more
// digits than the bounds (as a map key or with ",string").
func knownGap(err error) bool {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return gapNumber.MatchString(te.Value)
	}
	return gapQuoted.MatchString(err.Error())
}
