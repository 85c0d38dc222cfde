package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpgen/mcpgen/gen/model"
)

// A nameSet tracks the identifiers a generated file may not introduce: the
// package's own declarations, the imported package names and the locals of
// the generated adapters.
type nameSet struct {
	scope   *types.Scope
	taken   map[string]bool
	imports []string // package names the generated file may import
}

// adapterLocals are the identifiers the generated code declares or uses
// unqualified inside RegisterMCP.
var adapterLocals = []string{
	"s", "ctx", "req", "in", "out", "err", "RegisterMCP",
	model.RuntimeAlias, "context", "json", "fmt",
}

// newNameSet returns a nameSet for a package whose scope is pkg's.
func newNameSet(pkg *types.Package) *nameSet {
	n := &nameSet{taken: map[string]bool{}}
	if pkg != nil {
		n.scope = pkg.Scope()
	}
	for _, id := range adapterLocals {
		n.taken[id] = true
	}
	return n
}

// reserveImports reserves the package names of the named types in t.
func (n *nameSet) reserveImports(t *model.Type) {
	if t == nil {
		return
	}
	if t.PkgName != "" {
		n.taken[t.PkgName] = true
		n.imports = append(n.imports, t.PkgName)
	}
	for _, a := range t.Args {
		n.reserveImports(a)
	}
	n.reserveImports(t.Key)
	n.reserveImports(t.Elem)
}

// importNames are the packages every generated file may import.
var importNames = []string{"context", "json", "fmt", model.RuntimeAlias}

// shadowedImports returns the import names that the package declares at
// package level, sorted.
func (n *nameSet) shadowedImports() []string {
	var out []string
	for _, name := range append(slices.Clone(importNames), n.imports...) {
		if n.scope != nil && n.scope.Lookup(name) != nil && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// used reports whether id is taken, declared in the package or predeclared.
func (n *nameSet) used(id string) bool {
	if n.taken[id] || token.IsKeyword(id) || types.Universe.Lookup(id) != nil {
		return true
	}
	return n.scope != nil && n.scope.Lookup(id) != nil
}

// fresh returns id, or id+suffix, or id+suffix+N, whichever is free first, and
// reserves it.
func (n *nameSet) fresh(id, suffix string) string {
	name := id
	if n.used(name) {
		name = id + suffix
	}
	for i := 2; n.used(name); i++ {
		name = fmt.Sprintf("%s%s%d", id, suffix, i)
	}
	n.taken[name] = true
	return name
}

// lowerIdent lower-cases the leading capitals of a Go identifier the way Go
// names variables: Service -> service, DB -> db, HTTPClient -> httpClient.
func lowerIdent(id string) string {
	rs := []rune(id)
	i := 0
	for i < len(rs) && unicode.IsUpper(rs[i]) {
		i++
	}
	if i > 1 && i < len(rs) {
		i-- // keep the capital that starts the next word
	}
	return strings.ToLower(string(rs[:i])) + string(rs[i:])
}

// upperIdent upper-cases the first letter of a Go identifier.
func upperIdent(id string) string {
	if id == "" {
		return id
	}
	rs := []rune(id)
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}
