package jsonwire

import (
	"bytes"
	"encoding/json"
	"math/big"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads JSON values in place, as encoding/json would decode them, for the
// schema validator: strings rune by rune (escapes, surrogate pairs and invalid UTF-8
// as encoding/json resolves them), numbers as exact decimals of any size, and the
// JSON Schema equality of two values. Every function expects valid JSON.

// nextRune returns the code point at body[i] of a string literal's body (without its
// quotes) and the index after it, exactly as encoding/json's unquote decodes it: an
// invalid UTF-8 byte or a lone surrogate escape is U+FFFD.
func NextRune(body []byte, i int) (rune, int) {
	c := body[i]
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRune(body[i:])
		return r, i + size
	}
	if c != '\\' {
		return rune(c), i + 1
	}
	switch e := body[i+1]; e {
	case 'b':
		return '\b', i + 2
	case 'f':
		return '\f', i + 2
	case 'n':
		return '\n', i + 2
	case 'r':
		return '\r', i + 2
	case 't':
		return '\t', i + 2
	case 'u':
		r := hex4(body[i:])
		i += 6
		if utf16.IsSurrogate(r) {
			if dec := utf16.DecodeRune(r, hex4(body[i:])); dec != unicode.ReplacementChar {
				return dec, i + 6
			}
			r = unicode.ReplacementChar
		}
		return r, i
	default: // '"', '\\', '/'
		return rune(e), i + 2
	}
}

// hex4 decodes \uXXXX at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// plainString reports whether a string body decodes to itself: no escapes and valid
// UTF-8.
func PlainString(body []byte) bool {
	for i, c := range body {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			return utf8.Valid(body[i:]) && !ContainsByte(body[i:], '\\')
		}
	}
	return true
}

// runeCount returns the number of code points of a decoded string body.
func RuneCount(body []byte) int {
	if PlainString(body) {
		return utf8.RuneCount(body)
	}
	n := 0
	for i := 0; i < len(body); n++ {
		_, i = NextRune(body, i)
	}
	return n
}

// appendUnquoted appends the decoded string body to dst.
func AppendUnquoted(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		var r rune
		r, i = NextRune(body, i)
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// stringsEqual reports whether two string bodies decode to the same string.
func StringsEqual(a, b []byte) bool {
	if string(a) == string(b) {
		return true
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		var ra, rb rune
		ra, i = NextRune(a, i)
		rb, j = NextRune(b, j)
		if ra != rb {
			return false
		}
	}
	return i == len(a) && j == len(b)
}

// A number is a JSON number read in place as an exact decimal: its value is
// 0.d1d2...dn × 10^point, where d1...dn are its significant digits (no leading or
// trailing zeros) and n = 0 for zero.
type Number struct {
	raw    []byte
	neg    bool
	ip, fp []byte // the integer and fraction digits as written
	lz, n  int    // leading zeros of ip+fp; number of significant digits
	point  int64
	zero   bool
}

// Point returns the decimal exponent: x is 0.d1d2...dn × 10^Point().
func (x *Number) Point() int64 { return x.point }

// expLimit bounds exponents (they saturate): far beyond float64, far within int64
// once lengths of real input are added.
const expLimit = 1 << 40

// parseNumber reads a JSON number literal.
func ParseNumber(b []byte) Number {
	x := Number{raw: b}
	i := 0
	if b[0] == '-' {
		x.neg, i = true, 1
	}
	start := i
	for i < len(b) && IsDigit(b[i]) {
		i++
	}
	x.ip = b[start:i]
	if i < len(b) && b[i] == '.' {
		start = i + 1
		for i++; i < len(b) && IsDigit(b[i]); i++ {
		}
		x.fp = b[start:i]
	}
	var exp int64
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if b[i] == '-' || b[i] == '+' {
			eneg, i = b[i] == '-', i+1
		}
		for ; i < len(b); i++ {
			if exp < expLimit {
				exp = exp*10 + int64(b[i]-'0')
			}
		}
		exp = min(exp, expLimit)
		if eneg {
			exp = -exp
		}
	}
	total := len(x.ip) + len(x.fp)
	for x.lz < total && x.digitAt(x.lz) == '0' {
		x.lz++
	}
	if x.lz == total {
		x.zero = true
		return x
	}
	tz := 0
	for x.digitAt(total-1-tz) == '0' {
		tz++
	}
	x.n = total - x.lz - tz
	x.point = int64(len(x.ip)-x.lz) + exp
	return x
}

func IsDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitAt returns digit i of ip+fp.
func (x *Number) digitAt(i int) byte {
	if i < len(x.ip) {
		return x.ip[i]
	}
	return x.fp[i-len(x.ip)]
}

// sig returns significant digit i (0-based), '0' beyond the last.
func (x *Number) Sig(i int) byte {
	if i >= x.n {
		return '0'
	}
	return x.digitAt(x.lz + i)
}

// sign returns -1, 0 or 1.
func (x Number) Sign() int {
	switch {
	case x.zero:
		return 0
	case x.neg:
		return -1
	}
	return 1
}

