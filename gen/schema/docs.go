package schema

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"
)

// schemaDirective is the directive, in a type's doc comment, that gives the
// schema of a type by hand.
const schemaDirective = "//mcp:schema "

// A directive is a //mcp:schema line found in a type's doc comment.
type directive struct {
	pos  token.Pos
	json string
}

// docIndex holds the doc comments of the loaded packages' types and fields.
type docIndex struct {
	types      map[*types.TypeName]string
	fields     map[*types.Var]string
	directives map[*types.TypeName]directive
}

// indexDocs walks the syntax of pkgs (and their imports, when loaded with
// syntax) and records doc comments by object.
func indexDocs(pkgs []*packages.Package) *docIndex {
	d := &docIndex{
		types:      map[*types.TypeName]string{},
		fields:     map[*types.Var]string{},
		directives: map[*types.TypeName]directive{},
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.TypesInfo == nil {
			return
		}
		for _, f := range p.Syntax {
			d.file(p.TypesInfo, f)
		}
	})
	return d
}

func (d *docIndex) file(info *types.Info, f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			if n.Tok != token.TYPE {
				return true
			}
			for _, spec := range n.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(n.Specs) == 1 {
					doc = n.Doc
				}
				d.typeSpec(info, ts, doc)
			}
		case *ast.StructType:
			d.structType(info, n)
		}
		return true
	})
}

func (d *docIndex) typeSpec(info *types.Info, ts *ast.TypeSpec, doc *ast.CommentGroup) {
	tn, ok := info.Defs[ts.Name].(*types.TypeName)
	if !ok || doc == nil {
		return
	}
	if text := cleanDoc(doc); text != "" {
		d.types[tn] = text
	}
	for _, c := range doc.List {
		if rest, ok := strings.CutPrefix(c.Text, schemaDirective); ok {
			d.directives[tn] = directive{pos: c.Slash, json: strings.TrimSpace(rest)}
		}
	}
}

func (d *docIndex) structType(info *types.Info, st *ast.StructType) {
	for _, f := range st.Fields.List {
		doc := f.Doc
		if doc == nil {
			doc = f.Comment
		}
		text := cleanDoc(doc)
		if text == "" {
			continue
		}
		for _, name := range f.Names {
			if v, ok := info.Defs[name].(*types.Var); ok {
				d.fields[v] = text
			}
		}
		if len(f.Names) == 0 { // embedded field
			if v, ok := info.Implicits[f].(*types.Var); ok {
				d.fields[v] = text
			} else if v := embeddedVar(info, f); v != nil {
				d.fields[v] = text
			}
		}
	}
}

// embeddedVar finds the field object of an embedded field.
func embeddedVar(info *types.Info, f *ast.Field) *types.Var {
	t := f.Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		v, _ := info.Defs[t].(*types.Var)
		return v
	case *ast.SelectorExpr:
		v, _ := info.Defs[t.Sel].(*types.Var)
		return v
	case *ast.IndexExpr:
		return embeddedVar(info, &ast.Field{Type: t.X})
	case *ast.IndexListExpr:
		return embeddedVar(info, &ast.Field{Type: t.X})
	}
	return nil
}

// cleanDoc returns the text of a comment group without directives, trimmed.
func cleanDoc(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// typeDoc returns the doc comment of a named type (of its generic origin).
func (d *docIndex) typeDoc(n *types.Named) string {
	return d.types[n.Origin().Obj()]
}

// typeDoc returns the doc comment of a named type from a local package.
func (b *Builder) typeDoc(n *types.Named) string {
	if !b.isLocal(n.Obj().Pkg()) {
		return ""
	}
	return b.docs.typeDoc(n)
}

// fieldDoc returns the doc of a struct field from a local package.
func (b *Builder) fieldDoc(v *types.Var) string {
	if !b.isLocal(v.Pkg()) {
		return ""
	}
	return b.docs.fieldDoc(v)
}

// fieldDoc returns the doc or line comment of a struct field.
func (d *docIndex) fieldDoc(v *types.Var) string {
	return d.fields[v.Origin()]
}
