package schema

import (
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
		if validate(v, data) != nil {
			return
		}
		if err := strictDecode(data, rt); err != nil && !knownGap(err) {
			t.Fatalf("the input schema accepts %s, but decoding fails: %v", data, err)
		}
	})
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
