package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// Type returns the Go type expression for t, qualifying named types by import
// path (jennifer chooses and deduplicates the import names).
func Type(t *model.Type) *jen.Statement {
	switch t.Kind {
	case model.Named:
		s := jen.Qual(t.Path, t.Name)
		if t.Path == "" {
			s = jen.Id(t.Name)
		}
		if len(t.Args) == 0 {
			return s
		}
		args := make([]jen.Code, len(t.Args))
		for i, a := range t.Args {
			args[i] = Type(a)
		}
		return s.Types(args...)
	case model.Pointer:
		return jen.Op("*").Add(Type(t.Elem))
	case model.Slice:
		return jen.Index().Add(Type(t.Elem))
	case model.Array:
		return jen.Index(jen.Lit(int(t.Len))).Add(Type(t.Elem))
	case model.Map:
		return jen.Map(Type(t.Key)).Add(Type(t.Elem))
	case model.Interface:
		return jen.Any()
	}
	return jen.Id(t.Name)
}

// importNames registers the package name of every named type in t, so that
// jennifer imports it under its real name instead of guessing from the path.
func importNames(f *jen.File, taken map[string]bool, t *model.Type) {
	if t == nil {
		return
	}
	named := t.Kind == model.Named && t.Path != "" && t.PkgName != "" && t.Path != model.RuntimePath
	if named && !avoidTaken(f, taken, t.Path, t.PkgName) {
		importName(f, t.Path, t.PkgName)
	}
	for _, a := range t.Args {
		importNames(f, taken, a)
	}
	importNames(f, taken, t.Key)
	importNames(f, taken, t.Elem)
}

// avoidTaken imports path under "mcp"+name when name is declared at package
// level (an import may not share a name with a package-level identifier),
// reporting whether it did.
func avoidTaken(f *jen.File, taken map[string]bool, path, name string) bool {
	if path == model.RuntimePath {
		name = model.RuntimeAlias
	}
	if !taken[name] {
		return false
	}
	alias := "mcp" + name
	for i := 2; taken[alias]; i++ {
		alias = fmt.Sprintf("mcp%s%d", name, i)
	}
	f.ImportAlias(path, alias)
	return true
}

// importName tells jennifer the package name of path, writing it as an
// explicit import alias when it differs from the path's last element.
func importName(f *jen.File, path, name string) {
	if path[strings.LastIndexByte(path, '/')+1:] != name {
		f.ImportAlias(path, name)
		return
	}
	f.ImportName(path, name)
}
