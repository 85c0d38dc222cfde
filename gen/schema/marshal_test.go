package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
)

const wrapSrc = `package p

// Node is a tree.
type Node struct {
	Name string ` + "`json:\"name\"`" + `
	Kids []Node ` + "`json:\"kids\"`" + `
}

// Msg says ` + "`hi`" + ` & <bye>.
type Msg struct{ Text string }

type Names []string
`

func TestLegacyWrap(t *testing.T) {
	p := load(t, wrapSrc)
	tests := []struct {
		root   string
		object bool
		want   string
	}{
		{"Msg", true, ""},
		{"Names", false, `{
  "type": "object",
  "properties": {
    "result": {
      "anyOf": [
        {
          "type": "array",
          "items": {
            "type": "string"
          }
        },
        {
          "type": "null"
        }
      ]
    }
  },
  "required": [
    "result"
  ],
  "additionalProperties": false
}`},
	}
	for _, tt := range tests {
		s, diags := p.b.Output(p.lookup(t, tt.root), 0)
		if len(diags) > 0 {
			t.Fatalf("%s: %v", tt.root, diags)
		}
		if got := IsObjectRoot(s); got != tt.object {
			t.Errorf("IsObjectRoot(%s) = %v, want %v", tt.root, got, tt.object)
		}
		if tt.want == "" {
			continue
		}
		js, err := Marshal(LegacyWrap(s))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, string(js)); diff != "" {
			t.Errorf("LegacyWrap(%s) mismatch (-want +got):\n%s", tt.root, diff)
		}
	}
}

// TestLegacyWrapMovesDefs checks that a wrapped recursive schema keeps its
// $refs resolvable: the $defs sit at the wrapper's root.
func TestLegacyWrapMovesDefs(t *testing.T) {
	p := load(t, wrapSrc)
	s, _ := p.b.Output(p.lookup(t, "Node"), 0)
	w := LegacyWrap(s)
	if len(w.Definitions) != 1 || w.Definitions["Node"] == nil {
		t.Fatalf("wrapper $defs = %v, want Node", w.Definitions)
	}
	inner, _ := w.Properties.Get("result")
	if inner.Definitions != nil {
		t.Errorf("wrapped schema still has $defs")
	}
	if s.Definitions == nil {
		t.Errorf("LegacyWrap modified its argument")
	}
	js, err := Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := metaValidateJSON(js); err != nil {
		t.Fatalf("wrapper fails the metaschema: %v", err)
	}
	v, err := compile(w)
	if err != nil {
		t.Fatalf("refs do not resolve: %v", err)
	}
	if err := validate(v, []byte(`{"result":{"name":"a","kids":[{"name":"b","kids":null}]}}`)); err != nil {
		t.Errorf("valid wrapped value rejected: %v", err)
	}
	if err := validate(v, []byte(`{"result":{"name":"a","kids":[{"name":"b"}]}}`)); err == nil {
		t.Errorf("nested value without its required property accepted")
	}
}

func TestMarshalEscapesBackquote(t *testing.T) {
	p := load(t, wrapSrc)
	s, _ := p.b.Output(p.lookup(t, "Msg"), 0)
	js, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "`") {
		t.Errorf("Marshal left a backquote: %s", js)
	}
	if !strings.Contains(string(js), `says \u0060hi\u0060 & <bye>.`) {
		t.Errorf("description not kept readable: %s", js)
	}
}

// TestDeterministic builds the same schemas with fresh builders and with a
// shared one (served from its cache) and wants the same bytes each time.
func TestDeterministic(t *testing.T) {
	p := load(t, wrapSrc)
	var first string
	for i := range 5 {
		b := p.b
		if i%2 == 1 {
			b = New(p.fset, nil)
			b.docs = p.b.docs
		}
		s, _ := b.Output(p.lookup(t, "Node"), 0)
		js, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = string(js)
		} else if diff := cmp.Diff(first, string(js)); diff != "" {
			t.Fatalf("run %d differs (-first +got):\n%s", i, diff)
		}
	}
}

func TestMarshalBooleanAndEmpty(t *testing.T) {
	s := &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema,
		Properties: jsonschema.NewProperties()}
	s.Properties.Set("any", &jsonschema.Schema{})
	s.Properties.Set("yes", jsonschema.TrueSchema)
	js, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "type": "object",
  "properties": {
    "any": {},
    "yes": true
  },
  "additionalProperties": false
}`
	if diff := cmp.Diff(want, string(js)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
