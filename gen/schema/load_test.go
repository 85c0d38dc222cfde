package schema

import (
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
)

// testPkg is a package loaded from source for a test.
type testPkg struct {
	fset *token.FileSet
	pkg  *packages.Package
	b    *Builder
	dir  string
}

// load writes src as package p (file p.go) of a temporary module, loads it
// with go/packages and returns a Builder over it.
func load(t testing.TB, src string) *testPkg {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/p\n\ngo 1.26\n")
	write("p.go", src)
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  dir,
		Fset: fset,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("package has errors")
	}
	return &testPkg{fset: fset, pkg: pkgs[0], b: New(fset, pkgs), dir: dir}
}

// lookup returns the type named name in the test package.
func (p *testPkg) lookup(t testing.TB, name string) types.Type {
	t.Helper()
	obj := p.pkg.Types.Scope().Lookup(name)
	if obj == nil {
		t.Fatalf("no type %s", name)
	}
	return obj.Type()
}
