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
	return loadFiles(t, map[string]string{"p.go": src})
}

// loadFiles writes files (paths relative to the module root, which holds
// package p) into a temporary module example.com/p, loads every package
// and returns a Builder over them, with p as the package of lookups.
func loadFiles(t testing.TB, files map[string]string) *testPkg {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/p\n\ngo 1.26\n"
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Dir:  dir,
		Fset: fset,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("package has errors")
	}
	for _, p := range pkgs {
		if p.PkgPath == "example.com/p" {
			return &testPkg{fset: fset, pkg: p, b: New(fset, pkgs), dir: dir}
		}
	}
	t.Fatalf("no package example.com/p")
	return nil
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
