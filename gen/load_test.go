package gen

import (
	"context"
	"errors"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// writeModule writes files (paths relative to the module root) into a new
// module example.com/m and returns its directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoadSplit checks that loadSplit type-checks every named package from
// source, a named package imported by another being the same types.Package
// in both, and that dependencies come from export data.
func TestLoadSplit(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"p/p.go": "package p\n\nimport (\n\t\"context\"\n\n\t\"example.com/m/q\"\n)\n\n// F is a tool.\n//\n//mcp:tool\nfunc F(ctx context.Context, in q.In) error { return nil }\n",
		"q/q.go": "package q\n\nimport \"example.com/m/r\"\n\n// In is an input.\ntype In struct{ R r.R }\n",
		"r/r.go": "package r\n\n// R is a field type.\ntype R struct{ N int }\n",
	})
	cfg := Config{Dir: dir, Patterns: []string{"./p", "./q"}}.withDefaults()
	fset := token.NewFileSet()
	pkgs, err := loadSplit(context.Background(), cfg, fset)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 2 {
		t.Fatalf("got %d packages, want 2", len(pkgs))
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 || len(p.Syntax) != 1 || p.TypesInfo == nil || !p.Types.Complete() {
			t.Errorf("%s: errors %v, %d files, info %v, complete %v", p.PkgPath, p.Errors, len(p.Syntax), p.TypesInfo != nil, p.Types.Complete())
		}
	}
	p, q := pkgs[0], pkgs[1]
	if p.PkgPath != "example.com/m/p" {
		p, q = q, p
	}
	if got := p.Imports["example.com/m/q"]; got != q {
		t.Errorf("p imports %v, want the named package q", got)
	}
	var imported bool
	for _, imp := range p.Types.Imports() {
		if imp.Path() == "example.com/m/q" {
			imported = true
			if imp != q.Types {
				t.Error("p's types refer to another copy of q than q's own")
			}
		}
	}
	if !imported {
		t.Error("p's types do not import q")
	}
	r := q.Imports["example.com/m/r"]
	if r == nil || r.Types == nil || !r.Types.Complete() || len(r.Syntax) != 0 {
		t.Errorf("r: want complete types from export data and no syntax, got %+v", r)
	}
}

// TestLoadSplitFallsBack checks that loadSplit declines when a named
// package is reachable only through a dependency, and that load then still
// loads it.
func TestLoadSplitFallsBack(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"p/p.go": "package p\n\nimport (\n\t\"context\"\n\n\t\"example.com/m/q\"\n)\n\n// F is a tool.\n//\n//mcp:tool\nfunc F(ctx context.Context, in q.In) error { return nil }\n",
		"q/q.go": "package q\n\nimport \"example.com/m/r\"\n\n// In is an input.\ntype In struct{ R r.R }\n",
		"r/r.go": "package r\n\n// R is a field type.\ntype R struct{ N int }\n",
	})
	cfg := Config{Dir: dir, Patterns: []string{"./p", "./r"}}.withDefaults()
	if _, err := loadSplit(context.Background(), cfg, token.NewFileSet()); !errors.Is(err, errNoSplit) {
		t.Fatalf("loadSplit: got %v, want errNoSplit", err)
	}
	pkgs, _, diags, err := load(context.Background(), cfg)
	if err != nil || len(diags) > 0 || len(pkgs) != 2 {
		t.Fatalf("load: %d packages, %v, %v", len(pkgs), diags, err)
	}
	for _, p := range pkgs {
		if p.TypesInfo == nil || len(p.Syntax) != 1 {
			t.Errorf("%s: not loaded from source", p.PkgPath)
		}
	}
}

// TestLoadMissingImport checks that an import no package satisfies is
// reported at the import, once.
func TestLoadMissingImport(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"p/p.go": "package p\n\nimport (\n\t\"context\"\n\n\t\"example.com/m/missing\"\n)\n\n// F is a tool.\n//\n//mcp:tool\nfunc F(ctx context.Context, in missing.In) error { return nil }\n",
	})
	cfg := Config{Dir: dir, Patterns: []string{"./p"}}.withDefaults()
	if _, err := loadSplit(context.Background(), cfg, token.NewFileSet()); !errors.Is(err, errNoSplit) {
		t.Fatalf("loadSplit: got %v, want errNoSplit", err)
	}
	_, _, diags, err := load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) == 0 {
		t.Fatal("no diagnostics")
	}
	for _, d := range diags {
		if filepath.Base(d.Pos.Filename) != "p.go" || d.Pos.Line != 6 {
			t.Errorf("diagnostic %v is not at p.go:6", d)
		}
	}
}
