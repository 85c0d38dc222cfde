package gen

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/mcpgen/mcpgen/gen/model"
)

// elicitForms records every struct type the package passes to mcpruntime.Elicit:
// RegisterMCP registers its requestedSchema with mcpruntime.AddForm. A type
// outside the elicitation subset is reported at its field, or at the call.
func (a *analyzer) elicitForms(s *pkgScan) {
	var ids []*ast.Ident
	for id := range s.p.TypesInfo.Instances {
		if fn, ok := s.p.TypesInfo.Uses[id].(*types.Func); ok && fn.Name() == "Elicit" && fn.Pkg() != nil && fn.Pkg().Path() == model.RuntimePath {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(x, y *ast.Ident) int { return cmp.Compare(x.Pos(), y.Pos()) })
	seen := map[*types.TypeName]bool{}
	for _, id := range ids {
		t := s.p.TypesInfo.Instances[id].TypeArgs.At(0)
		named, ok := types.Unalias(t).(*types.Named)
		if !ok || named.TypeArgs().Len() > 0 {
			a.errorf(id.Pos(), "mcpruntime.Elicit[%s]: a form must be a named, non-generic struct type", t)
			continue
		}
		if _, ok := named.Underlying().(*types.Struct); !ok {
			a.errorf(id.Pos(), "mcpruntime.Elicit[%s]: a form must be a struct type, got %s", t, named.Underlying())
			continue
		}
		if !seen[named.Obj()] {
			seen[named.Obj()] = true
			a.elicitForm(s, named, id.Pos())
		}
	}
}

// elicitForm builds the form of one type passed to Elicit at pos.
func (a *analyzer) elicitForm(s *pkgScan, named *types.Named, pos token.Pos) {
	obj := named.Obj()
	label := fmt.Sprintf("mcpruntime.Elicit[%s]", obj.Name())
	sch, _, diags := a.schemas.Input(named, pos)
	if len(diags) > 0 {
		a.schemaDiags(diags)
		return
	}
	form, problems := restrictForm(sch)
	for _, p := range problems {
		a.errorf(a.fieldPos(obj, p.prop, pos), "%s: %s", label, p.msg)
	}
	if len(problems) > 0 {
		return
	}
	raw := a.marshal(form, pos, label)
	if raw == nil {
		return
	}
	s.mp.Forms = append(s.mp.Forms, &model.Form{
		PkgPath:  obj.Pkg().Path(),
		TypeName: obj.Name(),
		Var:      s.names.fresh("mcp"+upperIdent(obj.Name())+"ElicitationSchema", "Form"),
		Schema:   raw,
		Pos:      a.fset.Position(pos),
	})
}

// fieldPos finds the position of the field whose JSON name is prop, else def.
func (a *analyzer) fieldPos(obj *types.TypeName, prop string, def token.Pos) token.Pos {
	st, _ := obj.Type().Underlying().(*types.Struct)
	for i := 0; st != nil && prop != "" && i < st.NumFields(); i++ {
		f := st.Field(i)
		name, _, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
		if name == prop || name == "" && f.Name() == prop {
			return f.Pos()
		}
	}
	return def
}

// A formProblem is a property outside the elicitation subset.
type formProblem struct {
	prop, msg string
}

// restrictForm rewrites an input schema into the elicitation subset: a flat object
// of string (with minLength, maxLength and the four formats), number, integer and
// boolean properties, single-select enums and multi-select enum lists, each with
// title, description and default. Anything else is a problem.
func restrictForm(in *jsonschema.Schema) (*jsonschema.Schema, []formProblem) {
	out := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: in.Required}
	var problems []formProblem
	if in.Properties == nil || in.Properties.Len() == 0 {
		return nil, []formProblem{{msg: "a form needs at least one exported field"}}
	}
	for key, val := range in.Properties.FromOldest() {
		prop, msg := restrictProperty(unwrapNull(val))
		if msg != "" {
			problems = append(problems, formProblem{key, fmt.Sprintf("field %q: %s", key, msg)})
			continue
		}
		out.Properties.Set(key, prop)
	}
	return out, problems
}

// unwrapNull returns the non-null branch of an optional field's anyOf, keeping the
// field's annotations.
func unwrapNull(s *jsonschema.Schema) *jsonschema.Schema {
	if len(s.AnyOf) != 2 {
		return s
	}
	for i, b := range s.AnyOf {
		if b.Type == "null" {
			inner := *s.AnyOf[1-i]
			inner.Title, inner.Description = firstNonEmpty(s.Title, inner.Title), firstNonEmpty(s.Description, inner.Description)
			if s.Default != nil {
				inner.Default = s.Default
			}
			return &inner
		}
	}
	return s
}

// firstNonEmpty returns a if set, else b.
func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// restrictProperty keeps the keywords a form property may have, or explains why
// the property cannot be in a form.
func restrictProperty(s *jsonschema.Schema) (*jsonschema.Schema, string) {
	out := &jsonschema.Schema{Type: s.Type, Title: s.Title, Description: s.Description, Default: s.Default}
	switch {
	case s.Ref != "" || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || len(s.AllOf) > 0:
		return nil, "forms allow only string, number, integer, boolean and enum fields"
	case s.Type == "string":
		if s.Pattern != "" {
			return nil, "forms cannot constrain a string with a pattern"
		}
		switch s.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return nil, fmt.Sprintf("format %q is not one of email, uri, date, date-time", s.Format)
		}
		out.MinLength, out.MaxLength, out.Format, out.Enum = s.MinLength, s.MaxLength, s.Format, s.Enum
	case s.Type == "number" || s.Type == "integer":
		if s.ExclusiveMinimum != "" || s.ExclusiveMaximum != "" || s.MultipleOf != "" {
			return nil, "forms allow only minimum and maximum on numbers"
		}
		out.Minimum, out.Maximum = s.Minimum, s.Maximum
	case s.Type == "boolean":
	case s.Type == "array" && s.Items != nil && s.Items.Type == "string" && len(s.Items.Enum) > 0:
		out.Items = &jsonschema.Schema{Type: "string", Enum: s.Items.Enum}
		out.MinItems, out.MaxItems = s.MinItems, s.MaxItems
	case s.Type == "array":
		return nil, "a list field must be a slice of an enum type (a multi-select)"
	default:
		return nil, fmt.Sprintf("type %q cannot be a form field (forms are flat: string, number, integer, boolean, enums)", s.Type)
	}
	return out, ""
}
