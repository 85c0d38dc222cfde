package schema

import (
	"go/types"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
)

const apiSrc = `package p

type In struct {
	Name string
	F    func()
	C    chan int
}

//mcp:schema {"type":"string"}
type Custom struct{ X int }

type Ok struct{ A int }
`

// TestPointerRoots checks that a pointer root is described by its element.
func TestPointerRoots(t *testing.T) {
	p := load(t, apiSrc)
	ok := p.lookup(t, "Ok")
	ptr := types.NewPointer(ok)
	in1, _, _ := p.b.Input(ok, 0)
	in2, _, _ := p.b.Input(ptr, 0)
	out1, _ := p.b.Output(ok, 0)
	out2, _ := p.b.Output(ptr, 0)
	for _, pair := range [][2]any{{in1, in2}, {out1, out2}} {
		a, _ := Marshal(pair[0].(*jsonschema.Schema))
		b, _ := Marshal(pair[1].(*jsonschema.Schema))
		if diff := cmp.Diff(string(a), string(b)); diff != "" {
			t.Errorf("pointer root differs (-T +*T):\n%s", diff)
		}
	}
}

// TestDiagnosticsRepeat checks that a second call over the same (cached)
// types reports the same sorted diagnostics.
func TestDiagnosticsRepeat(t *testing.T) {
	p := load(t, apiSrc)
	in := p.lookup(t, "In")
	_, _, first := p.b.Input(in, 0)
	_, _, second := p.b.Input(in, 0)
	if len(first) != 2 {
		t.Fatalf("got %d diagnostics, want 2: %v", len(first), first)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second call differs (-first +second):\n%s", diff)
	}
	if !strings.Contains(first[0].Msg, "In.F: func") || !strings.Contains(first[1].Msg, "In.C: chan") {
		t.Errorf("diagnostics not sorted by position: %v", first)
	}
}

// TestInputRootMustBeObject checks the input root rule, also for a type
// whose schema is given by a directive.
func TestInputRootMustBeObject(t *testing.T) {
	p := load(t, apiSrc)
	for _, tt := range []struct {
		typ  types.Type
		want string
	}{
		{p.lookup(t, "Custom"), "its //mcp:schema must describe an object"},
		{types.Typ[types.String], "input type string must be a struct"},
		{types.NewSlice(p.lookup(t, "Ok")), "input type []p.Ok must be a struct"},
	} {
		_, _, diags := p.b.Input(tt.typ, 0)
		if len(diags) != 1 || !strings.Contains(diags[0].Msg, tt.want) {
			t.Errorf("Input(%s): got %v, want one diagnostic containing %q", tt.typ, diags, tt.want)
		}
	}
	if _, diags := p.b.Output(p.lookup(t, "Custom"), 0); len(diags) != 0 {
		t.Errorf("Output(Custom): got %v, want none (any output root is fine)", diags)
	}
}
