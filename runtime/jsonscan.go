package runtime

import "encoding/json"

// This file walks JSON objects without reflection or copies: ParseMessage runs on
// every message, so it reads only the members it needs as sub-slices of the input.
// Every function here expects input that json.Valid accepted.

// eachMember calls fn with the key (unquoted) and the raw value of each member of
// the JSON object obj, in order. A key with escapes is decoded.
func eachMember(obj []byte, fn func(key, val []byte)) {
	i := skipWS(obj, 1) // past '{'
	for i < len(obj) && obj[i] == '"' {
		keyEnd := stringEnd(obj, i)
		key := obj[i+1 : keyEnd-1]
		if containsByte(key, '\\') {
			key = unquoteKey(obj[i:keyEnd])
		}
		i = skipWS(obj, keyEnd)
		i = skipWS(obj, i+1) // past ':'
		valEnd := valueEnd(obj, i)
		fn(key, obj[i:valEnd])
		i = skipWS(obj, valEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
}

// unquoteKey decodes a key holding escapes (rare).
func unquoteKey(quoted []byte) []byte {
	var s string
	_ = json.Unmarshal(quoted, &s) // valid by precondition
	return []byte(s)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		return compositeEnd(b, i)
	}
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] (a '"').
func stringEnd(b []byte, i int) int {
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
			i = stringEnd(b, i)
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
func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// isDelimiter reports bytes that end a number or literal.
func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || isSpace(c)
}

// containsByte reports whether b holds c.
func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}
