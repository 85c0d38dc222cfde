package gen

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen/emit"
)

// loadMode is what the analyzer and the schema builder read: syntax with doc
// comments and full type information for the named packages.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports

// load loads the packages named by cfg. Problems in the user's code (list,
// parse and type errors) come back as diagnostics; err is set only when the
// go command itself could not run.
func load(ctx context.Context, cfg Config) ([]*packages.Package, *token.FileSet, []Diagnostic, error) {
	fset := token.NewFileSet()
	pcfg := &packages.Config{
		Context:   ctx,
		Mode:      loadMode,
		Dir:       cfg.Dir,
		Env:       cfg.Env,
		Fset:      fset,
		ParseFile: parseFunc(cfg.Output),
	}
	pkgs, err := packages.Load(pcfg, cfg.Patterns...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load packages: %w", err)
	}
	var diags []Diagnostic
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range packageErrors(p) {
			diags = append(diags, Diagnostic{Pos: parsePos(e.Pos), Msg: e.Msg})
		}
	})
	if len(pkgs) == 0 && len(diags) == 0 {
		diags = append(diags, Diagnostic{Msg: fmt.Sprintf("no packages match %s", strings.Join(cfg.Patterns, " "))})
	}
	return pkgs, fset, diags, nil
}

// parseFunc parses Go files with comments, except that a file mcpgen generated
// earlier (named output and starting with the header) is reduced to its
// package clause: a stale generated file must not stop its own regeneration.
func parseFunc(output string) func(*token.FileSet, string, []byte) (*ast.File, error) {
	header := []byte("// " + emit.Header)
	return func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		mode := parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution
		if filepath.Base(filename) == output && bytes.HasPrefix(src, header) {
			mode = parser.PackageClauseOnly
		}
		return parser.ParseFile(fset, filename, src, mode)
	}
}

// parsePos parses a go/packages error position, "file:line:col", "file:line"
// or "file".
func parsePos(s string) token.Position {
	var pos token.Position
	rest := s
	nums := []*int{&pos.Column, &pos.Line}
	for i := 0; i < 2; i++ {
		j := strings.LastIndexByte(rest, ':')
		if j < 0 {
			break
		}
		n, err := strconv.Atoi(rest[j+1:])
		if err != nil {
			break
		}
		*nums[i] = n
		rest = rest[:j]
	}
	if pos.Line == 0 && pos.Column != 0 { // only one number: it was the line
		pos.Line, pos.Column = pos.Column, 0
	}
	pos.Filename = rest
	return pos
}

// packageErrors returns p's errors without the compiler output that the go
// command reports for a package that also has type errors (the same
// problems, unpositioned).
func packageErrors(p *packages.Package) []packages.Error {
	typed := slices.ContainsFunc(p.Errors, func(e packages.Error) bool { return e.Kind == packages.TypeError })
	var errs []packages.Error
	for _, e := range p.Errors {
		if typed && e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
			continue
		}
		errs = append(errs, e)
	}
	return errs
}
