package format

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// timeDecodes reports whether encoding/json decodes the JSON string literal lit into a
// time.Time: the definition DateTimeLiteral must meet exactly.
func timeDecodes(lit []byte) bool {
	var t time.Time
	return json.Unmarshal(lit, &t) == nil
}

var dateTimeSeeds = []string{
	`"2006-01-02T15:04:05Z"`, `"0000-01-01T00:00:+0Z"`, `"2006-01-02T1:04:05Z"`, `"2006-01-02T15:04:60Z"`,
	`"2006-02-29T00:00:00Z"`, `"2004-02-29T00:00:00Z"`, `"2000-02-29T00:00:00Z"`, `"1900-02-29T00:00:00Z"`,
	`"2006-01-02T15:04:05+24:00"`, `"2006-01-02T15:04:05+23:59"`, `"2006-01-02T15:04:05+23:60"`,
	`"2006-01-02t15:04:05z"`, `"2006-01-02T15:04:05\u005a"`, `"2006-01-02T15:04:05.123456789Z"`,
	`"2006-01-02T15:04:05.1234567891Z"`, `"2006-01-02T15:04:05,5Z"`, `"2006-01-02T15:04:05.Z"`,
	`"10000-01-01T00:00:00Z"`, `"2006-01-02T15:04:05-07:00"`, `"2006-01-02T15:04:05-0700"`,
	`"2006-01-02 15:04:05Z"`, `"2006-13-02T15:04:05Z"`, `"2006-00-02T15:04:05Z"`, `"2006-01-32T15:04:05Z"`,
	`"2006-01-02T24:00:00Z"`, `"2006-01-02T15:04:05"`, `"2006-01-02"`, `""`, `"2006-01-02T15:04:05ZZ"`,
	`"+2006-01-02T15:04:05Z"`, `"2006-1-02T15:04:05Z"`, `"2006-01-02T15:4:05Z"`, `"2006-01-02T15:04:5Z"`,
	`"2006-01-02T15:04:05.123+01:00"`, `"2006-01-02T15:04:05+01:00:00"`, `"2006-01-02T15:04:05 Z"`,
	`"9999-12-31T23:59:59.999999999Z"`, `"0001-01-01T00:00:00Z"`, `"2006-01-02T15:04:05.-1Z"`,
	`"2006-01-02T15:04:05.0000000000000000000000000001Z"`, `"2006-01-02T15:04:05+1:00"`, `"2006-01-02T15:04:05+01:0"`,
}

func TestDateTimeLiteral(t *testing.T) {
	for _, lit := range dateTimeSeeds {
		if got, want := DateTimeLiteral([]byte(lit)), timeDecodes([]byte(lit)); got != want {
			t.Errorf("DateTimeLiteral(%s) = %v, encoding/json decodes into time.Time: %v", lit, got, want)
		}
	}
	if DateTimeLiteral([]byte(`"0000-01-01T00:00:+0Z"`)) {
		t.Errorf("accepted the fuzz finding 0000-01-01T00:00:+0Z")
	}
}

func FuzzDateTimeLiteral(f *testing.F) {
	for _, lit := range dateTimeSeeds {
		f.Add(strings.Trim(lit, `"`))
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit, err := json.Marshal(s)
		if err != nil {
			return
		}
		for _, l := range [][]byte{lit, []byte(`"` + s + `"`)} {
			if !json.Valid(l) {
				continue
			}
			if got, want := DateTimeLiteral(l), timeDecodes(l); got != want {
				t.Fatalf("DateTimeLiteral(%s) = %v, encoding/json decodes into time.Time: %v", l, got, want)
			}
		}
		plain := !strings.ContainsAny(string(lit), `\`)
		if plain && DateTime(s) != timeDecodes(lit) {
			t.Fatalf("DateTime(%q) = %v, want %v", s, DateTime(s), timeDecodes(lit))
		}
	})
}

func FuzzDate(f *testing.F) {
	for _, s := range []string{"2006-01-02", "2006-02-29", "2004-02-29", "0000-02-29", "2006-1-02", "2006-01-2",
		"+006-01-02", "2006-01-02T00:00:00Z", "2006/01/02", "20060102", "2006-00-01", "2006-12-31", "2006-04-31"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := time.Parse("2006-01-02", s)
		if got := Date(s); got != (err == nil) {
			t.Fatalf("Date(%q) = %v, time.Parse: %v", s, got, err)
		}
	})
}

func TestEmail(t *testing.T) {
	for s, want := range map[string]bool{
		"a@b.c": true, "first.last+tag@example.com": true, `"quoted local"@x`: true, "a@[1.2.3.4]": true,
		"a@[IPv6:::1]": true, "a@[IPv6:fe80::1%eth0]": false, "a@[+1.2.3.4]": false, "a@[01.2.3.4]": false,
		"a..b@x": false, ".a@x": false, "a.@x": false, "no-at": false, "a@-x": false, "a@x-": false,
		"a@" + strings.Repeat("x", 64): false, strings.Repeat("a", 65) + "@x": false, "a b@x": false,
		`"a\b"@x`: false, "a@b@c": false, "a@": false, "@x": false, "é@x": false,
	} {
		if got := Email(s); got != want {
			t.Errorf("Email(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestURI(t *testing.T) {
	for s, want := range map[string]bool{
		"https://example.com/x?y#z": true, "mailto:a@b": true, "urn:isbn:0451450523": true, "/relative": false,
		"relative": false, "http://[::1]:80/": true, "http://[zz]/": false, "http://::1/": false, "": false,
		"http://exa mple.com": false, "h%74tp://x": false,
	} {
		if got := URI(s); got != want {
			t.Errorf("URI(%q) = %v, want %v", s, got, want)
		}
	}
}
