package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want/ sections of testdata/*.txtar")

// golden compares got with the archive's want/NAME section, or records it
// under -update (the inputs are never rewritten).
type golden struct {
	path string
	ar   *txtar.Archive
}

func readGolden(t *testing.T, path string) *golden {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &golden{path: path, ar: ar}
}

// file returns the archive's section name.
func (g *golden) file(t *testing.T, name string) string {
	t.Helper()
	for _, f := range g.ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	if !*update {
		t.Fatalf("%s: no section %s", g.path, name)
	}
	return ""
}

func (g *golden) check(t *testing.T, name, got string) {
	t.Helper()
	if *update {
		for i, f := range g.ar.Files {
			if f.Name == name {
				g.ar.Files[i].Data = []byte(got)
				return
			}
		}
		g.ar.Files = append(g.ar.Files, txtar.File{Name: name, Data: []byte(got)})
		return
	}
	if diff := cmp.Diff(g.file(t, name), got); diff != "" {
		t.Errorf("%s: %s mismatch (-want +got):\n%s", g.path, name, diff)
	}
}

// save writes the archive back under -update.
func (g *golden) save(t *testing.T) {
	t.Helper()
	if *update {
		if err := os.WriteFile(g.path, txtar.Format(g.ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goCmd runs the go command in dir, offline, and fails t on error.
func goCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestDocsGolden(t *testing.T) {
	g := readGolden(t, "testdata/docs.txtar")
	dir := newModule(t, g.file(t, "handlers.go"))
	code, _, stderr := mcpgen(t, dir, "-docs", "TOOLS.md")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, "TOOLS.md"))
	if err != nil {
		t.Fatal(err)
	}
	g.check(t, "want/TOOLS.md", string(got))
	if _, err := os.Stat(filepath.Join(dir, "mcp_gen.go")); err != nil {
		t.Errorf("-docs must still generate mcp_gen.go: %v", err)
	}
	code, stdout, _ := mcpgen(t, dir, "-docs", "-")
	if code != 0 || stdout != string(got) {
		t.Errorf("-docs -: exit %d, got %q, want the file's content", code, stdout)
	}
	g.save(t)
}

func TestClientConfigGolden(t *testing.T) {
	g := readGolden(t, "testdata/clientconfig.txtar")
	dir := newModule(t, g.file(t, "handlers.go"))
	goPath, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	goPath, _ = filepath.Abs(goPath)
	for _, c := range installClients {
		code, stdout, stderr := mcpgen(t, dir, "-server", "./cmd/p-server", "-client-config", c.name)
		if code != 0 {
			t.Fatalf("%s: exit %d, want 0; stderr:\n%s", c.name, code, stderr)
		}
		if !strings.Contains(stderr, "deprecated: mcpgen install -dry-run "+c.name) {
			t.Errorf("%s: stderr %q lacks the deprecation naming mcpgen install -dry-run", c.name, stderr)
		}
		got := strings.ReplaceAll(strings.ReplaceAll(stdout, dir, "$DIR"), goPath, "$GO")
		ext := ".json"
		if c.yaml {
			ext = ".yaml"
		}
		g.check(t, "want/"+c.name+ext, got)
	}
	if _, err := os.Stat(filepath.Join(dir, "cmd/p-server/main.go")); err == nil {
		t.Errorf("-client-config wrote the server main; it must write nothing")
	}
	if code, _, stderr := mcpgen(t, dir, "-client-config", "vscode"); code != 2 {
		t.Errorf("-client-config without -server: exit %d, want 2; stderr:\n%s", code, stderr)
	}
	if code, _, _ := mcpgen(t, dir, "-server", "./cmd/p-server", "-client-config", "emacs"); code != 2 {
		t.Errorf("-client-config emacs: exit %d, want 2", code)
	}
	g.save(t)

	// The command the configuration launches starts the server.
	if code, _, stderr := mcpgen(t, dir, "-server", "./cmd/p-server"); code != 0 {
		t.Fatalf("generate: exit %d; stderr:\n%s", code, stderr)
	}
	cmd := exec.Command(goPath, "run", "-C", filepath.Join(dir, "cmd/p-server"), ".", "-version")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "p dev\n" {
		t.Errorf("launch command -version: got %q (%v), want %q", out, err, "p dev\n")
	}
}

func TestInitGolden(t *testing.T) {
	g := readGolden(t, "testdata/init.txtar")
	mod := newModule(t, "package p\n")
	dir := filepath.Join(mod, "hello")
	code, _, stderr := mcpgen(t, mod, "init", "hello")
	if code != 0 {
		t.Fatalf("init: exit %d, want 0; stderr:\n%s", code, stderr)
	}
	g.check(t, "want/stderr", strings.ReplaceAll(stderr, dir, "$DIR"))
	for _, s := range scaffold {
		data, err := os.ReadFile(filepath.Join(dir, s.path))
		if err != nil {
			t.Fatal(err)
		}
		g.check(t, "want/"+s.path, string(data))
	}
	g.save(t)
	for _, f := range []string{"mcp_gen.go", "cmd/hello-server/main.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init must generate %s: %v", f, err)
		}
	}
	goCmd(t, mod, "vet", "./...")
	goCmd(t, mod, "test", "./hello/...")
	// The go:generate line works once mcpgen is a tool of the module, as the
	// next steps say, and regenerates the same files.
	goCmd(t, mod, "get", "-tool", "github.com/mcpgen/mcpgen/cmd/mcpgen")
	before, err := os.ReadFile(filepath.Join(dir, "mcp_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	goCmd(t, mod, "generate", "./hello/...")
	if after, _ := os.ReadFile(filepath.Join(dir, "mcp_gen.go")); !bytes.Equal(before, after) {
		t.Errorf("go generate changed the mcp_gen.go that init wrote")
	}

	// A second init refuses to overwrite, and writes nothing.
	before, _ = os.ReadFile(filepath.Join(dir, "handlers.go"))
	if code, _, stderr := mcpgen(t, mod, "init", "hello"); code != 1 || !strings.Contains(stderr, "already exists") {
		t.Errorf("second init: exit %d, stderr %q; want 1 and already exists", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "handlers.go")); !bytes.Equal(before, after) {
		t.Errorf("second init changed handlers.go")
	}
	// Outside a module, init explains and writes nothing.
	empty := t.TempDir()
	if code, _, stderr := mcpgen(t, empty, "init"); code != 1 || !strings.Contains(stderr, "go mod init") {
		t.Errorf("init outside a module: exit %d, stderr %q; want 1 and a go mod init hint", code, stderr)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("init outside a module wrote %d entries", len(entries))
	}
}

func TestPackageName(t *testing.T) {
	for dir, want := range map[string]string{"/a/hello": "hello", "/a/My-Tools": "mytools", "/a/9lives": "tools", "/a/type": "tools", "/a/main": "tools", "/a/--": "tools"} {
		if got := packageName(dir); got != want {
			t.Errorf("packageName(%q) = %q, want %q", dir, got, want)
		}
	}
}
