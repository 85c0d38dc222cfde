package jsontest

import "testing"

func TestRepeatsName(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`{}`, false},
		{`{"a":1,"b":2}`, false},
		{`{"a":1,"a":2}`, true},
		{`{"a":1,"\u0061":2}`, true},
		{`{"a":{"b":1},"c":{"b":2}}`, false},
		{`{"a":{"b":1,"b":2}}`, true},
		{`[{"a":1},{"a":1}]`, false},
		{`[{"a":1,"a":1}]`, true},
		{`{"a":[1,{"x":1}],"b":"a"}`, false},
		{`{"keyword":"0","limit":"","limit":1}`, true},
		{`{"a":1,"a"`, true},
		{`{"a":`, false},
		{`not json`, false},
	} {
		if got := RepeatsName([]byte(c.doc)); got != c.want {
			t.Errorf("RepeatsName(%s) = %v, want %v", c.doc, got, c.want)
		}
	}
}
