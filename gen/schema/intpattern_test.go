package schema

import (
	"go/types"
	"math/big"
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestIntKeyPattern checks the patterns against strconv on the edges of
// every kind's range and on random numbers around them.
func TestIntKeyPattern(t *testing.T) {
	kinds := []types.BasicKind{types.Int8, types.Int16, types.Int32, types.Int64, types.Int,
		types.Uint8, types.Uint16, types.Uint32, types.Uint64, types.Uint, types.Uintptr}
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range kinds {
		re := regexp.MustCompile(intKeyPattern(k))
		lo, hi := intRange(k)
		bLo, _ := new(big.Int).SetString(lo, 10)
		bHi, _ := new(big.Int).SetString(hi, 10)
		inRange := func(n *big.Int) bool { return n.Cmp(bLo) >= 0 && n.Cmp(bHi) <= 0 }
		if len(hi) >= 19 { // 64-bit kinds: digits bounded, not the range
			inRange = func(n *big.Int) bool {
				return len(new(big.Int).Abs(n).String()) <= len(hi) && (n.Sign() >= 0 || bLo.Sign() < 0)
			}
		}
		var cases []*big.Int
		for _, edge := range []*big.Int{bLo, bHi, big.NewInt(0)} {
			for d := int64(-12); d <= 12; d++ {
				cases = append(cases, new(big.Int).Add(edge, big.NewInt(d)))
			}
		}
		for range 2000 {
			n := new(big.Int).SetUint64(r.Uint64() >> r.IntN(64))
			if r.IntN(2) == 0 {
				n.Neg(n)
			}
			cases = append(cases, n, new(big.Int).Mul(n, big.NewInt(10)))
		}
		for _, n := range cases {
			s := n.String()
			if got, want := re.MatchString(s), inRange(n); got != want {
				t.Fatalf("%s: pattern %s matches %s = %v, want %v", types.Typ[k], re, s, got, want)
			}
		}
		for _, bad := range []string{"", "-", "-0", "00", "01", "+1", "1.0", "1e3", " 1", "a"} {
			if re.MatchString(bad) {
				t.Errorf("%s: pattern matches %q", types.Typ[k], bad)
			}
		}
	}
	if got := intKeyPattern(types.Int8); got != `^(?:0|[1-9][0-9]?|1[01][0-9]|12[0-7]|-(?:[1-9][0-9]?|1[01][0-9]|12[0-8]))$` {
		t.Errorf("int8 pattern = %s", got)
	}
}
