// Package goplsport is a worked port to mcpgen of the MCP server in gopls
// v0.23.0 (golang.org/x/tools/gopls, `gopls mcp`), which is written with the
// official Go SDK. It has the same eight tools with the same arguments, and
// answers them from the Go source files under one directory with the
// standard library's go/parser instead of gopls's type-checked workspace:
// the point is the contract, compared with gopls's in docs/migrating.md.
//
// The registration code in mcp_gen.go and the server in
// cmd/goplsport-server are generated: run go generate after changing a
// handler.
package goplsport

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/goplsport-server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// A Workspace is the directory tree the tools look at.
type Workspace struct {
	// Root is the directory holding go.mod.
	Root string
}

// NewWorkspace is the workspace of the current directory; the generated
// server main calls it.
//
//mcp:constructor
func NewWorkspace() (*Workspace, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return &Workspace{Root: dir}, nil
}

// Workspace summarizes the Go workspace: its module and packages.
//
//mcp:tool go_workspace readonly openworld=false
func (w *Workspace) Workspace(ctx context.Context) ([]mcpruntime.Content, error) {
	pkgs, err := w.packages()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The workspace is the module %s in %s.\n", w.modulePath(), w.Root)
	fmt.Fprintf(&b, "It has %d packages:\n", len(pkgs))
	for _, p := range pkgs {
		fmt.Fprintf(&b, "- %s\n", p.path)
	}
	return text(b.String()), nil
}

// PackageAPI summarizes the exported API of Go packages of the workspace.
//
//mcp:tool go_package_api readonly openworld=false
func (w *Workspace) PackageAPI(ctx context.Context, in PackageAPIParams) ([]mcpruntime.Content, error) {
	pkgs, err := w.packages()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, path := range in.PackagePaths {
		i := slices.IndexFunc(pkgs, func(p pkg) bool { return p.path == path })
		if i < 0 {
			return nil, fmt.Errorf("no package %q in the workspace", path)
		}
		fmt.Fprintf(&b, "package %s // %q\n", pkgs[i].name, path)
		for _, f := range pkgs[i].files {
			for _, d := range f.Decls {
				if s := exportedDecl(pkgs[i].fset, d); s != "" {
					b.WriteString("\n" + s + "\n")
				}
			}
		}
	}
	return text(b.String()), nil
}

// Diagnostics reports the syntax errors in the workspace, and the active
// files that are not gofmt-formatted.
//
//mcp:tool go_diagnostics readonly openworld=false
func (w *Workspace) Diagnostics(ctx context.Context, in DiagnosticsParams) ([]mcpruntime.Content, error) {
	var problems []string
	err := w.walk(func(path string) {
		if _, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.AllErrors); err != nil {
			problems = append(problems, err.Error())
		}
	})
	if err != nil {
		return nil, err
	}
	for _, f := range in.Files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if out, err := format.Source(src); err == nil && !bytes.Equal(out, src) {
			problems = append(problems, f+": not gofmt-formatted")
		}
	}
	if len(problems) == 0 {
		return text("No diagnostics."), nil
	}
	return text(strings.Join(problems, "\n")), nil
}

// RenameSymbol lists the edits that rename a symbol declared in a file's
// package, across the workspace.
//
//mcp:tool go_rename_symbol readonly openworld=false
func (w *Workspace) RenameSymbol(ctx context.Context, in RenameSymbolParams) ([]mcpruntime.Content, error) {
	if !token.IsIdentifier(in.NewName) {
		return nil, fmt.Errorf("%q is not a Go identifier", in.NewName)
	}
	refs, err := w.references(in.File, in.Symbol)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range refs {
		fmt.Fprintf(&b, "%s: replace %s with %s\n", r, lastName(in.Symbol), in.NewName)
	}
	return text(b.String()), nil
}

// SymbolReferences lists the references to a package-level symbol (a name,
// pkg.Name or Type.Field) named in a file.
//
//mcp:tool go_symbol_references readonly openworld=false
func (w *Workspace) SymbolReferences(ctx context.Context, in SymbolReferencesParams) ([]mcpruntime.Content, error) {
	refs, err := w.references(in.File, in.Symbol)
	if err != nil {
		return nil, err
	}
	return text(strings.Join(refs, "\n")), nil
}

// Search finds the package-level symbols of the workspace whose qualified
// names match a query fuzzily (the query's letters in order, any case); at
// most 100.
//
//mcp:tool go_search readonly openworld=false
func (w *Workspace) Search(ctx context.Context, in SearchParams) ([]mcpruntime.Content, error) {
	pkgs, err := w.packages()
	if err != nil {
		return nil, err
	}
	var hits []string
	for _, p := range pkgs {
		for _, f := range p.files {
			for _, name := range declNames(f) {
				if q := p.path + "." + name; fuzzy(in.Query, q) && len(hits) < 100 {
					hits = append(hits, q)
				}
			}
		}
	}
	if len(hits) == 0 {
		return text("No symbols match."), nil
	}
	return text(strings.Join(hits, "\n")), nil
}

