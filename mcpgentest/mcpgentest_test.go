package mcpgentest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
)

// recorder is a TB that keeps the failures instead of reporting them.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func TestCheckUpToDate(t *testing.T) {
	CheckServer(t, "../examples/notes/cmd/notes-server", "../examples/notes")
}

const handlers = `package p

import "context"

// In is the input.
type In struct {
	Q string ` + "`json:\"q\"`" + `
}

// Echo echoes q.
//
//mcp:tool
func Echo(ctx context.Context, in In) (string, error) { return in.Q, nil }
`

// module writes a module using this repository through a replace, with
// handlers.go, and returns its directory.
func module(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/p\n\ngo 1.26\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "handlers.go": []byte(handlers)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckReports(t *testing.T) {
	dir := module(t)
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	cfg := gen.Config{Dir: dir, Env: env}

	var r recorder
	CheckConfig(&r, cfg)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "missing: ") || !strings.Contains(r.errs[0], "mcp_gen.go") {
		t.Errorf("no mcp_gen.go: got %q, want one missing: .../mcp_gen.go", r.errs)
	}

	if err := os.WriteFile(filepath.Join(dir, "mcp_gen.go"), []byte("package p\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = recorder{}
	CheckConfig(&r, cfg)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "stale: ") {
		t.Errorf("old mcp_gen.go: got %q, want one stale: .../mcp_gen.go", r.errs)
	}

	res, err := gen.Generate(context.Background(), cfg)
	if err != nil || len(res.Diagnostics) > 0 || len(res.Files) != 1 {
		t.Fatalf("generate: %v %v", err, res.Diagnostics)
	}
	if err := os.WriteFile(res.Files[0].Path, res.Files[0].Content, 0o644); err != nil {
		t.Fatal(err)
	}
	if p := Problems(context.Background(), cfg); p != nil {
		t.Errorf("fresh mcp_gen.go: got %q, want no problems", p)
	}

	bad := strings.Replace(handlers, "//mcp:tool", "//mcp:tool bad,name", 1)
	if err := os.WriteFile(filepath.Join(dir, "handlers.go"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Problems(context.Background(), cfg)
	if len(p) == 0 || !strings.Contains(p[0], "handlers.go:") {
		t.Errorf("bad directive: got %q, want a positioned diagnostic", p)
	}
}
