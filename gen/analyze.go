package gen

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen/emit"
	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/gen/schema"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// An analyzer turns loaded packages into a model.Program, collecting every
// diagnostic on the way.
type analyzer struct {
	cfg     Config
	fset    *token.FileSet
	schemas *schema.Builder
	diags   []Diagnostic
}

// analyze builds the model of the tools declared in pkgs.
func analyze(cfg Config, fset *token.FileSet, pkgs []*packages.Package) (*model.Program, []Diagnostic) {
	a := &analyzer{cfg: cfg, fset: fset, schemas: schema.New(fset, pkgs)}
	a.schemas.SetDialect(schema.Dialect(cfg.Tags), cfg.Fix) // gen/schema/foreigntags.go, fix.go
	prog := &model.Program{}
	sorted := slices.Clone(pkgs)
	slices.SortFunc(sorted, func(x, y *packages.Package) int { return cmp.Compare(x.PkgPath, y.PkgPath) })
	for _, p := range sorted {
		mp := a.pkg(p)
		switch {
		case len(mp.Tools) > 0 || len(mp.Resources) > 0 || len(mp.Prompts) > 0:
			prog.Packages = append(prog.Packages, mp)
		case isGenerated(mp.Output):
			prog.Obsolete = append(prog.Obsolete, mp.Output)
		}
	}
	if len(prog.Packages) == 0 && len(prog.Obsolete) == 0 && len(a.diags) == 0 {
		a.diags = append(a.diags, Diagnostic{Msg: fmt.Sprintf("no //mcp:tool handlers in %s", strings.Join(cfg.Patterns, " "))})
	}
	if cfg.ServerDir != "" {
		prog.Server = serverModel(cfg, prog.Packages)
	}
	prog.Foreign = a.schemas.Foreign()
	return prog, a.diags
}

// errorf records a diagnostic at pos.
func (a *analyzer) errorf(pos token.Pos, format string, args ...any) {
	a.diags = append(a.diags, Diagnostic{Pos: a.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
}

// A pkgScan holds the state of analyzing one package.
type pkgScan struct {
	p      *packages.Package
	mp     *model.Package
	ctors  map[string]*model.Constructor // by type name
	recvs  map[string]*model.Receiver    // by type name
	names  *nameSet                      // identifiers the generated file may not reuse
	fnames map[string]bool               // base names of files with tools
	views  viewScan                      // the MCP Apps views (view.go)
}

// pkg analyzes one package.
func (a *analyzer) pkg(p *packages.Package) *model.Package {
	s := &pkgScan{
		p: p,
		mp: &model.Package{
			Name:   p.Name,
			Path:   p.PkgPath,
			Dir:    pkgDir(p),
			Output: filepath.Join(pkgDir(p), a.cfg.Output),
		},
		ctors:  map[string]*model.Constructor{},
		recvs:  map[string]*model.Receiver{},
		names:  newNameSet(p.Types),
		fnames: map[string]bool{},
	}
	for _, f := range p.Syntax {
		if filepath.Base(a.fset.Position(f.Package).Filename) == a.cfg.Output && len(f.Decls) == 0 {
			continue
		}
		a.file(s, f)
	}
	a.registry(s)    // serverjson.go
	a.elicitForms(s) // elicit.go
	a.finishViews(s) // view.go
	a.finishPkg(s)
	return s.mp
}

// pkgDir is the directory of p's files.
func pkgDir(p *packages.Package) string {
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	return p.Dir
}

// file analyzes the declarations of one file.
func (a *analyzer) file(s *pkgScan, f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			a.funcDecl(s, d)
		case *ast.GenDecl:
			a.misplaced(d.Doc, d.Tok == token.TYPE)
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.TypeSpec:
					a.misplaced(sp.Doc, true)
				case *ast.ValueSpec:
					a.misplaced(sp.Doc, false)
				}
			}
		}
	}
}

// misplaced reports //mcp: directives on declarations other than functions,
// except //mcp:schema on a type declaration (read by gen/schema).
func (a *analyzer) misplaced(doc *ast.CommentGroup, typeDecl bool) {
	for _, d := range directives(doc) {
		if typeDecl && d.word == "schema" {
			continue
		}
		a.errorf(d.pos, "//mcp:%s must annotate a function declaration", d.word)
	}
}

