package gen

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"

	"github.com/mcpgen/mcpgen/gen/model"
)

// constructor analyzes a //mcp:constructor function: a package function with
// no parameters returning *T or T, optionally followed by an error, where T is
// a type of the same package.
func (a *analyzer) constructor(s *pkgScan, d *ast.FuncDecl, dir *directive) {
	fn, ok := s.p.TypesInfo.Defs[d.Name].(*types.Func)
	if !ok {
		return
	}
	label := "mcp:constructor " + funcName(d)
	if dir.args != "" {
		a.errorf(dir.pos, "%s: //mcp:constructor takes no arguments", label)
	}
	c, typeName, msg := constructorShape(fn.Signature(), s.p.Types)
	if msg != "" {
		a.errorf(d.Pos(), "%s: %s; accepted shapes are func() *T, func() T, func() (*T, error) and func() (T, error) with T a type of this package", label, msg)
		return
	}
	c.Func, c.Pos = d.Name.Name, a.fset.Position(d.Pos())
	if prev := s.ctors[typeName]; prev != nil {
		a.errorf(d.Pos(), "%s: type %s already has the constructor %s at %s", label, typeName, prev.Func, shortPos(prev.Pos))
		return
	}
	s.ctors[typeName] = c
}

// constructorShape checks a constructor's signature and returns the
// constructor and the name of the type it makes, or a problem.
func constructorShape(sig *types.Signature, pkg *types.Package) (*model.Constructor, string, string) {
	res := sig.Results()
	switch {
	case sig.Recv() != nil:
		return nil, "", "a constructor must be a package function, not a method"
	case sig.TypeParams().Len() > 0 || sig.Params().Len() > 0:
		return nil, "", "a constructor takes no parameters and no type parameters"
	case res.Len() < 1 || res.Len() > 2 || (res.Len() == 2 && !isError(res.At(1).Type())):
		return nil, "", "a constructor returns T or *T, optionally followed by error"
	}
	c := &model.Constructor{Err: res.Len() == 2}
	t := types.Unalias(res.At(0).Type())
	if p, ok := t.(*types.Pointer); ok {
		t, c.Pointer = types.Unalias(p.Elem()), true
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() != pkg || n.TypeParams().Len() > 0 {
		return nil, "", "a constructor returns a non-generic type declared in this package"
	}
	return c, n.Obj().Name(), ""
}

// serverModel describes the server main serving all of pkgs.
func serverModel(cfg Config, pkgs []*model.Package) *model.Server {
	name := filepath.Base(cfg.ServerDir)
	if len(pkgs) == 1 {
		name = pkgs[0].Name
	}
	return &model.Server{
		Name:     name,
		Command:  filepath.Base(cfg.ServerDir),
		Dir:      cfg.ServerDir,
		Output:   filepath.Join(cfg.ServerDir, "main.go"),
		Packages: pkgs,
		Auth:     slices.Contains(cfg.With, "auth") || declaresScopes(pkgs),
		Redis:    slices.Contains(cfg.With, "redis"),
		Otel:     slices.Contains(cfg.With, "otel"),
	}
}

// Components are the optional components a server main can link (Config.With).
var Components = []string{"auth", "redis", "otel"}

// CheckWith reports an unknown name in Config.With.
func CheckWith(with []string) error {
	for _, w := range with {
		if !slices.Contains(Components, w) {
			return fmt.Errorf("unknown component %q (known: auth, redis, otel)", w)
		}
	}
	return nil
}

// declaresScopes reports whether a tool, resource or prompt of pkgs declares
// scope="...": its server needs OAuth to grant them over HTTP.
func declaresScopes(pkgs []*model.Package) bool {
	for _, p := range pkgs {
		for _, t := range p.Tools {
			if len(t.Scopes) > 0 {
				return true
			}
		}
		for _, r := range p.Resources {
			if len(r.Scopes) > 0 {
				return true
			}
		}
		for _, pr := range p.Prompts {
			if len(pr.Scopes) > 0 {
				return true
			}
		}
	}
	return false
}
