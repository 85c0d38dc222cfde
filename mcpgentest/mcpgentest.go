// Package mcpgentest helps a package's own tests: it calls the tools,
// resources and prompts of a server in process, through the protocol, and it
// fails a test when the package's mcpgen output is stale.
//
// Calls go through Server.HandleRaw as a client's messages would, in either
// protocol era, as a given caller, answering the server's questions:
//
//	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "x", Version: "test"}, nil)
//	RegisterMCP(s)
//	out, toolErr := mcpgentest.CallTool[Receipt](t, s, "create_ticket", TicketInput{...},
//		mcpgentest.Version(mcpgentest.Legacy),    // 2025-11-25; the default is 2026-07-28
//		mcpgentest.As("oncall", "ticket:create"), // the caller and its scopes
//		mcpgentest.Confirm(true))                 // accept the consent question
//
// ReadResource and GetPrompt do the same for resources/read and prompts/get,
// and Call for any method.
//
// The staleness check is the in-process equivalent of running mcpgen -check:
//
//	func TestGenerated(t *testing.T) {
//		mcpgentest.Check(t, ".")
//	}
//
// or, when go:generate also writes a server main (mcpgen -server ./cmd/x-server):
//
//	func TestGenerated(t *testing.T) {
//		mcpgentest.CheckServer(t, "./cmd/x-server", ".")
//	}
//
// The test reports every diagnostic, every missing, stale or obsolete file, and
// writes nothing. Tests run in their package's directory, so "." names the
// package under test. Use CheckConfig for the other generator options (-o,
// -strict, -lint).
package mcpgentest

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/gen"
)

// A TB is the part of testing.TB that the checks use.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Check runs the generator on the packages matched by patterns (default ".")
// and fails t unless the generated files on disk are up to date.
func Check(t TB, patterns ...string) {
	t.Helper()
	CheckConfig(t, gen.Config{Patterns: patterns})
}

// CheckServer is Check for packages generated with mcpgen -server dir: the
// server main in dir must be up to date too.
func CheckServer(t TB, dir string, patterns ...string) {
	t.Helper()
	CheckConfig(t, gen.Config{Patterns: patterns, ServerDir: dir})
}

// CheckConfig is Check with every generator option; cfg is used as go:generate
// would pass it (an empty Dir means the current directory).
func CheckConfig(t TB, cfg gen.Config) {
	t.Helper()
	for _, p := range Problems(context.Background(), cfg) {
		t.Errorf("%s", p)
	}
}

// Problems runs the generator with cfg and returns what mcpgen -check would
// print: the diagnostics, then "missing: PATH", "stale: PATH" and
// "obsolete: PATH" for each generated file that is not up to date (fix them
// with go generate). A nil result means the files are up to date.
func Problems(ctx context.Context, cfg gen.Config) []string {
	res, err := gen.Generate(ctx, cfg)
	if err != nil {
		return []string{"mcpgen: " + err.Error()}
	}
	var out []string
	for _, d := range res.Diagnostics {
		out = append(out, d.String())
	}
	if len(out) > 0 {
		return out
	}
	for _, o := range res.Outdated() {
		if o.Err != nil {
			out = append(out, o.Err.Error())
		} else {
			out = append(out, o.What+": "+rel(o.Path)+" (run go generate)")
		}
	}
	return out
}

// rel shortens path relative to the working directory when it lies below it.
func rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(r) {
		return r
	}
	return path
}
