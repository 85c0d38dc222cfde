package jsonwire

import "unicode/utf8"

// AppendString appends s as a JSON string; every response's strings go through it.
// It writes what encoding/json writes without HTML escaping
// (json.Encoder.SetEscapeHTML(false)): invalid UTF-8 becomes U+FFFD, U+2028 and
// U+2029 are escaped; only \b and \f are spelled \u0008 and \u000c.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				b = append(b, s[start:i]...)
				if r == utf8.RuneError {
					b = append(b, `\ufffd`...)
				} else {
					b = append(b, `\u202`...)
					b = append(b, hex[r&0xF])
				}
				start = i + size
			}
			i += size
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
