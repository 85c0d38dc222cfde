package emit

// views.go: MCP Apps views: the embedded HTML files, their registration
// (runtime/apps.AddView) and a linked tool's _meta.ui.

import (
	"encoding/json"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// viewImports imports embed (blank) and runtime/apps when p has views.
func viewImports(f *jen.File, p *model.Package) {
	if len(p.Views) == 0 {
		return
	}
	f.Anon("embed")
	f.ImportAlias(model.AppsPath, model.AppsAlias)
}

// viewVars declares the string variable of each view's embedded file.
func viewVars(f *jen.File, p *model.Package) {
	for _, v := range p.Views {
		f.Comment("//go:embed " + v.File)
		f.Var().Id(v.Var).String()
		f.Line()
	}
}

// registerViews registers p's views with s.
func registerViews(g *jen.Group, p *model.Package) {
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

// toolMeta is t's Tool.Meta ({"ui":{"resourceUri":...,"visibility":[...]}}),
// or nil when t has neither a view nor a visibility.
func toolMeta(t *model.Tool) jen.Code {
	if t.UI == "" && len(t.Visibility) == 0 {
		return nil
	}
	ui := struct {
		ResourceURI string   `json:"resourceUri,omitempty"`
		Visibility  []string `json:"visibility,omitempty"`
	}{t.UI, t.Visibility}
	b, err := json.Marshal(map[string]any{"ui": ui})
	if err != nil {
		panic(err) // strings only
	}
	return jen.Qual("encoding/json", "RawMessage").Call(rawLit(b))
}
