package docs_test

import (
	"bufio"
	"context"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
)

// A block is one fenced code block of a Markdown file.
//
// Tags follow the language on the fence line:
//
//	```go sample            a complete Go file: mcpgen runs on it, then go vet
//	```go walkthrough FILE  a file of the README walkthrough
//	```sh walkthrough       commands of the README walkthrough
//	```sh run               commands run in the repository root
//
// Every ```go block must carry a tag, so no Go sample escapes the tests;
// signatures and other non-compilable text go in ```text blocks.
type block struct {
	file, lang string
	tags       []string
	line       int
	body       string
}

func (b block) has(tag string) bool { return len(b.tags) > 0 && b.tags[0] == tag }

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// blocks returns the fenced blocks of a Markdown file.
func blocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []block
	var cur *block
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			words := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &block{file: path, line: n}
			if len(words) > 0 {
				cur.lang, cur.tags = words[0], words[1:]
			}
			body.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s:%d: unterminated code block", path, cur.line)
	}
	return out
}

// markdownFiles are the documents whose samples are tested.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, "../README.md")
}

func TestEveryGoBlockIsTested(t *testing.T) {
	n := 0
	for _, path := range markdownFiles(t) {
		for _, b := range blocks(t, path) {
			if b.lang != "go" {
				continue
			}
			n++
			if !b.has("sample") && !b.has("walkthrough") {
				t.Errorf("%s: a go block must be tagged sample or walkthrough (or be a text block)", b)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d go blocks, want at least 10: is the parser broken?", n)
	}
}

// repoRoot is the absolute path of the repository.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goEnv is the environment of go commands in test modules: offline, using
// the module cache and the checkout through a replace.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
}

// sampleModule writes an empty module that requires this repository through a
// replace, and returns its directory.
func sampleModule(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	rootMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	mod.WriteString("module example.com/sample\n\ngo 1.26.8\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nrequire (\n")
	for _, m := range regexp.MustCompile(`(?m)^\t(\S+ v\S+)`).FindAllStringSubmatch(string(rootMod), -1) {
		fmt.Fprintf(&mod, "\t%s // indirect\n", m[1])
	}
	fmt.Fprintf(&mod, ")\n\nreplace github.com/mcpgen/mcpgen => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), mod.String())
	writeFile(t, filepath.Join(dir, "go.sum"), string(sum))
	return dir
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs a command in dir and fails t unless it succeeds.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

var packageClause = regexp.MustCompile(`(?m)^package (\w+)`)

// TestSamples puts every ```go sample block of the docs in a package of its
// own, generates it with mcpgen (and a server main for handler packages), and
// vets the module: each sample compiles, and its directives are accepted.
func TestSamples(t *testing.T) {
	mod := sampleModule(t)
	var handlerPkgs []string
	for _, path := range markdownFiles(t) {
		for i, b := range blocks(t, path) {
			if b.lang != "go" || !b.has("sample") {
				continue
			}
			if src, err := format.Source([]byte(b.body)); err != nil || string(src) != b.body {
				t.Errorf("%s: the sample is not gofmt-formatted (%v):\n%s", b, err, src)
			}
			m := packageClause.FindStringSubmatch(b.body)
			if m == nil {
				t.Errorf("%s: a sample is a complete file with a package clause", b)
				continue
			}
			dir := fmt.Sprintf("%s_%d", strings.TrimSuffix(filepath.Base(path), ".md"), i)
			writeFile(t, filepath.Join(mod, dir, m[1]+".go"), fmt.Sprintf("// sample from %s\n\n%s", b, b.body))
			if strings.Contains(b.body, "//mcp:") {
				handlerPkgs = append(handlerPkgs, dir)
			}
		}
	}
	for _, dir := range handlerPkgs {
		res, err := gen.Generate(context.Background(), gen.Config{Dir: filepath.Join(mod, dir), ServerDir: "./cmd/server", Env: goEnv()})
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, d := range res.Diagnostics {
			t.Errorf("%s: %s", dir, d)
		}
		for _, f := range res.Files {
			writeFile(t, f.Path, string(f.Content))
		}
	}
	if t.Failed() {
		return
	}
	run(t, mod, goEnv(), "go", "vet", "./...")
}

// copyRepo copies the repository (without .git) into a new directory and
// returns it, for commands that write files: the README's main command
// regenerates examples/notes, which other tests (mcpgen -check, the examples'
// own freshness tests) read at the same time under go test ./....
func copyRepo(t *testing.T) string {
	t.Helper()
	root, dst := repoRoot(t), t.TempDir()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		switch {
		case d.Name() == ".git" && d.IsDir():
			return filepath.SkipDir
		case d.Name() == ".git": // a worktree's pointer to its repository
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestReadmeRun runs the README's ```sh run blocks in a copy of the
// repository, as in its root.
func TestReadmeRun(t *testing.T) {
	n := 0
	for _, b := range blocks(t, "../README.md") {
		if b.lang != "sh" || !b.has("run") {
			continue
		}
		n++
		out := run(t, copyRepo(t), os.Environ(), "bash", "-euo", "pipefail", "-c", b.body)
		if !strings.Contains(out, `"structuredContent"`) {
			t.Errorf("%s: got %q, want a tools/call result", b, out)
		}
	}
	if n == 0 {
		t.Error("README has no ```sh run block")
	}
}

// TestReadmeWalkthrough runs the README walkthrough, in order, in a fresh
// directory: the sh blocks as bash commands, the go blocks as the files they
// name. MCPGEN is the checkout, as the walkthrough asks.
//
// The test is offline (GOPROXY=off), so the go command cannot reach the
// checksum database when `go get -tool` records the checksums of mcpgen's
// dependencies in the new module's go.sum; it would pass only on a machine
// whose module cache remembers earlier lookups. So right after `go mod init`
// the new module gets the checkout's go.sum: the same lines a user with a
// network gets from the checksum database through the proxy, each already
// verified when the checkout's dependencies were downloaded. Checksum
// verification stays on: a module missing from the checkout's go.sum still
// needs the database, and fails here.
func TestReadmeWalkthrough(t *testing.T) {
	var script strings.Builder
	script.WriteString("set -euxo pipefail\n")
	script.WriteString(`go() { command go "$@" && if [ "$1 $2" = "mod init" ]; then cp "$MCPGEN/go.sum" go.sum; fi; }` + "\n")
	for _, b := range blocks(t, "../README.md") {
		switch {
		case !b.has("walkthrough"):
		case b.lang == "sh":
			script.WriteString(b.body)
		case b.lang == "go" && len(b.tags) == 2:
			fmt.Fprintf(&script, "cat > %s <<'MCPGEN_EOF'\n%sMCPGEN_EOF\n", b.tags[1], b.body)
		default:
			t.Errorf("%s: want ```sh walkthrough or ```go walkthrough FILE", b)
		}
	}
	if !strings.Contains(script.String(), "go mod init") {
		t.Fatal("the walkthrough no longer runs go mod init: where does its module get its go.sum?")
	}
	env := append(goEnv(), "MCPGEN="+repoRoot(t))
	out := run(t, t.TempDir(), env, "bash", "-c", script.String())
	for _, want := range []string{
		"tools: forecast",               // -h names the tool
		`"summary":"Paris: sunny for 3`, // the call, with the default applied
		`"mcpServers"`,                  // install -dry-run
		"ok  \texample.com/weather",     // the package's own tests
		"tools: post_alert, forecast",   // -h after the scoped write
		"-auth-issuer",                  // the main links OAuth
	} {
		if !strings.Contains(out, want) {
			t.Errorf("walkthrough output lacks %q:\n%s", want, out)
		}
	}
}
