package schemacheck

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// edgeSchemas are schemas of the kinds mcpgen generates, and of its corner cases.
var edgeSchemas = map[string]string{
	"echo": `{"type":"object","properties":{"text":{"type":"string","minLength":1},"repeat":{"type":"integer","minimum":1,"maximum":5}},"required":["text"],"additionalProperties":false}`,
	"notes-output": `{"type":"object","properties":{"matches":{"anyOf":[{"type":"array","items":{"type":"object",
		"properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},
		"text":{"type":"string"}},"required":["file","line","text"],"additionalProperties":false}},{"type":"null"}]},
		"truncated":{"type":"boolean"}},"required":["matches","truncated"],"additionalProperties":false}`,
	"tree": `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"},
		"kids":{"type":["array","null"],"items":{"$ref":"#/$defs/Node"},"maxItems":3}},"required":["name"],"additionalProperties":false}}}`,
	"scalars": `{"type":"object","properties":{"color":{"enum":["red","grün",null]},"flag":{"const":true},
		"n":{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":10},"i":{"type":"integer","minimum":-3},
		"s":{"type":"string","minLength":2,"maxLength":4},"any":true,"none":false},
		"additionalProperties":{"type":"integer"}}`,
	"required-undeclared": `{"type":"object","properties":{"a":{}},"required":["a","b"],"additionalProperties":false}`,
	"int-root":            `{"type":"integer","maximum":5}`,
	"strings": `{"type":"object","properties":{"s1":{"type":"string","maxLength":1},"s2":{"type":"string","minLength":2,"maxLength":3},
		"p":{"type":"string","pattern":"^[a-c]+$"},"e":{"enum":["é","\u00e9x","\uFFFD",1,1.5,true,null,[1,{"a":2}],{"b":[null]}]},
		"c":{"const":{"x":[1.0,"y"]}}},"additionalProperties":false}`,
	"numbers": `{"type":"object","properties":{"i":{"type":"integer"},"n":{"type":"number"},
		"b":{"type":"integer","minimum":-9007199254740992,"maximum":9007199254740992},
		"u64":{"type":"integer","minimum":0,"maximum":18446744073709551615},
		"x":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},"m":{"type":"number","multipleOf":0.01},
		"m3":{"type":"integer","multipleOf":3},"mb":{"multipleOf":12345678901234567890123},
		"f32":{"type":"number","minimum":-3.4028234663852886e+38,"maximum":3.4028234663852886e+38}}}`,
	"formats": `{"type":"object","properties":{"t":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},
		"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"id":{"type":"string","format":"uuid"},
		"nt":{"anyOf":[{"type":"string","format":"date-time"},{"type":"null"}]}},"additionalProperties":false}`,
	"arrays": `{"type":"object","properties":{"u":{"type":"array","uniqueItems":true},
		"t":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false},
		"f":{"type":"array","items":{"type":"integer","minimum":0,"maximum":255},"minItems":3,"maxItems":3}}}`,
	"maps": `{"type":"object","properties":{"m":{"type":["object","null"],"additionalProperties":{"type":"integer"},
		"propertyNames":{"pattern":"^(?:0|-?[1-9][0-9]*)$"},"maxProperties":3,"minProperties":1}}}`,
	"oneof": `{"type":"object","properties":{"size":{"type":"string","oneOf":[{"const":"S","title":"Small"},{"const":"L","title":"Large"}]},
		"o":{"oneOf":[{"type":"integer"},{"type":"number","minimum":1}]}}}`,
	"deep":        `{"$ref":"#/$defs/A","$defs":{"A":{"type":["array","object"],"items":{"$ref":"#/$defs/A"},"additionalProperties":{"$ref":"#"}}}}`,
	"open-root":   `{"type":"object"}`,
	"false-prop":  `{"type":"object","properties":{"no":false}}`,
	"annotations": `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","x-kind":"k","properties":{"a":{"type":"string","contentEncoding":"base64","description":"d","default":"x","examples":["y"]}}}`,
}

// deepArray is an array nested n deep.
func deepArray(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// wideObject is an object of n members a0..a(n-1), then extra members.
func wideObject(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		fmt.Fprintf(&b, `"a%d":%d,`, i, i)
	}
	b.WriteString(extra)
	return strings.TrimSuffix(b.String(), ",") + "}"
}

