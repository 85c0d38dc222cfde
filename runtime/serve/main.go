// Package serve runs an MCP server as a command: Main parses the command line
// (internal/cli does the work) and serves the Server over stdio or Streamable
// HTTP until stdin ends or a signal arrives. It is not part of the protocol
// core (package runtime): a generated server main calls it,
//
//	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "dev"}, nil)
//	notes.RegisterMCP(s)
//	os.Exit(serve.Main(s))
//
// and a program with a main of its own calls the runtime's ServeStdio or
// ListenAndServe instead. runtime/auth, when linked in, adds the OAuth flags
// (RegisterAuth).
package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/cli"
)

// Main runs s as a command: it parses os.Args[1:], serves until stdin ends (stdio) or
// a signal arrives, and returns the exit code (0 success, 1 failure, 2 usage).
//
//	-stdio            serve newline-delimited JSON on stdin/stdout (the default)
//	-http ADDR        serve Streamable HTTP on ADDR at path /mcp
//	-sse              with -http, also serve the 2024-11-05 HTTP+SSE transport at /sse
//	-log-level LEVEL  debug, info, warn or error (stderr logs; default info)
//	-store URL        the idempotency store: memory (default) or redis://host:port/db
//	                  (needs runtime/store/redisstore linked in; env MCP_STORE)
//	-audit            one JSON audit record per request on stderr (env MCP_AUDIT=1)
//	-version          print the server's name and version and exit
//
// With the environment variable MCP_CPUPROFILE naming a file, a server built with
// -tags mcpgen_pprof writes a CPU profile of the whole run there (go tool pprof),
// as the benchmark harness's BENCH_CPUPROFILE does for its servers
// (scripts/profile-cell.sh); without the tag it says so on stderr.
//
// SIGINT and SIGTERM stop reading, let in-flight requests finish within
// Options.DrainTimeout, then cancel them; a second signal ends the process at once.
// -h prints the usage with the tools, resources, templates and prompts served.
//
// Over stdio the server is meant to be launched by an MCP client. Started by hand in
// a terminal (stdin is a TTY) it prints a hint to stderr and keeps serving, so a
// JSON-RPC line can still be typed; Ctrl-D ends it.
func Main(s *mcpruntime.Server) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal during the drain kills the process at once
	}()
	defer startCPUProfile(os.Getenv(CPUProfileEnv), os.Stderr)()
	return run(ctx, s, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// CPUProfileEnv names the environment variable of the file Main writes a CPU
// profile to; unset, Main does not profile.
const CPUProfileEnv = "MCP_CPUPROFILE"

// cpuProfiler starts a CPU profile into path and returns what stops it; nil
// unless the server was built with -tags mcpgen_pprof (cpuprofile.go), so a
// generated server does not link runtime/pprof (binary size, cold RSS).
var cpuProfiler func(path string, stderr io.Writer) (stop func())

// startCPUProfile starts the profile MCP_CPUPROFILE asks for (nothing when path
// is empty); a failure, or a build without the profiler, is reported on stderr
// and serving goes on.
func startCPUProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	if cpuProfiler == nil {
		fmt.Fprintf(stderr, "%s: this server was built without the profiler (go build -tags mcpgen_pprof); not profiling\n", CPUProfileEnv)
		return func() {}
	}
	return cpuProfiler(path, stderr)
}

// AnonymousScopesEnv names the environment variable whose space-separated scopes
// Main grants to HTTP callers that present no token, when no -auth-issuer is
// given (HTTPOptions.AnonymousPrincipal): for private networks and tests only.
const AnonymousScopesEnv = "MCP_ANONYMOUS_SCOPES"

// run is Main with its environment passed in; internal/cli runs the command.
func run(ctx context.Context, s *mcpruntime.Server, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts *mcpruntime.HTTPOptions // what a registered Auth configured; servedLines: help.go
	info := s.Info()
	p := cli.Program{Name: commandName(info), Version: info.Name + " " + info.Version,
		Serves:      func() []string { return servedLines(s) },
		Audit:       func(w io.Writer) { s.SetAudit(slog.New(slog.NewJSONHandler(w, nil))) },
		SetStore:    s.SetStore,
		SetLogLevel: s.SetLogLevel,
		Configure: func(http bool) error {
			if a := registeredAuth(); a != nil { // auth.go
				opts = &mcpruntime.HTTPOptions{}
				return a.Configure(s, http, opts)
			}
			return nil
		},
		Serve: func(ctx context.Context, f cli.Flags, stdin io.Reader, stdout io.Writer) error {
			if f.HTTPAddr == "" {
				return s.ServeStdio(ctx, stdin, stdout)
			}
			if opts == nil {
				opts = &mcpruntime.HTTPOptions{}
			}
			opts.LegacySSE = f.SSE
			if scopes := strings.Fields(os.Getenv(AnonymousScopesEnv)); len(scopes) > 0 && opts.Mount == nil {
				opts.AnonymousPrincipal = &mcpruntime.Principal{Subject: "anonymous", Scopes: scopes}
			}
			if w := unauthenticatedWarning(s, opts); w != "" { // help.go
				s.Logger().Warn(w)
			}
			return s.ListenAndServe(ctx, f.HTTPAddr, opts)
		},
		Failed: func(err error) { s.Logger().Error("serve", "err", err) },
	}
	if a := registeredAuth(); a != nil {
		p.Flags = a.Flags
	}
	return cli.Run(ctx, p, args, stdin, stdout, stderr)
}

// commandName names the program in messages.
func commandName(info mcpruntime.Implementation) string {
	if info.Name != "" {
		return info.Name
	}
	return "mcp-server"
}
