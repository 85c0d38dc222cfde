package emit

// views.go: MCP Apps views: the embedded HTML files, their registration
// (runtime/apps.AddView) and a linked tool's _meta.ui.

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// usesApps reports whether p has views or tools with _meta.ui.
func usesApps(p *model.Package) bool {
	for _, t := range p.Tools {
		if t.UI != "" || len(t.Visibility) > 0 {
			return true
		}
	}
	return len(p.Views) > 0
}

// viewImports imports embed (blank) when p has views, and runtime/apps when
// it uses MCP Apps.
func viewImports(f *jen.File, p *model.Package) {
	if len(p.Views) > 0 {
		f.Anon("embed")
	}
	if usesApps(p) {
		f.ImportAlias(model.AppsPath, model.AppsAlias)
	}
}

// viewVars declares the string variable of each view's embedded file.
func viewVars(f *jen.File, p *model.Package) {
	for _, v := range p.Views {
		f.Comment("//go:embed " + v.File)
		f.Var().Id(v.Var).String()
		f.Line()
	}
}

// registerViews registers the MCP Apps extension and p's views with s.
func registerViews(g *jen.Group, p *model.Package) {
	if usesApps(p) {
		g.Qual(model.AppsPath, "Register").Call(jen.Id("s"))
	}
	for _, v := range p.Views {
		g.Qual(model.AppsPath, "AddView").Call(jen.Id("s"), jen.Op("&").Qual(model.AppsPath, "View").Add(viewFields(v)))
	}
}

// viewFields are the fields of v's mcpapps.View literal.
func viewFields(v *model.View) jen.Code {
	fs := []jen.Code{field("URI", jen.Lit(v.URI)), field("Name", jen.Lit(v.Name))}
	if v.Title != "" {
		fs = append(fs, field("Title", jen.Lit(v.Title)))
	}
	fs = append(fs, field("Description", jen.Lit(v.Description)), field("HTML", jen.Id(v.Var)))
	var csp []jen.Code
	for _, l := range []struct {
		name string
		list []string
	}{{"ConnectDomains", v.Connect}, {"ResourceDomains", v.Resource}, {"FrameDomains", v.Frame}, {"BaseURIDomains", v.BaseURI}} {
		if len(l.list) > 0 {
			csp = append(csp, field(l.name, stringsLit(l.list)))
		}
	}
	if len(csp) > 0 {
		fs = append(fs, field("CSP", jen.Qual(model.AppsPath, "CSP").Add(fields(csp...))))
	}
	if len(v.Permissions) > 0 {
		fs = append(fs, field("Permissions", stringsLit(v.Permissions)))
	}
	if v.Domain != "" {
		fs = append(fs, field("Domain", jen.Lit(v.Domain)))
	}
	switch v.Border {
	case "true":
		fs = append(fs, field("PrefersBorder", jen.Qual(model.AppsPath, "BorderOn")))
	case "false":
		fs = append(fs, field("PrefersBorder", jen.Qual(model.AppsPath, "BorderOff")))
	}
	return fields(fs...)
}

// toolMeta is t's Tool.Meta (mcpapps.ToolMeta(resourceURI, visibility...)),
// or nil when t has neither a view nor a visibility.
func toolMeta(t *model.Tool) jen.Code {
	if t.UI == "" && len(t.Visibility) == 0 {
		return nil
	}
	args := []jen.Code{jen.Lit(t.UI)}
	for _, v := range t.Visibility {
		name := "VisibleToModel"
		if v == "app" {
			name = "VisibleToApp"
		}
		args = append(args, jen.Qual(model.AppsPath, name))
	}
	return jen.Qual(model.AppsPath, "ToolMeta").Call(args...)
}
