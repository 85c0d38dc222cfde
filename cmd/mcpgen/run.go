package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
)

// Exit statuses, as with stringer: 0 success, 1 errors, 2 usage.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// options are the parsed command line.
type options struct {
	output   string
	check    bool
	server   string
	debug    string
	strict   string
	lint     string
	compat   string
	toolsOut string
	docs     string // -docs: catalog file (docs.go)
	client   string // -client-config: client name (clientconfig.go)
	tags     string // -tags: struct tag dialect (fix.go)
	fix      bool   // -fix: rewrite foreign struct tags (fix.go)
	with     string // -with: optional components of the -server main
	verbatim bool   // -verbatim-docs: descriptions keep the leading Go identifier
	patterns []string
}

// parseArgs parses the command line; a usage error has already been printed.
func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fl := flag.NewFlagSet("mcpgen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.output, "o", gen.DefaultOutput, "`name` of the generated file in each package")
	fl.BoolVar(&o.check, "check", false, "write nothing; exit 1 listing every stale or missing file")
	fl.StringVar(&o.server, "server", "", "also write `dir`/main.go serving all tools of the packages")
	fl.StringVar(&o.with, "with", "", "link optional `components` into the -server main, comma-separated: auth (OAuth: -auth-issuer; implied by scope=), redis (-store redis://), otel (OpenTelemetry, OTEL_* variables)")
	fl.StringVar(&o.debug, "debug", "", "print the analyzed `model` as JSON on stdout")
	fl.StringVar(&o.strict, "strict", "", "emit every input schema in a provider's strict `form` (openai), unless a tool says strict=none")
	fl.StringVar(&o.lint, "lint", "", "report as errors what the comma-separated `profiles` (openai,anthropic,gemini,marketplace) would reject")
	fl.StringVar(&o.compat, "compat", "", "compare the tool contracts with `base` (a git revision or a tools.json) and exit 1 on a breaking change")
	fl.StringVar(&o.toolsOut, "tools-json", "", "also write the tool contracts to `file` (- for stdout), for a later -compat")
	fl.StringVar(&o.docs, "docs", "", "also write a Markdown catalog of the tools, resources and prompts to `file` (- for stdout)")
	fl.StringVar(&o.client, "client-config", "", "deprecated: mcpgen install -dry-run `client` DIR prints the entry that makes a client launch the -server main")
	fl.StringVar(&o.tags, "tags", "", "read struct tags in another library's `convention`: gosdk (official Go SDK) or mcpgo (mcp-go)")
	fl.BoolVar(&o.verbatim, "verbatim-docs", false, "keep doc comments as written in descriptions (by default \"Search finds notes.\" is \"Finds notes.\")")
	fl.BoolVar(&o.fix, "fix", false, "rewrite struct tags written for the official Go SDK or mcp-go into mcpgen's form (doc comments, jsonschema keys), then generate")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpgen [flags] [packages]\n       mcpgen init [dir]\n       mcpgen install [-dry-run] [-scope user|project] [-name NAME] CLIENT TARGET")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	o.patterns = fl.Args()
	switch {
	case o.debug != "" && o.debug != "model":
		return o, usageError(stderr, "-debug accepts only \"model\", got %q", o.debug)
	case o.output == "" || strings.ContainsAny(o.output, `/\`) || !strings.HasSuffix(o.output, ".go"):
		return o, usageError(stderr, "-o must be a file name ending in .go, got %q", o.output)
	}
	if o.client != "" && (!knownClient(o.client) || o.server == "") {
		return o, usageError(stderr, "-client-config needs -server DIR and one of %s, got %q", installClientNames(), o.client)
	}
	if o.with != "" && o.server == "" {
		return o, usageError(stderr, "-with needs -server DIR")
	}
	if err := gen.CheckWith(o.withNames()); err != nil {
		return o, usageError(stderr, "-with: %v", err)
	}
	if err := checkTags(o); err != nil {
		return o, usageError(stderr, "%v", err)
	}
	if err := gen.CheckStrict(o.strict); err != nil {
		return o, usageError(stderr, "-strict: %v", err)
	}
	if err := gen.CheckLint(o.lintNames()); err != nil {
		return o, usageError(stderr, "-lint: %v", err)
	}
	return o, nil
}

// usageError prints a usage error and returns it.
func usageError(stderr io.Writer, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	fmt.Fprintf(stderr, "mcpgen: %v\n", err)
	return err
}

// run is mcpgen's main, returning the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "init" {
		return runInit(ctx, args[1:], stderr) // init.go
	}
	if len(args) > 0 && args[0] == "issuer" {
		return runIssuer(ctx, args[1:], stdout, stderr) // issuer.go
	}
	if len(args) > 0 && args[0] == "install" {
		return runInstall(args[1:], stdout, stderr) // install.go
	}
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return exitError
	}
	if o.fix {
		if status := fix(ctx, o, cwd, stderr); status != exitOK {
			return status
		}
		o.tags = "" // the tags are mcpgen's now
	}
	res, err := gen.Generate(ctx, o.config(cwd))
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return exitError
	}
	if o.debug == "model" && res.Model != nil {
		if err := dumpModel(stdout, res); err != nil {
			fmt.Fprintf(stderr, "mcpgen: internal error: %v\n", err)
			return exitError
		}
	}
	for _, d := range res.Warnings {
		d.Pos.Filename = relative(cwd, d.Pos.Filename)
		fmt.Fprintln(stderr, d)
	}
	if len(res.Diagnostics) > 0 {
		for _, d := range res.Diagnostics {
			d.Pos.Filename = relative(cwd, d.Pos.Filename)
			fmt.Fprintln(stderr, d)
		}
		return exitError
	}
	if status := extras(o, cwd, res, stdout, stderr); status >= 0 {
		return status
	}
	if status := contracts(ctx, o, cwd, res, stdout, stderr); status >= 0 {
		return status
	}
	if o.check {
		return check(cwd, res, stderr)
	}
	if status := write(cwd, res.Files, stderr); status != exitOK {
		return status
	}
	goSumHints(cwd, res.Files, stderr) // gosum.go
	return remove(res.Remove, stderr)
}

// dumpModel prints the analyzed model as indented JSON.
func dumpModel(w io.Writer, res *gen.Result) error {
	b, err := json.MarshalIndent(res.Model, "", "  ")
	if err != nil {
		return fmt.Errorf("dump model: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// relative returns path relative to dir when it lies under dir.
func relative(dir, path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// check reports every file whose content on disk differs from the generated
// one, and every obsolete generated file.
func check(cwd string, res *gen.Result, stderr io.Writer) int {
	status := exitOK
	for _, o := range res.Outdated() {
		if o.Err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", o.Err)
		} else {
			fmt.Fprintf(stderr, "mcpgen: %s: %s\n", o.What, relative(cwd, o.Path))
		}
		status = exitError
	}
	return status
}

// write writes every changed file atomically.
func write(cwd string, files []gen.File, stderr io.Writer) int {
	for _, f := range files {
		if old, err := os.ReadFile(f.Path); err == nil && bytes.Equal(old, f.Content) {
			continue
		}
		if err := writeAtomic(f.Path, f.Content); err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
	}
	return exitOK
}

// remove deletes obsolete generated files, after the new ones are written.
func remove(paths []string, stderr io.Writer) int {
	for _, path := range paths {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return exitError
		}
	}
	return exitOK
}

// writeAtomic writes data to a temporary file in path's directory and renames
// it into place, so readers never see a partial file.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// extras handles -client-config (which ends the run) and -docs after a
// successful generation; it returns the exit status, or -1 to go on.
func extras(o options, cwd string, res *gen.Result, stdout, stderr io.Writer) int {
	if o.client != "" {
		if err := clientConfig(o.client, res.Model.Server, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "mcpgen: -client-config: %v\n", err)
			return exitError
		}
		return exitOK
	}
	if o.docs != "" {
		if err := writeCatalog(o.docs, cwd, res.Model, stdout); err != nil {
			fmt.Fprintf(stderr, "mcpgen: -docs: %v\n", err)
			return exitError
		}
	}
	return -1
}
