package gen

import (
	"context"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// load loads the packages named by cfg. Problems in the user's code (list,
// parse and type errors) come back as diagnostics; err is set only when the
// go command itself could not run.
func load(ctx context.Context, cfg Config) ([]*packages.Package, *token.FileSet, []Diagnostic, error) {
	pkgs, fset, err := loadPackages(ctx, cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load packages: %w", err)
	}
	var diags []Diagnostic
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if len(p.Syntax) > 0 && !hasDirectives(p) {
			// Not ours to analyze: a main package importing a tool package
			// sees no RegisterMCP while the generated file is set aside.
			return
		}
		for _, e := range packageErrors(p, cfg.Output) {
			diags = append(diags, Diagnostic{Pos: parsePos(e.Pos), Msg: e.Msg})
		}
	})
	if len(pkgs) == 0 && len(diags) == 0 {
		diags = append(diags, Diagnostic{Msg: fmt.Sprintf("no packages match %s", strings.Join(cfg.Patterns, " "))})
	}
	return pkgs, fset, diags, nil
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
// command reports when it compiles p for a dependent: either the same
// problems as p's type errors, or problems of the stale generated file that
// loading sets aside.
func packageErrors(p *packages.Package, output string) []packages.Error {
	typed := slices.ContainsFunc(p.Errors, func(e packages.Error) bool { return e.Kind == packages.TypeError })
	var errs []packages.Error
	for _, e := range p.Errors {
		compiler := e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ")
		if compiler && (typed || onlyIn(e.Msg, output)) {
			continue
		}
		errs = append(errs, e)
	}
	return errs
}

// onlyIn reports whether every line of compiler output, after the "# pkg"
// header, is about the file named output.
func onlyIn(msg, output string) bool {
	lines := strings.Split(strings.TrimSpace(msg), "\n")[1:]
	for _, l := range lines {
		file, _, _ := strings.Cut(l, ":")
		if filepath.Base(file) != output {
			return false
		}
	}
	return len(lines) > 0
}

// hasDirectives reports whether any file of p holds an //mcp: comment.
func hasDirectives(p *packages.Package) bool {
	for _, f := range p.Syntax {
		for _, g := range f.Comments {
			for _, c := range g.List {
				if strings.HasPrefix(c.Text, directivePrefix) || strings.HasPrefix(c.Text, "// mcp:") {
					return true
				}
			}
		}
	}
	return false
}
