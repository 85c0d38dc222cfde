package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"unicode"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/templates"
)

// initData is the data of templates/init/*.tmpl.
type initData struct {
	Package string // Go package name
	Command string // server command name, the base of its directory under cmd/
}

// scaffold maps each file init writes to its template.
var scaffold = []struct{ path, tmpl string }{
	{"handlers.go", "init/handlers.go.tmpl"},
	{"handlers_test.go", "init/handlers_test.go.tmpl"},
	{"testdata/greet.golden", "init/greet.golden.tmpl"},
}

// runInit is mcpgen init [DIR]: it writes a handler package with one tool, its
// test and golden file, then generates mcp_gen.go and the server main.
func runInit(ctx context.Context, args []string, stderr io.Writer) int {
	fl := flag.NewFlagSet("mcpgen init", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpgen init [dir]\n\nWrites a new handler package in dir (default .), inside an existing Go module:\none documented tool, its go:generate line, a golden test and a server main.")
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fl.NArg() > 1 {
		usageError(stderr, "init takes at most one directory, got %q", fl.Args())
		return exitUsage
	}
	target := fl.Arg(0)
	if target == "" {
		target = "."
	}
	dir, err := filepath.Abs(target)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return exitError
	}
	if err := initPackage(ctx, dir, stderr); err != nil {
		fmt.Fprintf(stderr, "mcpgen init: %v\n", err)
		return exitError
	}
	return exitOK
}

// initPackage scaffolds dir; it writes nothing when a file it would write exists.
func initPackage(ctx context.Context, dir string, stderr io.Writer) error {
	gomod, err := findGoMod(dir)
	if err != nil {
		return err
	}
	files, err := renderScaffold(packageName(dir))
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.Path)); err == nil {
			return fmt.Errorf("%s already exists: init writes only new files", filepath.Join(dir, f.Path))
		}
	}
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.Path), f.Content); err != nil {
			return err
		}
	}
	d := initData{Package: packageName(dir)}
	d.Command = d.Package + "-server"
	res, err := gen.Generate(ctx, gen.Config{Dir: dir, Patterns: []string{"."}, ServerDir: "./cmd/" + d.Command})
	if err != nil {
		return err
	}
	for _, diag := range res.Diagnostics {
		fmt.Fprintln(stderr, diag)
	}
	if len(res.Diagnostics) > 0 {
		return errors.New("generating the scaffold failed")
	}
	if status := write(dir, res.Files, stderr); status != exitOK {
		return errors.New("writing the generated files failed")
	}
	nextSteps(stderr, dir, gomod, d)
	return nil
}

// renderScaffold executes the init templates for package pkg.
func renderScaffold(pkg string) ([]gen.File, error) {
	d := initData{Package: pkg, Command: pkg + "-server"}
	var files []gen.File
	for _, s := range scaffold {
		t, err := template.ParseFS(templates.FS, s.tmpl)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", gen.ErrInternal, err)
		}
		var buf bytes.Buffer
		if err := t.Execute(&buf, d); err != nil {
			return nil, fmt.Errorf("%w: %v", gen.ErrInternal, err)
		}
		files = append(files, gen.File{Path: filepath.FromSlash(s.path), Content: buf.Bytes()})
	}
	return files, nil
}

// findGoMod returns the go.mod governing dir.
func findGoMod(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "go.mod")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside a Go module: run go mod init MODULE-PATH first", dir)
		}
	}
}

// packageName derives a Go package name from dir's base name: its lowercase
// letters and digits, or "tools" when that is not an identifier.
func packageName(dir string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(dir)) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) || token.IsKeyword(name) || name == "main" {
		return "tools"
	}
	return name
}

// nextSteps tells the user what to run now.
func nextSteps(w io.Writer, dir, gomod string, d initData) {
	fmt.Fprintf(w, "mcpgen: wrote package %s with the tool greet, its test and a server main\n", d.Package)
	fmt.Fprintf(w, "next, in %s:\n", dir)
	if data, err := os.ReadFile(gomod); err != nil || !bytes.Contains(data, []byte("github.com/mcpgen/mcpgen/cmd/mcpgen")) {
		fmt.Fprintln(w, "  go get -tool github.com/mcpgen/mcpgen/cmd/mcpgen   # for go:generate's go tool mcpgen")
	}
	fmt.Fprintln(w, "  go test ./...")
	fmt.Fprintf(w, "  go run ./cmd/%s -h\n", d.Command)
}