// longArray is an array of n distinct integers, then extra items.
func longArray(n int, extra string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		fmt.Fprintf(&b, "%d,", i)
	}
	b.WriteString(extra)
	return strings.TrimSuffix(b.String(), ",") + "]"
}

// edgeInstances are instances for every schema above (and the corpus).
var edgeInstances = []string{
	`{}`, `{"text":"a"}`, `{"text":"ab","repeat":5}`, `{"text":"","repeat":1}`, `{"text":"a","repeat":6}`,
	`{"text":"a","x":1}`, `{"text":"a\u0062"}`, `{"text":"a","text":5}`, `{"repeat":1.0,"text":"x"}`,
	`{"matches":null,"truncated":false}`, `{"matches":[{"file":"f","line":3,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","line":9223372036854775808,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","line":-9223372036854775808,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","text":"t"}],"truncated":true}`, `{"matches":{},"truncated":true}`,
	`{"name":"a","kids":[{"name":"b","kids":null},{"name":"c","kids":[]}]}`, `{"name":"A"}`,
	`{"name":"a","kids":[{"name":"b"},{"name":"b"},{"name":"b"},{"name":"b"}]}`, `{"name":"a","kids":[{"nam":"b"}]}`,
	`{"color":"grün","flag":true,"n":0.6,"i":-3,"s":"ab","any":[1],"extra":2}`, `{"color":"blue"}`,
	`{"color":null,"n":10}`, `{"n":0.5}`, `{"i":-4}`, `{"s":"abcde"}`, `{"s":"ééé"}`, `{"none":1}`,
	`{"flag":false}`, `{"extra":"x"}`, `{"a":1}`, `{"a":1,"b":2}`, `{"b":1}`, `5`, `6`, `-1e2`, `"x"`,
	`[]`, `null`, `true`, ` {"text" : "a" , "repeat" : 2 } `,
	// strings: escapes, surrogates, invalid UTF-8
	`{"s1":"\u00e9"}`, `{"s1":"\ud83d\ude00"}`, `{"s1":"\ud83d"}`, `{"s1":"\ud83d\u0041"}`, `{"s1":"\udc00\ud800"}`,
	"{\"s1\":\"\xff\"}", "{\"s1\":\"\xff\xfe\"}", `{"s2":"ab"}`, `{"s2":"a\u0000b"}`, `{"s2":"\\\\"}`,
	`{"p":"\u0061bc"}`, `{"p":"abd"}`, "{\"p\":\"a\xffb\"}", `{"e":"\u00e9"}`, "{\"e\":\"\xff\"}", `{"e":"\ufffd"}`,
	`{"e":1.0}`, `{"e":10e-1}`, `{"e":[1.0,{"a":2.00}]}`, `{"e":{"b":[null]}}`, `{"e":{"b":[null],"c":1}}`,
	`{"c":{"x":[1,"y"]}}`, `{"c":{"x":[1,"y"],"x":[1,"y"]}}`, `{"c":{"x":[1,"\u0079"]}}`,
	// numbers
	`{"i":1.0}`, `{"i":1e2}`, `{"i":1.5e1}`, `{"i":1.5}`, `{"i":-0}`, `{"i":-0.0}`, `{"i":1e400}`, `{"i":0.1e1}`,
	`{"i":123456789012345678901234567890}`, `{"n":1e308}`, `{"n":1e309}`, `{"n":-1e309}`, `{"n":1e-400}`,
	`{"n":1.7976931348623157e308}`, `{"n":1.7976931348623158e308}`, `{"n":1.7976931348623159e308}`,
	`{"n":0.0000001e1000010}`, `{"n":1E+2}`, `{"b":9007199254740993}`, `{"b":9007199254740992}`,
	`{"b":-9007199254740993}`, `{"b":9007199254740992.5}`, `{"u64":18446744073709551616}`,
	`{"u64":18446744073709551615}`, `{"u64":-0}`, `{"x":1e-400}`, `{"x":-1e-400}`, `{"x":0}`,
	`{"x":0.9999999999999999999999}`, `{"x":1}`, `{"m":0.07}`, `{"m":0.071}`, `{"m":1e300}`, `{"m":1e-300}`,
	`{"m3":9}`, `{"m3":9e1}`, `{"m3":10}`, `{"m3":-3}`, `{"mb":12345678901234567890123e5}`, `{"mb":1}`,
	`{"mb":24691357802469135780246}`, `{"f32":3.4028234663852886e+38}`, `{"f32":3.4028234663852887e+38}`, `{"f32":-1e39}`,
	// formats
	`{"t":"0000-01-01T00:00:+0Z"}`, `{"t":"2006-01-02T15:04:05Z"}`, `{"t":"2006-01-02T1:04:05Z"}`,
	`{"t":"2006-01-02T15:04:60Z"}`, `{"t":"2006-02-29T00:00:00Z"}`, `{"t":"2004-02-29T00:00:00Z"}`,
	`{"t":"2006-01-02T15:04:05+24:00"}`, `{"t":"2006-01-02t15:04:05z"}`, `{"t":"2006-01-02T15:04:05\u005a"}`,
	`{"t":"2006-01-02T15:04:05.123456789Z"}`, `{"t":"2006-01-02T15:04:05,5Z"}`, `{"t":"2006-01-02T15:04:05.Z"}`,
	`{"t":"10000-01-01T00:00:00Z"}`, `{"t":"2006-01-02T15:04:05-07:00"}`, `{"t":"0000-01-01T00:00:00Z"}`,
	`{"t":"2006-01-02T15:04:05.1234567891Z"}`, `{"t":1}`, `{"nt":null}`, `{"nt":"x"}`, `{"nt":"2006-01-02T15:04:05Z"}`,
	`{"d":"2006-02-29"}`, `{"d":"2004-02-29"}`, `{"d":"0000-02-29"}`, `{"d":"2006-1-02"}`, `{"d":"2006-01-02T00:00:00Z"}`,
	`{"e":"a@b.c"}`, `{"e":"a@[1.2.3.4]"}`, `{"e":"a@[+1.2.3.4]"}`, `{"e":"a@[IPv6:::1]"}`, `{"e":"\"q\"@x"}`,
	`{"e":"a..b@x"}`, `{"e":"no-at"}`, `{"e":"a@-x"}`, `{"u":"https://example.com/x"}`, `{"u":"/relative"}`,
	`{"u":"http://[::1]:80/"}`, `{"u":"http://[zz]/"}`, `{"u":"mailto:a@b"}`, `{"u":"h\u0074tp://x"}`, `{"id":"not-a-uuid"}`,
	// arrays
	`{"u":[1,1.0]}`, `{"u":[{"a":1,"b":2},{"b":2,"a":1}]}`, `{"u":["\u0061","a"]}`, `{"u":[1,2,3]}`,
	`{"u":` + longArray(25, "") + `}`, `{"u":` + longArray(25, "3.0") + `}`, `{"u":` + longArray(25, `"3"`) + `}`,
	`{"t":[1,"a"]}`, `{"t":[1,"a",null]}`, `{"t":["a"]}`, `{"t":[]}`, `{"t":[1.0]}`,
	`{"f":[0,255,1]}`, `{"f":[0,256,1]}`, `{"f":[0,1]}`, `{"f":[0,1,2,3]}`,
	// maps
	`{"m":{"1":1,"-2":2}}`, `{"m":{"01":1}}`, `{"m":{}}`, `{"m":{"1":1,"2":2,"3":3,"4":4}}`, `{"m":null}`,
	`{"m":{"1":1,"\u0031":2}}`, `{"m":{"1":"x"}}`,
	// oneOf
	`{"size":"S"}`, `{"size":"M"}`, `{"o":1}`, `{"o":0}`, `{"o":1.5}`, `{"o":0.5}`,
	// nesting and repeated names
	deepArray(300), `{"a":` + deepArray(200) + `}`, `[[{"k":{"k":[]}}]]`,
	`{"a":1,"a":1}`, `{"x":{"b":[],"b":null}}`, `[{"k":1},{"k":2,"k":3}]`, `{"a":1,"\u0061":2}`,
	wideObject(20, `"a3":0`), wideObject(20, ""), wideObject(20, `"a\u0033":0`), `{"no":1}`,
}

