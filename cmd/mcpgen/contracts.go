package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/compat"
)

// config is the generator configuration for the options, in dir.
func (o options) config(dir string) gen.Config {
	return gen.Config{Dir: dir, Patterns: o.patterns, Output: o.output, ServerDir: o.server,
		Strict: o.strict, Lint: o.lintNames(), Tags: o.tags, VerbatimDocs: o.verbatim, With: o.withNames()}
}

// lintNames splits -lint.
func (o options) lintNames() []string { return splitList(o.lint) }

// withNames splits -with.
func (o options) withNames() []string { return splitList(o.with) }

// splitList splits a comma-separated flag value, dropping empty names.
func splitList(list string) []string {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// contracts handles -tools-json and -compat after a successful generation.
// It returns the exit status when the run ends here (-compat writes no
// generated files), or -1 to go on.
func contracts(ctx context.Context, o options, cwd string, res *gen.Result, stdout, stderr io.Writer) int {
	if o.toolsOut == "" && o.compat == "" {
		return -1
	}
	cur := compat.FromProgram(res.Model)
	if o.toolsOut != "" {
		if err := writeContracts(o.toolsOut, cwd, cur, stdout); err != nil {
			fmt.Fprintf(stderr, "mcpgen: -tools-json: %v\n", err)
			return exitError
		}
	}
	if o.compat == "" {
		return -1
	}
	base, err := baseContracts(ctx, o, cwd)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: -compat %s: %v\n", o.compat, err)
		return exitError
	}
	return report(o.compat, base, cur, stdout, stderr)
}

// writeContracts writes the tools.json file ("-" is stdout).
func writeContracts(path, cwd string, c compat.Contracts, stdout io.Writer) error {
	data, err := c.Marshal()
	if err != nil {
		return err
	}
	if path == "-" {
		_, err = stdout.Write(data)
		return err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return writeAtomic(path, data)
}

// baseContracts reads the contracts of -compat BASE: a tools.json file, or
// the packages generated as of a git revision.
func baseContracts(ctx context.Context, o options, cwd string) (compat.Contracts, error) {
	path := o.compat
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		data, err := os.ReadFile(path)
		if err != nil {
			return compat.Contracts{}, err
		}
		return compat.Parse(data)
	}
	dir, cleanup, err := compat.Checkout(ctx, cwd, o.compat)
	if err != nil {
		return compat.Contracts{}, err
	}
	defer cleanup()
	cfg := o.config(dir)
	cfg.Lint, cfg.ServerDir = nil, ""
	res, err := gen.Generate(ctx, cfg)
	if err != nil {
		return compat.Contracts{}, err
	}
	if len(res.Diagnostics) > 0 {
		return compat.Contracts{}, fmt.Errorf("the base does not generate: %s", res.Diagnostics[0])
	}
	return compat.FromProgram(res.Model), nil
}

// report prints every change since the contracts of base (named name) and
// returns 1 when one breaks clients.
func report(name string, base, cur compat.Contracts, stdout, stderr io.Writer) int {
	changes, err := compat.Diff(base, cur)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: -compat: %v\n", err)
		return exitError
	}
	for _, c := range changes {
		w := stdout
		if c.Breaking {
			w = stderr
		}
		fmt.Fprintln(w, c)
	}
	n := 0
	for _, c := range changes {
		if c.Breaking {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(stderr, "mcpgen: %d breaking change(s) to the tool contracts since %s\n", n, name)
		return exitError
	}
	return exitOK
}