// funcDecl analyzes the directives of one function declaration.
func (a *analyzer) funcDecl(s *pkgScan, d *ast.FuncDecl) {
	ds := directives(d.Doc)
	if a.primitiveDecl(s, d, ds) { // resources, prompts, completers (primitive.go)
		return
	}
	if len(ds) == 0 {
		if pos := spacedDirective(d.Doc); pos.IsValid() {
			a.errorf(pos, "\"// mcp:\" is not a directive: write //mcp: with no space after the slashes")
		}
		return
	}
	var tool, ctor *directive
	var views []*directive
	for i := range ds {
		dir := &ds[i]
		switch dir.word {
		case "tool":
			if tool != nil {
				a.errorf(dir.pos, "mcp:tool %s: more than one //mcp:tool directive", funcName(d))
				continue
			}
			tool = dir
		case "constructor":
			ctor = dir
		case "view":
			views = append(views, dir)
		default:
			a.errorf(dir.pos, "%s", unknownDirective(dir.word)) // suggest.go
		}
	}
	switch {
	case tool != nil && ctor != nil:
		a.errorf(ctor.pos, "mcp:tool %s: a function cannot be both //mcp:tool and //mcp:constructor", funcName(d))
	case tool != nil:
		a.tool(s, d, tool, views)
	case ctor != nil:
		a.constructor(s, d, ctor)
	}
	if tool == nil {
		for _, v := range views {
			a.errorf(v.pos, "//mcp:view must annotate a //mcp:tool whose ui= names an HTML file")
		}
	}
}

// funcName is F or T.M for messages.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	return types.ExprString(t) + "." + d.Name.Name
}

// finishPkg attaches constructors to receivers, orders receivers and names
// the generated identifiers.
func (a *analyzer) finishPkg(s *pkgScan) {
	for name, r := range s.recvs {
		r.Constructor = s.ctors[name]
		s.mp.Receivers = append(s.mp.Receivers, r)
	}
	slices.SortFunc(s.mp.Receivers, func(x, y *model.Receiver) int { return cmp.Compare(x.TypeName, y.TypeName) })
	for _, t := range s.mp.Tools {
		for _, ty := range []*model.Type{t.In, t.Out} {
			s.names.reserveImports(ty)
		}
	}
	s.mp.Taken = s.names.shadowedImports()
	for _, r := range s.mp.Receivers {
		r.Param = s.names.fresh(lowerIdent(r.TypeName), "Recv")
	}
	for _, t := range s.mp.Tools {
		base := t.Func
		if t.Receiver != nil {
			base = t.Receiver.TypeName + upperIdent(t.Func)
		}
		t.VarPrefix = s.names.fresh("mcp"+upperIdent(base), "Tool")
	}
	for f := range s.fnames {
		s.mp.Sources = append(s.mp.Sources, f)
	}
	slices.Sort(s.mp.Sources)
	if len(s.mp.Tools) > 0 {
		s.mp.Pos = s.mp.Tools[0].Pos
	}
	s.mp.FullSchema = needsFullSchema(s.mp)
	finishPrimitives(s.mp)
}

// needsFullSchema reports whether a schema of the package is beyond the runtime's
// built-in validator, so that the generated file must import runtime/fullschema:
// the same rule AddTool and AddForm apply.
func needsFullSchema(mp *model.Package) bool {
	var schemas []json.RawMessage
	for _, t := range mp.Tools {
		schemas = append(schemas, t.InputSchema, t.OutputSchema)
	}
	for _, f := range mp.Forms {
		schemas = append(schemas, f.Schema)
	}
	for _, raw := range schemas {
		if raw != nil && mcpruntime.CheckSchema(raw) != nil {
			return true
		}
	}
	return false
}

// isGenerated reports whether path is a file mcpgen wrote (it starts with
// the generated-code header).
func isGenerated(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	header := []byte("// " + emit.Header + "\n")
	buf := make([]byte, len(header))
	n, _ := io.ReadFull(f, buf)
	return bytes.Equal(buf[:n], header)
}
