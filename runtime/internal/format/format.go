// Package format asserts the JSON Schema "format" values the runtime checks:
// date-time, date, email and uri (the four an MCP elicitation form may use; mcpgen
// writes date-time for every time.Time). Other formats are annotations, as JSON
// Schema 2020-12 makes them by default.
//
// Both of the runtime's validators use this package: the built-in one and, when
// imported, runtime/fullschema, so that a format means the same under either.
package format

import (
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Asserted reports whether the runtime asserts the format name.
func Asserted(name string) bool {
	switch name {
	case "date-time", "date", "email", "uri":
		return true
	}
	return false
}

// DateTimeLiteral reports whether lit, a JSON string literal with its quotes as it
// appears in the document, decodes into a time.Time with encoding/json: exactly what
// (*time.Time).UnmarshalJSON accepts. That method reads the literal as written, escapes
// included (https://go.dev/issue/47353), so a date-time holding any escape is refused.
// It accepts RFC 3339 and also what time.Parse(time.RFC3339, ...) lets through (Go has
// disabled its stricter checks: a one-digit hour, a comma before the fraction, a zone
// hour of 24 or more), and refuses leap seconds and years beyond 0000-9999.
func DateTimeLiteral(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	if rfc3339(s) {
		return true // the allocation-free path of time.Time, decided without it
	}
	var t time.Time
	return t.UnmarshalJSON(lit) == nil
}

// DateTime reports whether s, a decoded string, would decode into a time.Time when
// written without escapes (what runtime/fullschema can see: its validator gets decoded
// strings).
func DateTime(s string) bool {
	if rfc3339([]byte(s)) {
		return true
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// rfc3339 reports whether the standard library's fast RFC 3339 parser (time's
// parseRFC3339, which (*time.Time).UnmarshalJSON tries first) accepts s. A false
// answer is not final: time.Parse may still accept s.
func rfc3339(s []byte) bool {
	if len(s) < len("2006-01-02T15:04:05") {
		return false
	}
	year, ok1 := digits(s[0:4], 0, 9999)
	month, ok2 := digits(s[5:7], 1, 12)
	day, ok3 := digits(s[8:10], 1, 31)
	_, ok4 := digits(s[11:13], 0, 23)
	_, ok5 := digits(s[14:16], 0, 59)
	_, ok6 := digits(s[17:19], 0, 59)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || day > daysIn(month, year) ||
		s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	s = s[19:]
	if len(s) >= 2 && s[0] == '.' && isDigit(s[1]) {
		n := 2
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		s = s[n:]
	}
	if len(s) == 1 && s[0] == 'Z' {
		return true
	}
	if len(s) != len("-07:00") {
		return false
	}
	_, ok1 = digits(s[1:3], 0, 23)
	_, ok2 = digits(s[4:6], 0, 59)
	return ok1 && ok2 && (s[0] == '-' || s[0] == '+') && s[3] == ':'
}

// Date reports whether s is a full-date of RFC 3339 (YYYY-MM-DD, a real day of the
// proleptic Gregorian calendar): what time.Parse("2006-01-02", s) accepts.
func Date[T string | []byte](s T) bool {
	if len(s) != len("2006-01-02") || s[4] != '-' || s[7] != '-' {
		return false
	}
	year, ok1 := digits(s[:4], 0, 9999)
	month, ok2 := digits(s[5:7], 1, 12)
	day, ok3 := digits(s[8:10], 1, 31)
	return ok1 && ok2 && ok3 && day <= daysIn(month, year)
}

// digits parses b, all ASCII digits, as a decimal within [lo, hi].
func digits[T string | []byte](b T, lo, hi int) (int, bool) {
	n := 0
	for i := 0; i < len(b); i++ {
		if !isDigit(b[i]) {
			return 0, false
		}
		n = n*10 + int(b[i]-'0')
	}
	return n, n >= lo && n <= hi
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// daysIn returns the number of days of a month (1-12) in year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Email reports whether s is an email address: local@domain, at most 254 bytes, the
// local part 1 to 64 bytes, either quoted (no backslash or quote inside) or dot
// separated atoms of letters, digits and !#$%&'*+-/=?^_`{|}~; the domain a hostname
// or a bracketed IPv4 or IPv6: address. These are the rules of
// santhosh-tekuri/jsonschema/v6 (the test oracle), apart from two it lets through:
// an empty local part, and signs in an IPv4 literal.
func Email(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if local == "" || len(local) > 64 { // (v6 lets an empty local part through)
		return false
	}
	if len(local) > 1 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `\"`) {
			return false
		}
	} else if !emailAtoms(local) {
		return false
	}
	if len(domain) >= 2 && domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if rest, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			return ipv6(rest)
		}
		return ipv4(ip)
	}
	return Hostname(domain)
}

// emailAtoms checks an unquoted local part.
func emailAtoms(local string) bool {
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', isDigit(c):
		case strings.IndexByte(".!#$%&'*+-/=?^_`{|}~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// Hostname reports whether s is a hostname: dot-separated labels of 1 to 63 ASCII
// letters, digits and hyphens, not starting or ending with a hyphen, at most 253
// bytes without a trailing dot.
func Hostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) < 1 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '-') {
				return false
			}
		}
	}
	return true
}

// ipv4 reports whether s is a dotted-quad IPv4 address without leading zeros. (It
// refuses signs, "+1" or "-0", which santhosh-tekuri/jsonschema/v6 lets through.)
func ipv4(s string) bool {
	n := 0
	for group := range strings.SplitSeq(s, ".") {
		n++
		if group == "" || len(group) > 1 && group[0] == '0' || len(group) > 3 {
			return false
		}
		if _, ok := digits(group, 0, 255); !ok {
			return false
		}
	}
	return n == 4
}

// ipv6 reports whether s is an IPv6 address without a zone.
func ipv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	addr, err := netip.ParseAddr(s)
	return err == nil && addr.Zone() == ""
}

// URI reports whether s is an absolute URI as net/url parses it (with a scheme; an
// IPv6 host must be bracketed and valid).
func URI(s string) bool {
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() {
		return false
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		return strings.Contains(u.Host, "[") && strings.Contains(u.Host, "]") && ipv6(host)
	}
	return true
}
