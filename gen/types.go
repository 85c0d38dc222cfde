package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/types"
	"strconv"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// errUnnamable reports a type the generated code cannot spell.
var errUnnamable = errors.New("cannot be written in generated code: declare a named type")

// modelType converts a go/types type to the model's type expression.
func modelType(t types.Type) (*model.Type, error) {
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		return &model.Type{Kind: model.Basic, Name: t.Name()}, nil
	case *types.Named:
		return namedType(t)
	case *types.Pointer:
		return wrapType(model.Pointer, t.Elem(), 0)
	case *types.Slice:
		return wrapType(model.Slice, t.Elem(), 0)
	case *types.Array:
		return wrapType(model.Array, t.Elem(), t.Len())
	case *types.Map:
		m, err := wrapType(model.Map, t.Elem(), 0)
		if err != nil {
			return nil, err
		}
		m.Key, err = modelType(t.Key())
		return m, err
	case *types.Interface:
		if t.Empty() {
			return &model.Type{Kind: model.Interface}, nil
		}
	}
	return nil, errUnnamable
}

// wrapType is a Pointer, Slice, Array or Map type with element elem.
func wrapType(kind model.TypeKind, elem types.Type, n int64) (*model.Type, error) {
	e, err := modelType(elem)
	if err != nil {
		return nil, err
	}
	return &model.Type{Kind: kind, Elem: e, Len: n}, nil
}

// namedType converts a defined type, with its type arguments.
func namedType(t *types.Named) (*model.Type, error) {
	obj := t.Obj()
	if obj.Pkg() == nil { // error, comparable
		return &model.Type{Kind: model.Basic, Name: obj.Name()}, nil
	}
	if obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() {
		return nil, fmt.Errorf("%s is declared inside a function: %w", obj.Name(), errUnnamable)
	}
	m := &model.Type{Kind: model.Named, Name: obj.Name(), Path: obj.Pkg().Path(), PkgName: obj.Pkg().Name()}
	for i := range t.TypeArgs().Len() {
		a, err := modelType(t.TypeArgs().At(i))
		if err != nil {
			return nil, err
		}
		m.Args = append(m.Args, a)
	}
	return m, nil
}

// modelDefaults converts the schema builder's defaults, writing scalars of
// basic underlying type as Go constants and everything else as JSON.
func modelDefaults(ds []schema.Default) []model.Default {
	var out []model.Default
	for _, d := range ds {
		out = append(out, model.Default{Path: d.Path, GoLit: goLiteral(d.Type, d.JSON), JSON: json.RawMessage(d.JSON)})
	}
	return out
}

// goLiteral returns the Go constant for the JSON value v of a field of type t,
// or "" when v is not a scalar matching t's basic underlying type.
func goLiteral(t types.Type, v string) string {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return ""
	}
	var x any
	if err := json.Unmarshal([]byte(v), &x); err != nil {
		return ""
	}
	info := b.Info()
	switch x := x.(type) {
	case bool:
		if info&types.IsBoolean != 0 {
			return strconv.FormatBool(x)
		}
	case string:
		if info&types.IsString != 0 {
			return strconv.Quote(x)
		}
	case float64:
		if info&types.IsNumeric != 0 && info&types.IsComplex == 0 {
			return v
		}
	}
	return ""
}
