package jsonwire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

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

// reencoded is Canonical without its fast path: the decode and re-encoding.
func reencoded(args []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// TestIsCanonical checks that the fast path answers true only for input the
// re-encoding returns unchanged.
func TestIsCanonical(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{}`, true},
		{`[]`, true},
		{`{"a":1,"b":[true,false,null,"x",-0.5e+3,{}],"c":{"d":"é"}}`, true},
		{`"s"`, true},
		{`1.50`, true},
		{`{"b":1,"a":2}`, false},          // unsorted
		{`{"a":1,"a":2}`, false},          // repeated
		{`{"a": 1}`, false},               // space
		{`{"a":1} `, false},               // trailing space
		{`{"a":1}{}`, false},              // trailing value
		{`{"a":"<"}`, false},              // escaped by encoding/json
		{`{"a":"&"}`, false},              //
		{`{"a":"\u0041"}`, false},         // escape
		{`{"a":"\u2028"}`, false},         // raw U+2028
		{"{\"a\":\"\xff\"}", false},       // invalid UTF-8
		{"{\"a\":\"\t\"}", false},         // control character
		{`{"a":01}`, false},               // bad number
		{`{"a":1.}`, false},               //
		{`{"a":tru}`, false},              //
		{`{"a":[1,]}`, false},             //
		{`{"a":1,}`, false},               //
		{`{"a"}`, false},                  //
		{`{"a":1`, false},                 //
		{`{"a":"x`, false},                //
		{`{"Z":1,"a":2,"é":3}`, true},     // byte order
		{`{"a":[[[[[[[[1]]]]]]]]}`, true}, //
	} {
		in := []byte(tc.in)
		if got := isCanonical(in); got != tc.want {
			t.Errorf("isCanonical(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if tc.want && string(reencoded(in)) != tc.in {
			t.Errorf("isCanonical(%q) but the re-encoding is %q", tc.in, reencoded(in))
		}
	}
	for _, in := range []string{
		` { "b" : 1 , "a" : [ 2 , {"d":1,"c":2} ] } `, `{"note":"hello","key":"k-1"}`, `{"b":{},"a":[]}`,
		`{"c":1,"b":2,"a":3,"d":[{"z":null,"y":true}],"e":-1.5E+3}`, "\t[ 1 ,\n2 ]\r\n",
	} {
		b, ok := appendCanonical(nil, []byte(in), SkipWS([]byte(in), 0), 0)
		if want := reencoded([]byte(in)); !ok || !bytes.Equal(b, want) {
			t.Errorf("appendCanonical(%q) = %q %v, want %q", in, b, ok, want)
		}
	}
	for _, in := range []string{`{"b":1,"a":"<"}`, `{"b":1,"a":1,"a":2}`, `{"b":"\u0041","a":1}`} {
		if _, ok := appendCanonical(nil, []byte(in), 0, 0); ok {
			t.Errorf("appendCanonical(%q): not left to the decoder", in)
		}
	}
	deep := strings.Repeat("[", maxCanonicalDepth+2) + strings.Repeat("]", maxCanonicalDepth+2)
	if isCanonical([]byte(deep)) || string(Canonical([]byte(deep))) != deep {
		t.Error("deep nesting: not left to the re-encoding")
	}
}

// FuzzCanonical checks that the fast path never changes what Canonical returns.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":"x"}`, `{"b":[1,{"c":null}],"a":"é"}`, `{"a":"<"}`, ` {"a" : 1}`, `[1e5,-0]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if Valid(in) {
			if b, ok := appendCanonical(nil, in, SkipWS(in, 0), 0); ok {
				if want := reencoded(in); !bytes.Equal(want, b) {
					t.Fatalf("appendCanonical(%q) = %q, re-encoded %q", in, b, want)
				}
			}
		}
		if isCanonical(in) {
			if want := reencoded(in); !bytes.Equal(want, in) {
				t.Fatalf("isCanonical(%q), re-encoded %q", in, want)
			}
		}
	})
}