// FileContext summarizes what a file uses from the packages it imports.
//
//mcp:tool go_file_context readonly openworld=false
func (w *Workspace) FileContext(ctx context.Context, in FileContextParams) ([]mcpruntime.Content, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, in.File, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	used := map[string][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && !slices.Contains(used[id.Name], sel.Sel.Name) {
				used[id.Name] = append(used[id.Name], sel.Sel.Name)
			}
		}
		return true
	})
	var b strings.Builder
	fmt.Fprintf(&b, "File %s imports:\n", in.File)
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndexByte(path, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names := used[name]
		slices.Sort(names)
		fmt.Fprintf(&b, "- %q: uses %s\n", path, strings.Join(names, ", "))
	}
	return text(b.String()), nil
}

// Vulncheck checks the packages matching a pattern (default ./...) in a
// directory (default the workspace root) for known vulnerabilities. This
// port has no vulnerability database: it checks the pattern and the
// directory and reports no findings.
//
//mcp:tool go_vulncheck readonly openworld
func (w *Workspace) Vulncheck(ctx context.Context, in *VulncheckParams) (*VulncheckResult, error) {
	dir, pattern := in.Dir, in.Pattern
	if dir == "" {
		dir = w.Root
	}
	if pattern == "" {
		pattern = "./..."
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	return &VulncheckResult{Logs: fmt.Sprintf("checked %s in %s: no vulnerability database in this port", pattern, dir)}, nil
}

// text is one text block.
func text(s string) []mcpruntime.Content { return []mcpruntime.Content{mcpruntime.Text(s)} }

// A pkg is one directory of Go files.
type pkg struct {
	path, name string
	fset       *token.FileSet
	files      []*ast.File
}

// walk calls f with every non-test Go file under the root, skipping
// testdata, vendor and hidden directories.
func (w *Workspace) walk(f func(path string)) error {
	return filepath.WalkDir(w.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != w.Root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f(path)
		}
		return nil
	})
}

// packages parses the workspace's packages, sorted by import path.
func (w *Workspace) packages() ([]pkg, error) {
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	var errs []error
	err := w.walk(func(path string) {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err)
			return
		}
		dir := filepath.Dir(path)
		p := byDir[dir]
		if p == nil {
			rel, _ := filepath.Rel(w.Root, dir)
			p = &pkg{path: strings.TrimSuffix(w.modulePath()+"/"+filepath.ToSlash(rel), "/."), name: f.Name.Name, fset: fset}
			byDir[dir] = p
		}
		p.files = append(p.files, f)
	})
	if err = errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	var out []pkg
	for _, p := range byDir {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.path, b.path) })
	return out, nil
}

// modulePath reads the module path from the root's go.mod.
func (w *Workspace) modulePath() string {
	data, _ := os.ReadFile(filepath.Join(w.Root, "go.mod"))
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "command-line-arguments"
}

// references lists file:line:col of every identifier named as the last
// element of symbol in the Go files of the workspace.
func (w *Workspace) references(file, symbol string) ([]string, error) {
	if _, err := os.Stat(file); err != nil {
		return nil, err
	}
	name := lastName(symbol)
	var refs []string
	err := w.walk(func(path string) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name {
				p := fset.Position(id.Pos())
				rel, _ := filepath.Rel(w.Root, p.Filename)
				refs = append(refs, fmt.Sprintf("%s:%d:%d", filepath.ToSlash(rel), p.Line, p.Column))
			}
			return true
		})
	})
	if err != nil {
		return nil, err
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("no references to %s", symbol)
	}
	return refs, nil
}

func lastName(symbol string) string { return symbol[strings.LastIndexByte(symbol, '.')+1:] }

// declNames returns the names of a file's package-level declarations.
func declNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// exportedDecl prints an exported package-level declaration without its
// body, or returns "".
func exportedDecl(fset *token.FileSet, d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return ""
		}
		c := *d
		c.Body, c.Doc = nil, nil
		return printNode(fset, &c)
	case *ast.GenDecl:
		if d.Tok == token.IMPORT || !slices.ContainsFunc(declNames(&ast.File{Decls: []ast.Decl{d}}), token.IsExported) {
			return ""
		}
		c := *d
		c.Doc = nil
		return printNode(fset, &c)
	}
	return ""
}

func printNode(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := format.Node(&b, fset, n); err != nil {
		return ""
	}
	return b.String()
}

// fuzzy reports whether the letters of query appear in s in order,
// ignoring case.
func fuzzy(query, s string) bool {
	s = strings.ToLower(s)
	for _, r := range strings.ToLower(query) {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}
