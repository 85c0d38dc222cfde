package profile

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
)

// checkAll returns the findings of profile name as "ptr: msg" lines.
func checkAll(t *testing.T, name, schema string) []string {
	t.Helper()
	p, ok := Lookup(name)
	if !ok {
		t.Fatalf("no profile %s", name)
	}
	fs, err := p.Check(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Ptr+": "+f.Msg)
	}
	return out
}

const closedObject = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`

func TestCheck(t *testing.T) {
	tests := []struct {
		profile, schema string
		want            []string // substrings, one per finding, in order
	}{
		{"openai", closedObject, nil},
		{"anthropic", closedObject, nil},
		{"gemini", closedObject, nil},
		{"openai", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
			[]string{`/properties/b: property "b" is optional`}},
		{"openai", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["m"],"additionalProperties":false}`,
			[]string{"/properties/m: an object with arbitrary keys"}},
		{"openai", `{"type":"object","properties":{"s":{"type":"string","minLength":1,"format":"uri","uniqueItems":true},"x":{}},"required":["s","x"]}`,
			[]string{`: OpenAI strict mode requires "additionalProperties": false`, `/properties/s: format "uri"`, `/properties/s: keyword "uniqueItems"`, "/properties/x: a schema without a type"}},
		{"openai", `{"type":"object","properties":{"n":{"type":"integer","default":3}},"required":["n"],"additionalProperties":false}`,
			[]string{`/properties/n: keyword "default" is not supported by OpenAI strict mode (-strict=openai moves`}},
		{"anthropic", `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}`,
			[]string{`: "anyOf" at the top level`}},
		{"anthropic", `{"type":"string"}`, []string{`: Anthropic requires "type": "object"`}},
		{"gemini", `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":"integer","enum":[1,2]},"c":{"$ref":"#/$defs/C"}},"$defs":{"C":{"type":"string","format":"uuid"}}}`,
			[]string{`: keyword "$defs"`, `/$defs/C: format "uuid"`, "/properties/a: a list of types", "/properties/b: enum value 1", `/properties/c: keyword "$ref"`}},
		{"gemini", `{"type":"object","additionalProperties":{"type":"string"}}`, []string{": an object with arbitrary keys"}},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", i, tt.profile), func(t *testing.T) {
			got := checkAll(t, tt.profile, tt.schema)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d findings, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("finding %d = %q, want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestOpenAILimits checks the nesting and size limits.
func TestOpenAILimits(t *testing.T) {
	deep := `{"type":"string"}`
	for range 11 {
		deep = `{"type":"object","properties":{"x":` + deep + `},"required":["x"],"additionalProperties":false}`
	}
	got := checkAll(t, "openai", deep)
	if len(got) != 1 || !strings.Contains(got[0], "nest 11 levels") {
		t.Errorf("deep: got %q, want one nesting finding", got)
	}
	var vals []string
	for i := range 1001 {
		vals = append(vals, fmt.Sprintf(`"v%d"`, i))
	}
	enum := `{"type":"object","properties":{"e":{"type":"string","enum":[` + strings.Join(vals, ",") + `]}},"required":["e"],"additionalProperties":false}`
	got = checkAll(t, "openai", enum)
	if len(got) != 1 || !strings.Contains(got[0], "1001 enum values") {
		t.Errorf("enum: got %q, want one enum-count finding", got)
	}
}

// TestOpenAIStrict checks the rewrite: optional properties become required
// and nullable, defaults become text, and the result passes the openai
// profile while the input does not.
func TestOpenAIStrict(t *testing.T) {
	var s jsonschema.Schema
	src := `{"type":"object","properties":{
		"q":{"type":"string"},
		"limit":{"description":"Max hits.","type":"integer","default":10},
		"tags":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},
		"opt":{"anyOf":[{"type":"object","properties":{"deep":{"type":"boolean"}},"additionalProperties":false},{"type":"null"}]},
		"data":{"type":"string","contentEncoding":"base64"}
	},"required":["q","data"],"additionalProperties":false}`
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	before := checkAll(t, "openai", src)
	if len(before) == 0 {
		t.Fatal("the precise schema passes the openai profile; the test proves nothing")
	}
	out, origin, findings := OpenAIStrict(&s)
	if len(findings) > 0 {
		t.Errorf("findings: %v", findings)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if after := checkAll(t, "openai", string(raw)); len(after) > 0 {
		t.Errorf("strict form still rejected:\n%s\n%s", strings.Join(after, "\n"), raw)
	}
	for _, want := range []string{`"required":["q","limit","tags","opt","data"]`, `"description":"Max hits. Default: 10."`,
		`"limit":{"anyOf":[{"type":"integer"},{"type":"null"}],"description":"Max hits. Default: 10."}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("strict form lacks %s:\n%s", want, raw)
		}
	}
	if strings.Contains(string(raw), "contentEncoding") || strings.Contains(string(raw), `"default"`) {
		t.Errorf("strict form keeps annotations OpenAI rejects:\n%s", raw)
	}
	if got := origin["/properties/limit/anyOf/0"]; got != "/properties/limit" {
		t.Errorf("origin of the wrapped limit = %q, want /properties/limit", got)
	}
	if got := origin["/properties/opt/anyOf/0/properties/deep"]; got != "/properties/opt/anyOf/0/properties/deep" {
		t.Errorf("origin of opt.deep = %q", got)
	}
	if s.Properties.Value("limit").Default == nil {
		t.Error("OpenAIStrict modified its input")
	}
}

// TestOpenAIStrictNullErasesDefault checks that a nullable optional
// property with a default is reported.
func TestOpenAIStrictNullErasesDefault(t *testing.T) {
	var s jsonschema.Schema
	src := `{"type":"object","properties":{"tags":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}],"default":["a"]}},"additionalProperties":false}`
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	_, _, findings := OpenAIStrict(&s)
	if len(findings) != 1 || findings[0].Ptr != "/properties/tags" {
		t.Errorf("findings = %v, want one at /properties/tags", findings)
	}
}
