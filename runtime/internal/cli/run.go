package cli

// run.go: Main's run: the flags, -version, the -store and -audit set-up, the
// authentication set-up, then one transport, each outcome with its exit code.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// A Program is the server Run runs; every function may be nil but Serve.
type Program struct {
	// Name names the program in messages; Version is what -version prints.
	Name, Version string
	// Serves returns the lines -h prints about what the server serves
	// ("tools: a, b", "resources: ...", "prompts: ...").
	Serves func() []string
	// Flags defines further flags (Parse's extra).
	Flags func(*flag.FlagSet)
	// SetLogLevel applies -log-level.
	SetLogLevel func(slog.Level)
	// Audit turns on -audit's records, written to w.
	Audit func(w io.Writer)
	// SetStore makes st, opened from -store, the server's store.
	SetStore func(st store.Store)
	// Configure sets authentication up for the chosen transport (HTTP or
	// stdio); its error is a usage error.
	Configure func(http bool) error
	// Serve serves until ctx ends (stdio: or stdin does) with the parsed flags.
	Serve func(ctx context.Context, f Flags, stdin io.Reader, stdout io.Writer) error
	// Failed reports Serve's error.
	Failed func(err error)
}

// Run runs p with args and returns the exit code: 0 success (and -h,
// -version), 1 failure (a -store that does not open, a serving error), 2
// usage (bad flags, a refused authentication set-up). Over stdio started in
// a terminal it first prints the hint.
func Run(ctx context.Context, p Program, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := Parse(p.Name, p.Serves, args, stderr, p.Flags)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		return 2
	}
	if p.SetLogLevel != nil {
		p.SetLogLevel(f.LogLevel)
	}
	if f.Version {
		fmt.Fprintln(stdout, p.Version)
		return 0
	}
	if f.Audit && p.Audit != nil {
		p.Audit(stderr)
	}
	if f.Store != "" && f.Store != "memory" {
		st, err := store.Open(ctx, f.Store)
		if err != nil {
			fmt.Fprintf(stderr, "%s: -store: %v\n", p.Name, err)
			return 1
		}
		defer st.Close()
		if p.SetStore != nil {
			p.SetStore(st)
		}
	}
	if p.Configure != nil {
		if err := p.Configure(f.HTTPAddr != ""); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
			return 2
		}
	}
	if f.HTTPAddr == "" && IsTerminal(stdin) {
		TerminalHint(stderr, p.Name)
	}
	if err := p.Serve(ctx, f, stdin, stdout); err != nil {
		if p.Failed != nil {
			p.Failed(err)
		}
		return 1
	}
	return 0
}
