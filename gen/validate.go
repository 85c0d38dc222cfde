package gen

import (
	"fmt"
	"go/token"
	"path/filepath"

	"github.com/mcpgen/mcpgen/gen/model"
)

// validate checks the program as a whole, after analysis: tool names must be
// unique within a package, and across the packages one -server main serves,
// and the server directory must not be one of the packages. Without -server
// each package is its own server, so two packages may reuse a name.
func validate(prog *model.Program) []Diagnostic {
	var diags []Diagnostic
	seen := map[string]*model.Tool{}
	owner := map[*model.Tool]*model.Package{}
	for _, p := range prog.Packages {
		for _, t := range p.Tools {
			owner[t] = p
			key := nameScope(prog, p) + t.Name
			prev, dup := seen[key]
			if !dup {
				seen[key] = t
				continue
			}
			where := shortPos(prev.Pos)
			if owner[prev] != p {
				where += " in package " + owner[prev].Path
			}
			diags = append(diags, Diagnostic{Pos: t.Pos,
				Msg: fmt.Sprintf("mcp:tool %s: duplicate tool name %q, also used by %s at %s", t.Func, t.Name, prev.Func, where)})
		}
	}
	diags = append(diags, validatePrimitives(prog)...) // primitive.go
	return append(diags, validateServer(prog)...)
}

// nameScope returns the prefix that scopes a tool, resource or prompt name
// for duplicate checks: the whole run when one server main serves every
// package, else the package.
func nameScope(prog *model.Program, p *model.Package) string {
	if prog.Server != nil {
		return ""
	}
	return p.Path + "\x00"
}

// validateServer checks that the server main does not land in a tool package.
func validateServer(prog *model.Program) []Diagnostic {
	if prog.Server == nil {
		return nil
	}
	var diags []Diagnostic
	for _, p := range prog.Packages {
		diags = append(diags, serverReceivers(p)...)
		if p.Name == "main" {
			diags = append(diags, Diagnostic{Pos: p.Pos,
				Msg: fmt.Sprintf("-server: package %s is a main package and cannot be imported by the server", p.Path)})
		}
		if filepath.Clean(p.Dir) == filepath.Clean(prog.Server.Dir) {
			diags = append(diags, Diagnostic{Pos: p.Pos,
				Msg: fmt.Sprintf("-server: the server main needs a directory of its own, not the one of package %s", p.Path)})
		}
	}
	return diags
}

// shortPos formats pos with the file's base name, for messages that mention
// a second position.
func shortPos(pos token.Position) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)
}

// serverReceivers checks that the server main can obtain every receiver of p:
// an unexported type needs a constructor.
func serverReceivers(p *model.Package) []Diagnostic {
	var diags []Diagnostic
	for _, r := range p.Receivers {
		if r.Constructor == nil && !token.IsExported(r.TypeName) {
			diags = append(diags, Diagnostic{Pos: r.Pos,
				Msg: fmt.Sprintf("-server: receiver type %s is unexported, so the server cannot make its zero value; mark a constructor with //mcp:constructor", r.TypeName)})
		}
	}
	return diags
}