// isInteger reports whether the value has no fractional part (1.0 and 1e2 do not).
func (x *Number) IsInteger() bool {
	return x.zero || int64(x.n) <= x.point
}

// outOfRange reports whether the number is beyond float64 (strconv.ParseFloat fails
// with ErrRange): no Go handler could decode it.
func (x *Number) OutOfRange() bool {
	switch {
	case x.zero || x.point <= 308:
		return false
	case x.point >= 310:
		return true
	}
	_, err := strconv.ParseFloat(string(x.raw), 64)
	return err != nil
}

// smallInt parses a number literal written as an integer within int64 (no fraction,
// no exponent): the common case, decided without decimal arithmetic.
func SmallInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if !IsDigit(c) {
			return 0, false
		}
		n = n*10 + uint64(c-'0') // 19 digits fit in uint64
	}
	switch {
	case neg && n <= 1<<63:
		return int64(-n), true // -(1<<63) wraps to itself
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// compareNumbers returns -1, 0 or 1 as a < b, a == b or a > b, exactly.
func CompareNumbers(a, b *Number) int {
	sa, sb := a.Sign(), b.Sign()
	if sa != sb || sa == 0 {
		return CmpInt(sa, sb)
	}
	m := compareMagnitudes(a, b)
	if sa < 0 {
		return -m
	}
	return m
}

// compareMagnitudes compares |a| and |b|, both non-zero.
func compareMagnitudes(a, b *Number) int {
	if a.point != b.point {
		return CmpInt(a.point, b.point)
	}
	for i := 0; i < max(a.n, b.n); i++ {
		if da, db := a.Sig(i), b.Sig(i); da != db {
			return CmpInt(da, db)
		}
	}
	return 0
}

func CmpInt[T int | int64 | byte](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// multipleOf reports whether a / m is an integer (m > 0), exactly.
func MultipleOf(a, m *Number) bool {
	if a.zero {
		return true
	}
	// a = A × 10^ea and m = M × 10^em with A, M the significant digits as integers.
	k := (a.point - int64(a.n)) - (m.point - int64(m.n))
	if k < 0 {
		return false // M × 10^-k divides A only if 10 divides A, whose last digit is not 0
	}
	// M divides A × 10^k iff it divides A × 10^min(k, 64): M has fewer than 64 factors
	// of 2 or of 5 when it has at most 18 digits (and math/big takes the rest).
	if m.n <= 18 {
		var mod uint64
		for i := 0; i < m.n; i++ {
			mod = mod*10 + uint64(m.Sig(i)-'0')
		}
		var r uint64
		for i := 0; i < a.n; i++ {
			r = (r*10 + uint64(a.Sig(i)-'0')) % mod
		}
		for range min(k, 64) {
			r = r * 10 % mod
		}
		return r == 0
	}
	A, _ := new(big.Int).SetString(sigDigits(a), 10)
	M, _ := new(big.Int).SetString(sigDigits(m), 10)
	k = min(k, int64(4*m.n)) // M < 10^n has fewer than 4n factors of 2 or 5
	A.Mul(A, new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil))
	return A.Mod(A, M).Sign() == 0
}

// sigDigits returns the significant digits as a string.
func sigDigits(x *Number) string {
	b := make([]byte, x.n)
	for i := range b {
		b[i] = x.Sig(i)
	}
	return string(b)
}

// scalarEnd returns the index just past the string, number or literal at b[i].
func ScalarEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	}
	return NumberEnd(b, i)
}

// numberEnd returns the index just past the number at b[i].
func NumberEnd(b []byte, i int) int {
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
}

func IsNumberStart(c byte) bool { return c == '-' || IsDigit(c) }

// nextItem returns the index of the next member, item or closing bracket after a
// value ending at end.
func NextItem(b []byte, end int) int {
	i := SkipWS(b, end)
	if b[i] == ',' {
		i = SkipWS(b, i+1)
	}
	return i
}

// memberValue returns the start of the value of the member whose key ends at keyEnd.
func MemberValue(b []byte, keyEnd int) int {
	return SkipWS(b, SkipWS(b, keyEnd)+1)
}

// jsonEqual reports whether two JSON values are equal as JSON Schema compares them
// (enum, const, uniqueItems): numbers by value (1 == 1.0), strings after decoding,
// objects regardless of member order (their names are unique: the validator refuses
// repeated names first).
func Equal(a, b []byte) bool {
	_, _, eq := equalAt(a, 0, b, 0)
	return eq
}

