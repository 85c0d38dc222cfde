// Package jsonwire works on JSON bytes in place, for the runtime and its leaves:
// the validity scanner, values read as encoding/json decodes them (strings, exact
// numbers, equality, hashing), the string encoder, and repeated-member detection.
package jsonwire

import "encoding/json"

// This file walks JSON objects without reflection or copies: ParseMessage runs on
// every message, so it reads only the members it needs as sub-slices of the input.
// Every function above validJSON expects input that validJSON (or json.Valid)
// accepted.

// eachMember calls fn with the key (unquoted) and the raw value of each member of
// the JSON object obj, in order. A key with escapes is decoded.
func EachMember(obj []byte, fn func(key, val []byte)) {
	i := SkipWS(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		keyEnd := StringEnd(obj, i)
		key := obj[i+1 : keyEnd-1]
		if ContainsByte(key, '\\') {
			key = unquoteKey(obj[i:keyEnd])
		}
		i = SkipWS(obj, keyEnd)
		i = SkipWS(obj, i+1) // past ':'
		valEnd := ValueEnd(obj, i)
		fn(key, obj[i:valEnd])
		i = SkipWS(obj, valEnd)
		if i < len(obj) && obj[i] == ',' {
			i = SkipWS(obj, i+1)
		}
	}
}

// Member returns the raw value of member name of the JSON object obj (the
// first, if repeated); false when obj is not a valid object or lacks it.
func Member(obj []byte, name string) ([]byte, bool) {
	obj = TrimSpace(obj)
	if len(obj) < 2 || obj[0] != '{' || !Valid(obj) {
		return nil, false
	}
	var found []byte
	EachMember(obj, func(key, val []byte) {
		if found == nil && string(key) == name {
			found = val
		}
	})
	return found, found != nil
}

// unquoteKey decodes a key holding escapes (rare).
func unquoteKey(quoted []byte) []byte {
	var s string
	_ = json.Unmarshal(quoted, &s) // valid by precondition
	return []byte(s)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func ValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		return compositeEnd(b, i)
	}
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] (a '"').
func StringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// compositeEnd returns the index just past the object or array starting at b[i].
func compositeEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = StringEnd(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(b)
}

// skipWS returns the index of the first non-whitespace byte at or after i.
func SkipWS(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// isDelimiter reports bytes that end a number or literal.
func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || IsSpace(c)
}

// containsByte reports whether b holds c.
func ContainsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// maxDepth is the nesting bound encoding/json enforces: validJSON keeps it, so the
// two accept the same documents.
const maxDepth = 10000

// validJSON reports whether b is one JSON value with optional surrounding
// whitespace. It accepts exactly what json.Valid accepts (the same grammar, no
// UTF-8 check inside strings, nesting up to 10000) in a fraction of its time: no
// per-byte state machine and no allocation below 64 levels of nesting.
func Valid(b []byte) bool {
	end, ok := scanValue(b, SkipWS(b, 0))
	return ok && SkipWS(b, end) == len(b)
}

// scanValue validates the JSON value starting at b[i] (no leading whitespace) and
// returns the index just past it.
func scanValue(b []byte, i int) (int, bool) {
	var small [64]byte
	open := small[:0] // the '{' and '[' enclosing i, innermost last
	ok := true
value:
	for {
		if i >= len(b) {
			return 0, false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(open) >= maxDepth {
				return 0, false
			}
			i = SkipWS(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			open = append(open, c)
			if c == '{' {
				if i, ok = scanKey(b, i); !ok {
					return 0, false
				}
			}
			continue value
		case '"':
			i, ok = scanString(b, i)
		case 't':
			i, ok = scanLiteral(b, i, "true")
		case 'f':
			i, ok = scanLiteral(b, i, "false")
		case 'n':
			i, ok = scanLiteral(b, i, "null")
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return 0, false
		}
		// A value ended at i: close containers until the next member or element.
		for len(open) > 0 {
			i = SkipWS(b, i)
			if i >= len(b) {
				return 0, false
			}
			top := open[len(open)-1]
			switch b[i] {
			case ',':
				i = SkipWS(b, i+1)
				if top == '{' {
					if i, ok = scanKey(b, i); !ok {
						return 0, false
					}
				}
				continue value
			case top + 2:
				open = open[:len(open)-1]
				i++
			default:
				return 0, false
			}
		}
		return i, true
	}
}

// scanKey validates a member name and its colon at b[i] and returns the index of
// the member's value.
func scanKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return 0, false
	}
	i = SkipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	return SkipWS(b, i+1), true
}

// scanString validates the string starting at b[i] (a '"') and returns the index
// just past it. Like encoding/json it refuses control characters and malformed
// escapes, and lets any other byte through.
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			i++
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false
					}
				}
				i += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// isHex reports a hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber validates the number starting at b[i] and returns the index just past
// it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return 0, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

// skipDigits returns the index of the first non-digit at or after i.
func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// scanLiteral validates the literal lit at b[i].
func scanLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// A keySet finds a repeated member name among the members of one object. Names
// are compared after unescaping (eachMember's keys). It allocates only beyond 16
// members.
type KeySet struct {
	small [16][]byte
	n     int
	big   map[string]struct{}
}

// add records a member name and reports whether the object already had it.
func (k *KeySet) Add(key []byte) (repeated bool) {
	if k.big != nil {
		if _, ok := k.big[string(key)]; ok {
			return true
		}
		k.big[string(key)] = struct{}{}
		return false
	}
	for _, seen := range k.small[:k.n] {
		if string(seen) == string(key) {
			return true
		}
	}
	if k.n < len(k.small) {
		k.small[k.n] = key
		k.n++
		return false
	}
	k.big = make(map[string]struct{}, 2*len(k.small))
	for _, seen := range k.small {
		k.big[string(seen)] = struct{}{}
	}
	k.big[string(key)] = struct{}{}
	return false
}

// TrimSpace drops JSON whitespace at both ends.
func TrimSpace(b []byte) []byte {
	for len(b) > 0 && IsSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// IsSpace reports JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
