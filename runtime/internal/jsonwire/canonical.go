package jsonwire

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// Canonical returns args re-encoded by encoding/json (object keys sorted, no
// spaces, numbers kept as written), so that two encodings of the same value
// compare equal: absent, empty and null arguments are "{}", and bytes that do
// not decode are returned as they are. Digests of arguments (requestState
// bindings, idempotency and receipts) are taken of it.
func Canonical(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		return []byte("{}")
	}
	if isCanonical(args) {
		return args // what the re-encoding would return, without decoding
	}
	if Valid(args) {
		if b, ok := appendCanonical(make([]byte, 0, len(args)), args, SkipWS(args, 0), 0); ok {
			return b
		}
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}

// maxCanonicalDepth bounds the nesting isCanonical follows before it leaves
// the input to the decoder.
const maxCanonicalDepth = 64

// isCanonical reports whether b is exactly what Canonical's decode and
// re-encoding would return: one JSON value and nothing else, no whitespace,
// object keys in strictly increasing byte order (so no repeated member), numbers
// in JSON's grammar (kept as written), and strings without escapes holding only
// characters encoding/json writes as they are (not '<', '>', '&', control
// characters, U+2028, U+2029 or invalid UTF-8). It may answer false for
// canonical input (e.g. a string with an escape): Canonical then re-encodes.
func isCanonical(b []byte) bool {
	i, ok := canonicalValue(b, 0, 0)
	return ok && i == len(b)
}

// canonicalValue checks the value at b[i] and returns the index past it.
func canonicalValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxCanonicalDepth {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return canonicalString(b, i)
	case c == '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		var prev []byte
		for n := 0; ; n++ {
			end, ok := canonicalString(b, i)
			if !ok {
				return i, false
			}
			key := b[i+1 : end-1]
			if n > 0 && bytes.Compare(prev, key) >= 0 {
				return i, false
			}
			prev = key
			if end >= len(b) || b[end] != ':' {
				return end, false
			}
			if i, ok = canonicalValue(b, end+1, depth+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = canonicalValue(b, i, depth+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '-' || IsDigit(c):
		return scanNumber(b, i)
	case c == 't':
		return scanLiteral(b, i, "true")
	case c == 'f':
		return scanLiteral(b, i, "false")
	case c == 'n':
		return scanLiteral(b, i, "null")
	}
	return i, false
}

// canonicalString checks the string at b[i] (see isCanonical) and returns the
// index past its closing quote.
func canonicalString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	for i++; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20 || c == '\\' || c == '<' || c == '>' || c == '&':
			return i, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return i, false
			}
			i += size
		}
	}
	return i, false
}

// A canonicalMember is the key (quoted) and value of an object member: spans of
// the input.
type canonicalMember struct{ key, val []byte }

// appendCanonical appends the re-encoding of the value at b[i] (b is valid JSON,
// i past any whitespace) as Canonical's decode and re-encoding writes it: members
// sorted by key, whitespace dropped, numbers and literals as written. It answers
// false, leaving the input to the decoder, for what it does not rewrite itself:
// strings that isCanonical refuses, repeated keys, deep nesting.
func appendCanonical(dst, b []byte, i, depth int) ([]byte, bool) {
	if depth > maxCanonicalDepth {
		return dst, false
	}
	switch b[i] {
	case '"':
		end, ok := canonicalString(b, i)
		return append(dst, b[i:end]...), ok
	case '[':
		dst = append(dst, '[')
		i = SkipWS(b, i+1)
		for n := 0; b[i] != ']'; n++ {
			if n > 0 {
				dst = append(dst, ',')
			}
			end := ValueEnd(b, i)
			var ok bool
			if dst, ok = appendCanonical(dst, b[:end], i, depth+1); !ok {
				return dst, false
			}
			if i = SkipWS(b, end); b[i] == ',' {
				i = SkipWS(b, i+1)
			}
		}
		return append(dst, ']'), true
	case '{':
		var small [16]canonicalMember
		members := small[:0]
		i = SkipWS(b, i+1)
		for b[i] == '"' {
			keyEnd, ok := canonicalString(b, i)
			if !ok {
				return dst, false
			}
			v := SkipWS(b, SkipWS(b, keyEnd)+1) // past ':'
			end := ValueEnd(b, v)
			members = append(members, canonicalMember{b[i:keyEnd], b[v:end]})
			if i = SkipWS(b, end); b[i] == ',' {
				i = SkipWS(b, i+1)
			}
		}
		// Keys are quoted here: compare what is between the quotes, as
		// encoding/json sorts ("" before " ", where the quote would not be).
		slices.SortFunc(members, func(x, y canonicalMember) int {
			return bytes.Compare(x.key[1:len(x.key)-1], y.key[1:len(y.key)-1])
		})
		dst = append(dst, '{')
		for n, m := range members {
			if n > 0 {
				if bytes.Equal(members[n-1].key, m.key) {
					return dst, false // the decoder keeps the last: leave it to it
				}
				dst = append(dst, ',')
			}
			dst = append(append(dst, m.key...), ':')
			var ok bool
			if dst, ok = appendCanonical(dst, m.val, 0, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	}
	end := ValueEnd(b, i) // a number or a literal, valid
	return append(dst, b[i:end]...), true
}