func TestSchemaEdgeCases(t *testing.T) {
	pairs := map[string]schemaPair{}
	for name, raw := range edgeSchemas {
		pairs[name] = compilePair(t, name, []byte(raw))
	}
	for _, tt := range []struct {
		schema, inst string
		want         bool
	}{
		{"strings", `{"s1":"\ud83d\ude00"}`, true}, // one code point
		{"strings", `{"s1":"\ud83d"}`, true},       // a lone surrogate is U+FFFD
		{"strings", `{"s1":"\ud83d\u0041"}`, false},
		{"strings", "{\"s1\":\"\xff\"}", true},
		{"strings", "{\"s1\":\"\xff\xfe\"}", false}, // two invalid bytes, two U+FFFD
		{"strings", "{\"e\":\"\xff\"}", true},       // U+FFFD is in the enum
		{"strings", `{"p":"\u0061bc"}`, true},
		{"strings", `{"e":{"b":[null]}}`, true},
		{"strings", `{"c":{"x":[1,"\u0079"]}}`, true},
		{"numbers", `{"i":1.0}`, true}, // an integer to JSON Schema (encoding/json refuses it for int)
		{"numbers", `{"i":-0}`, true},
		{"numbers", `{"i":1e400}`, false}, // beyond float64
		{"numbers", `{"n":1e-400}`, true},
		{"numbers", `{"n":1.7976931348623158e308}`, true},
		{"numbers", `{"n":1.7976931348623159e308}`, false},
		{"numbers", `{"b":9007199254740993}`, false}, // 2^53+1 > 2^53, though float64 rounds them equal
		{"numbers", `{"b":9007199254740992}`, true},
		{"numbers", `{"u64":18446744073709551616}`, false},
		{"numbers", `{"u64":18446744073709551615}`, true},
		{"numbers", `{"x":1e-400}`, true},
		{"numbers", `{"x":-1e-400}`, false},
		{"numbers", `{"x":0.9999999999999999999999}`, true},
		{"numbers", `{"m":0.07}`, true},
		{"numbers", `{"m":0.071}`, false},
		{"numbers", `{"m":1e300}`, true},
		{"numbers", `{"m3":9e1}`, true},
		{"numbers", `{"mb":24691357802469135780246}`, true},
		{"numbers", `{"f32":3.4028234663852887e+38}`, false},
		{"formats", `{"t":"0000-01-01T00:00:+0Z"}`, false},
		{"formats", `{"t":"2006-01-02T15:04:05Z"}`, true},
		{"formats", `{"t":"2006-01-02T1:04:05Z"}`, true}, // time.Time takes it
		{"formats", `{"t":"2006-01-02T15:04:60Z"}`, false},
		{"formats", `{"t":"2006-02-29T00:00:00Z"}`, false},
		{"formats", `{"t":"2006-01-02T15:04:05\u005a"}`, false}, // time.Time reads the literal
		{"formats", `{"t":"2006-01-02T15:04:05,5Z"}`, true},
		{"formats", `{"nt":"x"}`, false},
		{"formats", `{"d":"0000-02-29"}`, true},
		{"formats", `{"d":"2006-02-29"}`, false},
		{"formats", `{"e":"a@[+1.2.3.4]"}`, false},
		{"formats", `{"u":"/relative"}`, false},
		{"formats", `{"id":"not-a-uuid"}`, true}, // uuid is an annotation
		{"arrays", `{"u":[1,1.0]}`, false},
		{"arrays", `{"u":[{"a":1,"b":2},{"b":2,"a":1}]}`, false},
		{"arrays", `{"u":` + longArray(25, "3.0") + `}`, false},
		{"arrays", `{"u":` + longArray(25, `"3"`) + `}`, true},
		{"arrays", `{"t":[1,"a",null]}`, false},
		{"maps", `{"m":{"01":1}}`, false},
		{"maps", `{"m":{"1":1,"\u0031":2}}`, false},
		{"oneof", `{"o":1}`, false},
		{"oneof", `{"o":1.5}`, true},
		{"deep", deepArray(3000), true},
		{"open-root", `{"a":1,"\u0061":2}`, false},
		{"open-root", wideObject(20, `"a3":0`), false},
		{"open-root", wideObject(20, `"a\u0033":0`), false},
		{"open-root", wideObject(20, ""), true},
		{"open-root", `{"x":{"b":[],"b":null}}`, false},
		{"open-root", `{"x":[1e400]}`, false},
		{"false-prop", `{"no":1}`, false},
		{"annotations", `{"a":"not base64!"}`, true},
	} {
		sp := pairs[tt.schema]
		if got := sp.agree(t, []byte(tt.inst)); got != tt.want {
			inst := tt.inst
			if len(inst) > 80 {
				inst = inst[:80] + "..."
			}
			t.Errorf("%s: %s: valid = %v, want %v (failures %v)", tt.schema, inst, got, tt.want, sp.node.Explain([]byte(tt.inst)))
		}
	}
}

