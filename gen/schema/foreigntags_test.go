package schema

import (
	"reflect"
	"testing"
)

// TestFixTag pins how each dialect reads tags and what -fix writes.
func TestFixTag(t *testing.T) {
	tests := []struct {
		d       Dialect
		tag     string
		hasDoc  bool
		ok      bool
		newTag  string
		doc     string
		comment string
	}{
		// mcpgen's own grammar needs nothing.
		{"", `json:"a" jsonschema:"minimum=1,maximum=3"`, false, false, `json:"a" jsonschema:"minimum=1,maximum=3"`, "", "keys"},
		{"", `json:"a" jsonschema:"required,description=x"`, false, false, `json:"a" jsonschema:"required,description=x"`, "", "invopop's keys are mcpgen's"},
		{"", `json:"a" jsonschema:"minimum"`, false, false, `json:"a" jsonschema:"minimum"`, "", "a key without value is mcpgen's mistake"},
		{"", `json:"a"`, false, false, `json:"a"`, "", "no tag"},
		// The official Go SDK's style.
		{"", `json:"a" jsonschema:"the city, e.g. Paris"`, false, true, `json:"a"`, "the city, e.g. Paris", "text: a doc comment"},
		{"", `json:"a" jsonschema:"the city, e.g. Paris"`, true, true, `json:"a" jsonschema:"description=the city\\, e.g. Paris"`, "", "a commented field: description="},
		{"", `json:"a" jsonschema:"City"`, false, true, `json:"a"`, "City", "one word"},
		{DialectGoSDK, `json:"a" jsonschema:"required"`, false, true, `json:"a"`, "required", "the SDK reads even required as text"},
		{DialectGoSDK, `json:"a" jsonschema:"the order,enum=a,enum=b"`, false, true, `json:"a"`, "the order,enum=a,enum=b", "the SDK reads the whole tag"},
		{DialectGoSDK, `json:"a" jsonschema:"minimum=1"`, false, false, `json:"a" jsonschema:"minimum=1"`, "", "WORD= is mcpgen's grammar"},
		// mcp-go's styles.
		{"", `json:"a" jsonschema:"the order,enum=a,enum=b"`, false, true, `json:"a" jsonschema:"enum=a,enum=b"`, "the order", "text and enum"},
		{"", `json:"a" jsonschema_description:"d" jsonschema:"enum=a"`, false, true, `json:"a" jsonschema:"enum=a"`, "d", "jsonschema_description"},
		{DialectMCPGo, `json:"a" jsonschema_description:"d" jsonschema:"text"`, false, true, `json:"a"`, "d", "jsonschema_description wins over text"},
		{DialectMCPGo, `json:"a" jsonschema_description:"d" jsonschema:"description=e"`, false, true, `json:"a"`, "e", "description= wins over jsonschema_description"},
		{"", `json:"a,required"`, false, true, `json:"a"`, "", "json required"},
		{"", `json:"a,omitempty,required"`, false, true, `json:"a,omitempty" jsonschema:"required"`, "", "json required with omitempty"},
		{"", `json:"a" jsonschema:"description=a, b"`, false, true, `json:"a"`, "a, b", "unescaped comma in description="},
		{"", `json:"a" jsonschema:"nullable,minimum=1"`, false, true, `json:"a" jsonschema:"nullable,minimum=1"`, "", "an invopop-only key stays, for the next run to report"},
		{"", `json:"a" jsonschema:"the count,nullable,minimum=1"`, false, true, `json:"a" jsonschema:"nullable,minimum=1"`, "the count", "an invopop-only key stays, the text moves"},
		{"", `json:"a" jsonschema:"nullable,the count"`, false, true, `json:"a"`, "nullable,the count", "text without keys: the SDK reads it whole"},
		{"", `json:"a" jsonschema:" enum=x "`, false, false, `json:"a" jsonschema:" enum=x "`, "", "spaces around an entry are mcpgen's"},
	}
	for _, tc := range tests {
		newTag, doc, ok := FixTag(tc.d, tc.tag, tc.hasDoc, false)
		if ok != tc.ok || newTag != tc.newTag || doc != tc.doc {
			t.Errorf("%s: FixTag(%q, %q, %v) = %q, %q, %v; want %q, %q, %v",
				tc.comment, tc.d, tc.tag, tc.hasDoc, newTag, doc, ok, tc.newTag, tc.doc, tc.ok)
		}
	}
}

// TestFixTagPointer pins the other libraries' rule that a pointer field
// without omitempty is required (and nullable), which mcpgen needs spelled
// out as jsonschema:"required".
func TestFixTagPointer(t *testing.T) {
	tests := []struct {
		d      Dialect
		tag    string
		ok     bool
		newTag string
	}{
		{DialectGoSDK, `json:"a"`, true, `json:"a" jsonschema:"required"`},
		{DialectMCPGo, `json:"a" jsonschema:"minimum=1"`, true, `json:"a" jsonschema:"minimum=1,required"`},
		{DialectGoSDK, `json:"a,omitempty"`, false, `json:"a,omitempty"`},
		{DialectGoSDK, `json:"a" jsonschema:"required=false"`, false, `json:"a" jsonschema:"required=false"`},
		{DialectMCPGen, `json:"a"`, false, `json:"a"`}, // mcpgen's own rule: optional
	}
	for _, tc := range tests {
		newTag, _, ok := FixTag(tc.d, tc.tag, false, true)
		if ok != tc.ok || newTag != tc.newTag {
			t.Errorf("FixTag(%q, %q, pointer) = %q, %v; want %q, %v", tc.d, tc.tag, newTag, ok, tc.newTag, tc.ok)
		}
	}
}

func TestParseStructTag(t *testing.T) {
	tag := `json:"a,omitempty" jsonschema:"x\"y" other:""`
	want := []tagPair{{"json", "a,omitempty"}, {"jsonschema", `x"y`}, {"other", ""}}
	if got := parseStructTag(tag); !reflect.DeepEqual(got, want) {
		t.Errorf("parseStructTag(%q) = %q, want %q", tag, got, want)
	}
	if got := formatStructTag(want); got != tag {
		t.Errorf("formatStructTag = %q, want %q", got, tag)
	}
	for _, p := range want {
		if v, _ := reflect.StructTag(tag).Lookup(p.key); v != p.value {
			t.Errorf("reflect reads %s as %q, parseStructTag as %q", p.key, v, p.value)
		}
	}
}

func TestParseDialect(t *testing.T) {
	for _, s := range []string{"", "gosdk", "mcpgo"} {
		if d, err := ParseDialect(s); err != nil || string(d) != s {
			t.Errorf("ParseDialect(%q) = %q, %v", s, d, err)
		}
	}
	if _, err := ParseDialect("invopop"); err == nil {
		t.Error("ParseDialect(invopop): no error")
	}
}
