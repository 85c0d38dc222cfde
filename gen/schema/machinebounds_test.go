package schema

import (
	"testing"

	"github.com/invopop/jsonschema"
)

// TestDropMachineBounds checks that the bounds of 64-bit integers go, those
// of narrow types and tags stay, and a subschema shared with another schema
// is copied, never changed in place.
func TestDropMachineBounds(t *testing.T) {
	i64 := &jsonschema.Schema{Type: "integer", Minimum: "-9223372036854775808", Maximum: "9223372036854775807"}
	u64 := &jsonschema.Schema{Type: "integer", Minimum: "0", Maximum: "18446744073709551615"}
	i32 := &jsonschema.Schema{Type: "integer", Minimum: "-2147483648", Maximum: "2147483647"}
	tagged := &jsonschema.Schema{Type: "integer", Minimum: "1", Maximum: "9223372036854775807"}
	root := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties()}
	root.Properties.Set("a", i64)
	root.Properties.Set("b", &jsonschema.Schema{Type: "array", Items: u64})
	root.Properties.Set("c", i32)
	root.Properties.Set("d", &jsonschema.Schema{AnyOf: []*jsonschema.Schema{tagged, {Type: "null"}}})
	got := dropMachineBounds(root)
	if got == root || i64.Maximum == "" || u64.Maximum == "" || tagged.Maximum == "" {
		t.Fatal("the input schema was changed in place")
	}
	p := func(name string) *jsonschema.Schema { s, _ := got.Properties.Get(name); return s }
	if s := p("a"); s.Minimum != "" || s.Maximum != "" {
		t.Errorf("int64 kept its bounds: %+v", s)
	}
	if s := p("b").Items; s.Minimum != "0" || s.Maximum != "" {
		t.Errorf("uint64: minimum %q maximum %q, want 0 and none", s.Minimum, s.Maximum)
	}
	if s := p("c"); s != i32 {
		t.Errorf("int32 changed: %+v", s)
	}
	if s := p("d").AnyOf[0]; s.Minimum != "1" || s.Maximum != "" {
		t.Errorf("tagged: minimum %q maximum %q, want 1 and none", s.Minimum, s.Maximum)
	}
}