// equalAt compares the values at a[i] and b[j]; when they are equal it also returns
// the index just past each.
func equalAt(a []byte, i int, b []byte, j int) (int, int, bool) {
	ka, kb := a[i], b[j]
	switch {
	case ka == '"' && kb == '"':
		ea, eb := StringEnd(a, i), StringEnd(b, j)
		return ea, eb, StringsEqual(a[i+1:ea-1], b[j+1:eb-1])
	case IsNumberStart(ka) && IsNumberStart(kb):
		ea, eb := NumberEnd(a, i), NumberEnd(b, j)
		x, y := ParseNumber(a[i:ea]), ParseNumber(b[j:eb])
		return ea, eb, CompareNumbers(&x, &y) == 0
	case ka == '[' && kb == '[':
		return arraysEqualAt(a, i, b, j)
	case ka == '{' && kb == '{':
		return objectsEqualAt(a, i, b, j)
	case ka == kb && (ka == 't' || ka == 'f' || ka == 'n'):
		return ScalarEnd(a, i), ScalarEnd(b, j), true
	}
	return 0, 0, false
}

// arraysEqualAt compares two arrays item by item.
func arraysEqualAt(a []byte, i int, b []byte, j int) (int, int, bool) {
	i, j = SkipWS(a, i+1), SkipWS(b, j+1)
	for {
		endA, endB := a[i] == ']', b[j] == ']'
		if endA || endB {
			return i + 1, j + 1, endA && endB
		}
		ea, eb, eq := equalAt(a, i, b, j)
		if !eq {
			return 0, 0, false
		}
		i, j = NextItem(a, ea), NextItem(b, eb)
	}
}

// objectsEqualAt compares two objects as sets of members. Members in the same order
// cost one pass; others cost up to the product of the objects' sizes.
func objectsEqualAt(a []byte, i int, b []byte, j int) (int, int, bool) {
	inOrder := true
	next := SkipWS(b, j+1) // where b's member matching a's next one starts, in order
	n := 0
	k := SkipWS(a, i+1)
	for a[k] == '"' {
		keyEnd := StringEnd(a, k)
		key := a[k+1 : keyEnd-1]
		var m int
		if inOrder && b[next] == '"' && StringsEqual(key, b[next+1:StringEnd(b, next)-1]) {
			m = next
		} else if m = findMember(b, j, key); m < 0 {
			return 0, 0, false
		} else {
			inOrder = false
		}
		ea, eb, eq := equalAt(a, MemberValue(a, keyEnd), b, MemberValue(b, StringEnd(b, m)))
		if !eq {
			return 0, 0, false
		}
		next = NextItem(b, eb)
		n++
		k = NextItem(a, ea)
	}
	if inOrder {
		return k + 1, next + 1, b[next] == '}'
	}
	count, end := 0, SkipWS(b, j+1)
	for b[end] == '"' {
		count++
		end = NextItem(b, ValueEnd(b, MemberValue(b, StringEnd(b, end))))
	}
	return k + 1, end + 1, count == n
}

// findMember returns the start of the key of b's member named key (decoded), or -1.
func findMember(b []byte, j int, key []byte) int {
	for m := SkipWS(b, j+1); b[m] == '"'; {
		keyEnd := StringEnd(b, m)
		if StringsEqual(key, b[m+1:keyEnd-1]) {
			return m
		}
		m = NextItem(b, ValueEnd(b, MemberValue(b, keyEnd)))
	}
	return -1
}

// hashAt hashes the value at v[i] consistently with jsonEqual (equal values hash
// equally), for uniqueItems over long arrays, and returns the index past it.
func HashAt(v []byte, i int) (uint64, int) {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(h, x uint64) uint64 { return (h ^ x) * prime }
	switch c := v[i]; {
	case c == '"':
		end := StringEnd(v, i)
		h = mix(h, 1)
		body := v[i+1 : end-1]
		for k := 0; k < len(body); {
			var r rune
			r, k = NextRune(body, k)
			h = mix(h, uint64(r))
		}
		return h, end
	case IsNumberStart(c):
		end := NumberEnd(v, i)
		x := ParseNumber(v[i:end])
		h = mix(h, 2)
		if !x.zero {
			h = mix(mix(h, uint64(x.Sign()+2)), uint64(x.point))
			for k := 0; k < x.n; k++ {
				h = mix(h, uint64(x.Sig(k)))
			}
		}
		return h, end
	case c == '[':
		h = mix(h, 3)
		k := SkipWS(v, i+1)
		for v[k] != ']' {
			item, end := HashAt(v, k)
			h = mix(h, item)
			k = NextItem(v, end)
		}
		return h, k + 1
	case c == '{':
		var sum uint64 // order-independent
		k := SkipWS(v, i+1)
		for v[k] == '"' {
			keyEnd := StringEnd(v, k)
			kh, _ := HashAt(v, k)
			vh, end := HashAt(v, MemberValue(v, keyEnd))
			sum += mix(kh, vh)
			k = NextItem(v, end)
		}
		return mix(mix(h, 4), sum), k + 1
	}
	return mix(h, uint64(v[i])), ScalarEnd(v, i)
}

// String decodes raw as encoding/json decodes a JSON string into a Go string; ok is
// false when raw is not a string.
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; !bytes.ContainsAny(inner, "\\\"") && raw[len(raw)-1] == '"' {
		return string(inner), true // no escapes: the common case, without a decoder
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
