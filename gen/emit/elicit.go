package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// formVars emits the requestedSchema of each type the package passes to
// mcpruntime.Elicit.
func formVars(f *jen.File, r *rawLits, p *model.Package) {
	for _, form := range p.Forms {
		f.Var().Id(form.Var).Op("=").Add(rawJSON(r, form.Schema))
		f.Line()
	}
}

// registerForms registers each form's requestedSchema in RegisterMCP.
func registerForms(g *jen.Group, p *model.Package) {
	for _, form := range p.Forms {
		g.Add(rt("AddForm")).Types(jen.Qual(form.PkgPath, form.TypeName)).Call(jen.Id("s"), jen.Id(form.Var))
	}
}
