package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/gen/schema"
)

// An edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// fixFiles rewrites the struct tags of the fields at positions (found by
// the schema builder while reading them in another library's convention)
// into mcpgen's convention: a description becomes the field's doc comment
// (or description= in the jsonschema tag when the field already has a
// comment), and the rest becomes mcpgen's jsonschema keys. It returns the
// changed files, gofmt-clean.
func fixFiles(positions []token.Position, dialect string) ([]File, []Diagnostic) {
	byFile := map[string][]token.Position{}
	var names []string
	for _, p := range positions {
		if _, ok := byFile[p.Filename]; !ok {
			names = append(names, p.Filename)
		}
		byFile[p.Filename] = append(byFile[p.Filename], p)
	}
	slices.Sort(names)
	var files []File
	var diags []Diagnostic
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			diags = append(diags, Diagnostic{Pos: token.Position{Filename: name}, Msg: fmt.Sprintf("-fix: %v", err)})
			continue
		}
		out, err := fixSource(name, src, byFile[name], schema.Dialect(dialect))
		if err != nil {
			diags = append(diags, Diagnostic{Pos: token.Position{Filename: name}, Msg: fmt.Sprintf("-fix: %v", err)})
			continue
		}
		if !bytes.Equal(out, src) {
			files = append(files, File{Path: name, Content: out})
		}
	}
	return files, diags
}

// fixSource rewrites the fields of one file declared at the given
// positions (line and column of a field's name, or of an embedded field's
// type name).
func fixSource(name string, src []byte, at []token.Position, d schema.Dialect) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	want := map[[2]int]bool{}
	for _, p := range at {
		want[[2]int{p.Line, p.Column}] = true
	}
	var edits []edit
	ast.Inspect(f, func(n ast.Node) bool {
		st, ok := n.(*ast.StructType)
		if !ok {
			return true
		}
		for _, fld := range st.Fields.List {
			if fld.Tag == nil || !slices.ContainsFunc(fieldIdents(fld), func(id *ast.Ident) bool {
				p := fset.Position(id.Pos())
				return want[[2]int{p.Line, p.Column}]
			}) {
				continue
			}
			edits = append(edits, fixField(fset, src, fld, d)...)
		}
		return true
	})
	if len(edits) == 0 {
		return src, nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	return format.Source(out)
}

// fieldIdents returns the identifiers whose positions go/types gives a
// field's variables: its names, or an embedded field's type name.
func fieldIdents(fld *ast.Field) []*ast.Ident {
	if len(fld.Names) > 0 {
		return fld.Names
	}
	t := fld.Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.SelectorExpr:
			return []*ast.Ident{x.Sel}
		case *ast.Ident:
			return []*ast.Ident{x}
		default:
			return nil
		}
	}
}

// fixField returns the edits of one field: its tag, and a doc comment.
func fixField(fset *token.FileSet, src []byte, fld *ast.Field, d schema.Dialect) []edit {
	tag, err := strconv.Unquote(fld.Tag.Value)
	if err != nil {
		return nil
	}
	start := fset.Position(fld.Pos()).Offset
	lineStart := bytes.LastIndexByte(src[:start], '\n') + 1
	indent := src[lineStart:start]
	// A doc comment goes on the line above, which needs the field to start
	// its line; otherwise the description stays in the tag.
	ownLine := len(bytes.TrimLeft(indent, " \t")) == 0
	hasDoc := !ownLine || strings.TrimSpace(fld.Doc.Text()) != "" || strings.TrimSpace(fld.Comment.Text()) != ""
	_, pointer := fld.Type.(*ast.StarExpr)
	newTag, doc, ok := schema.FixTag(d, tag, hasDoc, pointer)
	if !ok {
		return nil
	}
	lit := ""
	switch {
	case newTag == "":
	case !strings.Contains(newTag, "`"):
		lit = "`" + newTag + "`"
	default:
		lit = strconv.Quote(newTag)
	}
	edits := []edit{{fset.Position(fld.Tag.Pos()).Offset, fset.Position(fld.Tag.End()).Offset, lit}}
	if doc != "" {
		var b strings.Builder
		for line := range strings.SplitSeq(doc, "\n") {
			b.Write(indent)
			b.WriteString(strings.TrimRight("// "+line, " \t"))
			b.WriteByte('\n')
		}
		edits = append(edits, edit{lineStart, lineStart, b.String()})
	}
	return edits
}