func TestExplainMessages(t *testing.T) {
	for _, tt := range []struct {
		schema, inst string
		want         []string
	}{
		{"echo", `{"txt":"a","repeat":9}`, []string{
			"(root): additionalProperties: unknown property 'txt'",
			"/repeat: maximum: got a number, want at most 5",
			"(root): required: missing property 'text'"}},
		{"echo", `{"text":"a","text":"b"}`, []string{"/text: the member name 'text' is repeated: a JSON object may hold each name once"}},
		{"open-root", `{"x":{"b":[],"\u0062":null}}`, []string{"/x/b: the member name 'b' is repeated"}},
		{"open-root", `{"x":[1,1e400]}`, []string{"/x/1: got a number: a number is out of range"}},
		{"formats", `{"t":"0000-01-01T00:00:+0Z"}`, []string{`/t: format: got a string of 20 characters, want an RFC 3339 date-time`}},
		{"formats", `{"nt":5}`, []string{"/nt: type: got integer, want string or null"}},
		{"formats", `{"nt":"x"}`, []string{`/nt: format: got a string of 1 character, want an RFC 3339 date-time`}},
		{"notes-output", `{"matches":[{"file":"f","line":1.5,"text":"t"}],"truncated":true}`,
			[]string{"/matches/0/line: type: got number, want integer"}},
		{"tree", `{"name":"a","kids":[{"name":"B"}]}`, []string{`/kids/0/name: pattern: a string of 1 character does not match ^[a-z]+$`}},
		{"strings", `{"s2":"\u00e9"}`, []string{"/s2: minLength: got 1 characters, want at least 2"}},
		{"strings", `{"e":"x"}`, []string{`/e: enum: got a string of 1 character, want one of "é", "éx", "�", 1, 1.5, true, null, an array, an object`}},
		{"maps", `{"m":{"01":1}}`, []string{"/m/01: propertyNames: the name '01' is not allowed"}},
		{"oneof", `{"o":1}`, []string{"/o: oneOf: got a number, which matches alternatives 0 and 1, want exactly one"}},
		{"arrays", `{"u":[1,1.0]}`, []string{"/u: uniqueItems: items 0 and 1 are equal"}},
		{"numbers", `{"m":0.071,"x":0}`, []string{"/m: multipleOf: got a number, want a multiple of 0.01", "/x: exclusiveMinimum: got a number, want more than 0"}},
	} {
		n, err := Compile([]byte(edgeSchemas[tt.schema]), true)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, f := range n.Explain([]byte(tt.inst)) {
			loc := f.Pointer
			if loc == "" {
				loc = "(root)"
			}
			if f.Keyword == "duplicate" || f.Keyword == "range" {
				lines = append(lines, loc+": "+f.Message)
			} else {
				lines = append(lines, loc+": "+f.Keyword+": "+f.Message)
			}
		}
		text := strings.Join(lines, "\n")
		for _, want := range tt.want {
			if !strings.Contains(text, want) {
				t.Errorf("%s %s: explanation\n%s\nlacks %q", tt.schema, tt.inst, text, want)
			}
		}
		if len(lines) != len(tt.want) {
			t.Errorf("%s %s: %d lines, want %d:\n%s", tt.schema, tt.inst, len(lines), len(tt.want), text)
		}
	}
}

