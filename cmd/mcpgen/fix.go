package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// checkTags checks -tags and -fix.
func checkTags(o options) error {
	if _, err := schema.ParseDialect(o.tags); err != nil {
		return fmt.Errorf("-tags: %w", err)
	}
	if o.fix && o.check {
		return errors.New("-fix rewrites source files: it cannot run with -check")
	}
	return nil
}

// fix rewrites the struct tags that follow another library's convention
// (as -tags names it, or as mcpgen's diagnostics guess) into mcpgen's, and
// prints each file it changed. Problems it cannot settle are left to the
// generation that follows, which reports them.
func fix(ctx context.Context, o options, cwd string, stderr io.Writer) int {
	cfg := o.config(cwd)
	cfg.Fix = true
	res, err := gen.Generate(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return exitError
	}
	if res.Model == nil { // loading failed: the generation reports why
		return exitOK
	}
	for _, f := range res.Fixed {
		st, err := os.Stat(f.Path)
		if err == nil {
			err = writeAtomic(f.Path, f.Content)
		}
		if err == nil {
			err = os.Chmod(f.Path, st.Mode().Perm()) // keep the source file's mode
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: -fix: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stderr, "mcpgen: -fix: rewrote struct tags in %s\n", relative(cwd, f.Path))
	}
	return exitOK
}
