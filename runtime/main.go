package runtime

// main.go: Main: a Server run as a command (stdio, or -http ADDR); internal/cli
// parses its command line and runs it over the callbacks given here.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

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
func Main(s *Server) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal during the drain kills the process at once
	}()
	defer startCPUProfile(os.Getenv(CPUProfileEnv), os.Stderr)()
	return s.main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
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

// main is Main with its environment passed in; internal/cli runs the command.
func (s *Server) main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opts *HTTPOptions // what a registered MainAuth configured; servedLines: mainhelp.go
	p := cli.Program{Name: s.commandName(), Version: s.info.Name + " " + s.info.Version, Serves: s.servedLines,
		Audit:    func(w io.Writer) { s.audit = slog.New(slog.NewJSONHandler(w, nil)) },
		SetStore: s.SetStore,
		Configure: func(http bool) error {
			if a := registeredMainAuth(); a != nil { // mainauth.go
				opts = &HTTPOptions{}
				return a.Configure(s, http, opts)
			}
			return nil
		},
		Serve: func(ctx context.Context, f cli.Flags, stdin io.Reader, stdout io.Writer) error {
			if f.HTTPAddr == "" {
				return s.ServeStdio(ctx, stdin, stdout)
			}
			if opts == nil {
				opts = &HTTPOptions{}
			}
			opts.LegacySSE = f.SSE
			if scopes := strings.Fields(os.Getenv(AnonymousScopesEnv)); len(scopes) > 0 && opts.Mount == nil {
				opts.AnonymousPrincipal = &Principal{Subject: "anonymous", Scopes: scopes}
			}
			if w := s.unauthenticatedWarning(opts); w != "" { // mainhelp.go
				s.logger.Warn(w)
			}
			return s.serveHTTPMain(ctx, f.HTTPAddr, opts) // http.go
		},
		Failed: func(err error) { s.logger.Error("serve", "err", err) },
	}
	if s.logLevel != nil {
		p.SetLogLevel = s.logLevel.Set
	}
	if a := registeredMainAuth(); a != nil {
		p.Flags = a.Flags
	}
	return cli.Run(ctx, p, args, stdin, stdout, stderr)
}

// commandName names the program in messages.
func (s *Server) commandName() string {
	if s.info.Name != "" {
		return s.info.Name
	}
	return "mcp-server"
}

// toolNames lists the registered tools in tools/list order.
func (s *Server) toolNames() []string {
	var names []string
	for _, e := range s.tools.Load().List() {
		names = append(names, e.tool.Name)
	}
	return names
}