func TestExplainBounded(t *testing.T) {
	n, err := Compile([]byte(`{"type":"array","items":{"type":"string"}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	fails := n.Explain([]byte(longArray(100, "")))
	if len(fails) != maxFailures+1 || fails[maxFailures].Message != "and 80 more" {
		t.Errorf("got %d failures, last %+v", len(fails), fails[len(fails)-1])
	}
	deep := strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500)
	fails = Empty.Explain([]byte(strings.Replace(deep, "1", `{"k":1,"k":2}`, 1)))
	if len(fails) != 1 || len(fails[0].Pointer) > maxPointer+3 || !strings.HasSuffix(fails[0].Pointer, "/a/k") {
		t.Errorf("deep repeated name: %+v", fails)
	}
}

func TestCheckSchema(t *testing.T) {
	for _, tt := range []struct{ schema, keyword, pointer string }{
		{`{"type":"object","properties":{"a":{"allOf":[{}]}}}`, "allOf", "/properties/a/allOf"},
		{`{"type":"object","not":{}}`, "not", "/not"},
		{`{"type":"object","patternProperties":{"a":{}}}`, "patternProperties", "/patternProperties"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, "$schema", "/$schema"},
		{`{"type":"object","properties":{"a":{"$ref":"https://example.com/x"}}}`, "$ref", "/properties/a/$ref"},
		{`{"type":"object","$defs":{"a":{"$anchor":"x"}}}`, "$anchor", "/$defs/a/$anchor"},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"(?=a)"}}}`, "pattern", "/properties/a/pattern"},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`, "$ref", ""},
		{`{"type":"object","if":{},"then":{}}`, "if", "/if"},
	} {
		var unsupported *UnsupportedError
		err := Check([]byte(tt.schema))
		if !errors.As(err, &unsupported) || unsupported.Keyword != tt.keyword || unsupported.Pointer != tt.pointer {
			t.Errorf("%s: %v, want keyword %s at %q", tt.schema, err, tt.keyword, tt.pointer)
		}
	}
	for _, schema := range []string{`{"type":"strange"}`, `{"minLength":-1}`, `{"properties":[]}`, `{"multipleOf":0}`, `[]`, `{`} {
		if err := Check([]byte(schema)); err == nil || errors.As(err, new(*UnsupportedError)) {
			t.Errorf("%s: %v, want an invalid-schema error", schema, err)
		}
	}
	for _, schema := range edgeSchemas {
		if err := Check([]byte(schema)); err != nil {
			t.Errorf("%s: %v", schema, err)
		}
	}
}

func TestSchemaValidAllocations(t *testing.T) {
	for _, tt := range []struct{ schema, inst string }{
		{"notes-output", `{"matches":[{"file":"meeting.md","line":3,"text":"the plan"},{"file":"todo.md","line":1,"text":"x"}],"truncated":false}`},
		{"echo", `{"text":"h\u00e9llo","repeat":2}`},
		{"echo", `{"te\u0078t":"a"}`},
		{"formats", `{"t":"2006-01-02T15:04:05.5Z","d":"2006-01-02","nt":null}`},
		{"numbers", `{"i":123456789012345678901234567890,"n":1e-400,"b":9007199254740992,"m":1e300,"x":0.5,"m3":9e1}`},
		{"strings", `{"s1":"\ud83d\ude00","p":"ab\u0063","e":[1.0,{"a":2}],"c":{"x":[1,"y"]}}`},
		{"tree", `{"name":"a","kids":[{"name":"b","kids":null},{"name":"c","kids":[]}]}`},
		{"maps", `{"m":{"1":1,"-2":2}}`},
		{"arrays", `{"u":[1,2,"3",{"a":1}],"t":[1,"a"],"f":[0,255,1]}`},
		{"open-root", `{"a":{"b":[1,2,{"c":null}],"d":"e"},"f":true}`},
	} {
		n, err := Compile([]byte(edgeSchemas[tt.schema]), true)
		if err != nil {
			t.Fatal(err)
		}
		inst := []byte(tt.inst)
		if !n.Valid(inst) {
			t.Fatalf("%s: %s is invalid: %v", tt.schema, inst, n.Explain(inst))
		}
		if allocs := testing.AllocsPerRun(100, func() { n.Valid(inst) }); allocs != 0 {
			t.Errorf("%s: validating %s allocates %v times, want 0", tt.schema, inst, allocs)
		}
	}
}

func TestSchemaClosedTree(t *testing.T) {
	want := map[string]bool{"echo": true, "notes-output": true, "tree": true, "scalars": false,
		"required-undeclared": false, "int-root": true, "open-root": false, "arrays": false, "formats": true}
	for name, closed := range want {
		n, err := Compile([]byte(edgeSchemas[name]), true)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.ClosedTree(map[*Schema]bool{}); got != closed {
			t.Errorf("%s: ClosedTree = %v, want %v", name, got, closed)
		}
	}
}
