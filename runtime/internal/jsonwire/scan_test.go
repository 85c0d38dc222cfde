package jsonwire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/jsontest"
)

// validSeeds exercise validJSON's grammar; each must get json.Valid's verdict.
var validSeeds = []string{
	``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a" : [1, 2.5, -0, 1e5, 1E+5, -1.5e-7, true, false, null, "x"]}`,
	`{"a":1,}`, `[1,]`, `{,}`, `[,1]`, `{"a"}`, `{"a":}`, `{"a" 1}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1}}`, `[[]`, `]`, `}`,
	`01`, `-`, `-0`, `-01`, `1.`, `.5`, `1.e5`, `1e`, `1e+`, `1E-0`, `+1`, `0x10`, `1_000`, `Infinity`, `NaN`, `1 2`,
	`tru`, `truex`, `nul`, `null `, `falsey`, `[true,false,null]`, `[truefalse]`,
	`"`, `""`, `"\"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\u00g0"`, `"\u12"`, `"\x41"`, `"\'"`,
	"\"\x01\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"\t\"", "\xef\xbb\xbf{}", "{\"a\":1}\x00", "\v{}", "{}\v",
	"\t\r\n {\"a\"\t:\n[\r1\t]\n}\r\n", `{"a":{"b":{"c":[{"d":[]}]}}}`, `{"":""}`, `{"a":"}"}`, `["]"]`, `{"a\"":1}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 9999) + `{}` + strings.Repeat("}", 9999),
	strings.Repeat(`{"a":`, 10000) + `{}` + strings.Repeat("}", 10000),
	strings.Repeat("[", 70) + "1" + strings.Repeat("]", 70),
	strings.Repeat("[", 70) + "1" + strings.Repeat("]", 69),
}

func TestValidJSONMatchesEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.80q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

// FuzzValidJSON checks validJSON against json.Valid on any input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	for _, s := range jsontest.MessageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func TestKeySet(t *testing.T) {
	for _, n := range []int{1, 15, 16, 17, 40} {
		var k KeySet
		for i := range n {
			if k.Add([]byte(strings.Repeat("k", i+1))) {
				t.Fatalf("n=%d: key %d reported repeated", n, i)
			}
		}
		for i := range n {
			if !k.Add([]byte(strings.Repeat("k", i+1))) {
				t.Fatalf("n=%d: repeated key %d not found", n, i)
			}
		}
	}
}

func BenchmarkValidJSON(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	b.Run("validJSON", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			Valid(msg)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			json.Valid(msg)
		}
	})
}
