package runtime

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// Main runs s as a command: it parses os.Args[1:], serves until stdin ends (stdio) or
// a signal arrives, and returns the exit code (0 success, 1 failure, 2 usage).
//
//	-stdio            serve newline-delimited JSON on stdin/stdout (the default)
//	-http ADDR        serve Streamable HTTP on ADDR at path /mcp
//	-log-level LEVEL  debug, info, warn or error (stderr logs; default info)
//	-store URL        the idempotency store: memory (default) or redis://host:port/db
//	                  (needs runtime/store/redisstore linked in; env MCP_STORE)
//	-audit            one JSON audit record per request on stderr (env MCP_AUDIT=1)
//	-version          print the server's name and version and exit
//
// SIGINT and SIGTERM stop reading, let in-flight requests finish within
// Options.DrainTimeout, then cancel them; a second signal ends the process at once.
// -h prints the usage with the names of the tools served.
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
	return s.main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// mainFlags are Main's parsed flags.
type mainFlags struct {
	stdio    bool
	httpAddr string
	logLevel string
	version  bool
	store    string
	audit    bool
}

// main is Main with its environment passed in.
func (s *Server) main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := s.parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", s.commandName(), err)
		return 2
	}
	if f.version {
		fmt.Fprintf(stdout, "%s %s\n", s.info.Name, s.info.Version)
		return 0
	}
	closeStore, err := s.applyEffectFlags(ctx, f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", s.commandName(), err)
		return 1
	}
	defer closeStore()
	if f.httpAddr != "" {
		err = s.serveHTTPMain(ctx, f.httpAddr) // http.go
	} else {
		if isTerminal(stdin) {
			s.terminalHint(stderr)
		}
		err = s.ServeStdio(ctx, stdin, stdout)
	}
	if err != nil {
		s.logger.Error("serve", "err", err)
		return 1
	}
	return 0
}

// parseFlags parses Main's flags and applies -log-level.
func (s *Server) parseFlags(args []string, stderr io.Writer) (mainFlags, error) {
	var f mainFlags
	fs := flag.NewFlagSet(s.commandName(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.stdio, "stdio", false, "serve on stdin/stdout (default)")
	fs.StringVar(&f.httpAddr, "http", "", "serve Streamable HTTP on `addr` at /mcp")
	fs.StringVar(&f.logLevel, "log-level", "info", "stderr log `level`: debug, info, warn, error")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.StringVar(&f.store, "store", os.Getenv("MCP_STORE"), "idempotency store `URL`: memory or redis://host:port/db (env MCP_STORE)")
	fs.BoolVar(&f.audit, "audit", os.Getenv("MCP_AUDIT") == "1", "write one JSON audit record per request to stderr (env MCP_AUDIT=1)")
	fs.Usage = func() { s.usage(stderr, fs) }
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.stdio && f.httpAddr != "":
		return f, errors.New("-stdio and -http are exclusive")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return f, fmt.Errorf("-log-level: %w", err)
	}
	if s.logLevel != nil {
		s.logLevel.Set(level)
	}
	return f, nil
}

// applyEffectFlags opens the -store and turns on -audit; the returned function
// closes the store.
func (s *Server) applyEffectFlags(ctx context.Context, f mainFlags, stderr io.Writer) (func(), error) {
	if f.audit {
		s.audit = slog.New(slog.NewJSONHandler(stderr, nil))
	}
	if f.store == "" || f.store == "memory" {
		return func() {}, nil
	}
	st, err := store.Open(ctx, f.store)
	if err != nil {
		return nil, fmt.Errorf("-store: %w", err)
	}
	s.SetStore(st)
	return func() { st.Close() }, nil
}

// commandName names the program in messages.
func (s *Server) commandName() string {
	if s.info.Name != "" {
		return s.info.Name
	}
	return "mcp-server"
}

// usage prints -h: what the command serves, then its flags.
func (s *Server) usage(w io.Writer, fs *flag.FlagSet) {
	name := s.commandName()
	fmt.Fprintf(w, "usage: %s [-stdio | -http addr] [-log-level level] [-store url] [-audit]\n\n", name)
	fmt.Fprintf(w, "%s is an MCP server. An MCP client launches it over stdio, or reaches it over\n", name)
	fmt.Fprintf(w, "Streamable HTTP at http://ADDR/mcp when started with -http ADDR.\n\n")
	if names := s.toolNames(); len(names) > 0 {
		fmt.Fprintf(w, "tools: %s\n\n", strings.Join(names, ", "))
	}
	fmt.Fprintln(w, "flags:")
	fs.PrintDefaults()
}

// toolNames lists the registered tools in tools/list order.
func (s *Server) toolNames() []string {
	var names []string
	for _, e := range s.tools.Load().list {
		names = append(names, e.tool.Name)
	}
	return names
}

// terminalHint tells a person who started the server in a terminal what it is
// waiting for.
func (s *Server) terminalHint(w io.Writer) {
	fmt.Fprintf(w, "%s: serving MCP on stdin/stdout, waiting for a client's JSON-RPC messages.\n", s.commandName())
	fmt.Fprintf(w, "%s: an MCP client should start this command; run it with -h for flags, or -http ADDR to serve HTTP. Ctrl-D exits.\n", s.commandName())
}

// isTerminal reports whether r is a character device such as a terminal. It
// errs on the side of yes (/dev/null is one too): the hint goes to stderr only.
func isTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
