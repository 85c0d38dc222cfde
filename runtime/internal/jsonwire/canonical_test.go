package jsonwire

import "testing"

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`null`, `{}`},
		{`{}`, `{}`},
		{` { "b" : 1 , "a" : [ 2 , {"d":1,"c":2} ] } `, `{"a":[2,{"c":2,"d":1}],"b":1}`},
		{`{"n":1.50,"m":1e400}`, `{"m":1e400,"n":1.50}`}, // numbers as written
		{`{"s":"\u00e9<"}`, `{"s":"é\u003c"}`},
		{`{"a":`, `{"a":`}, // does not decode: as it is
	} {
		if got := string(Canonical([]byte(tc.in))); got != tc.want {
			t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
