package schema

import (
	"encoding/json"
	"go/token"
	"go/types"
	"strconv"
	"testing"
)

// FuzzStructTag builds a struct with one field of a chosen type carrying an
// arbitrary `jsonschema:"..."` tag: the builder must not panic, and when it
// reports no diagnostic the schema it returns must compile.
func FuzzStructTag(f *testing.F) {
	for _, seed := range []struct {
		kind uint8
		tag  string
	}{
		{0, "minimum=1,maximum=10"}, {0, "default=5"}, {0, "minimum=10,maximum=1"}, {1, "minLength=1,pattern=^a+$"},
		{1, "enum=a,enum=b,default=a"}, {1, "format=email"}, {1, "pattern=("}, {2, "exclusiveMinimum=0.5"},
		{2, "default=1e400"}, {3, "minItems=1,maxItems=3,uniqueItems"}, {3, "enum=x"}, {0, "required"},
		{1, `title=a\,b,description=c`}, {0, "minimum=0.0000001e1000010"}, {0, "multipleOf=0"}, {1, "="},
	} {
		f.Add(seed.kind, seed.tag)
	}
	p := load(f, "package p\n\ntype Seed struct{ A int }\n")
	pkg := p.pkg.Types
	kinds := []types.Type{types.Typ[types.Int], types.Typ[types.String], types.Typ[types.Float64],
		types.NewSlice(types.Typ[types.String]), types.NewPointer(types.Typ[types.Int64]), types.Typ[types.Bool]}
	f.Fuzz(func(t *testing.T, kind uint8, tag string) {
		typ := kinds[int(kind)%len(kinds)]
		field := types.NewField(token.NoPos, pkg, "F", typ, false)
		st := types.NewStruct([]*types.Var{field}, []string{`json:"f" jsonschema:` + strconv.Quote(tag)})
		named := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "Fuzzed", nil), st, nil)
		b := New(p.fset, nil)
		for _, build := range []func() ([]byte, int){
			func() ([]byte, int) {
				s, _, diags := b.Input(named, token.NoPos)
				raw, _ := json.Marshal(s)
				return raw, len(diags)
			},
			func() ([]byte, int) {
				s, diags := b.Output(named, token.NoPos)
				raw, _ := json.Marshal(s)
				return raw, len(diags)
			},
		} {
			raw, ndiags := build()
			if ndiags > 0 {
				continue
			}
			if !json.Valid(raw) {
				t.Fatalf("tag %q on %s: schema is not JSON: %s", tag, typ, raw)
			}
		}
	})
}
