// Package cli is the command line of serve.Main (runtime/serve): its flags, its usage text,
// the hint for a person who starts a stdio server in a terminal, and its run
// (run.go).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// Flags are Main's parsed flags.
type Flags struct {
	Stdio    bool
	HTTPAddr string
	SSE      bool // with -http, also the 2024-11-05 HTTP+SSE transport
	LogLevel slog.Level
	Version  bool
	Store    string // -store: memory or redis://host:port/db (env MCP_STORE)
	Audit    bool   // -audit: one JSON audit record per request on stderr (env MCP_AUDIT=1)
}

// Parse parses Main's flags for the command name; serves returns the lines
// about what the server serves that -h prints (nil: none); extra, when not nil, defines further flags (e.g. the OAuth
// flags of runtime/auth). It returns flag.ErrHelp after printing the usage for -h.
//
// With extra nil (runtime/auth not linked in), the OAuth flags and their
// environment variables are still recognised, only to refuse them with an
// error saying how to link OAuth in: a server configured for OAuth must never
// start without it.
func Parse(name string, serves func() []string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (Flags, error) {
	var f Flags
	var level string
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.Stdio, "stdio", false, "serve on stdin/stdout (default)")
	fs.StringVar(&f.HTTPAddr, "http", "", "serve Streamable HTTP on `addr` at /mcp")
	fs.BoolVar(&f.SSE, "sse", false, "with -http, also serve the 2024-11-05 HTTP+SSE transport at /sse")
	fs.StringVar(&level, "log-level", "info", "stderr log `level`: debug, info, warn, error")
	fs.BoolVar(&f.Version, "version", false, "print the version and exit")
	fs.StringVar(&f.Store, "store", os.Getenv("MCP_STORE"), "idempotency store `URL`: memory or redis://host:port/db (env MCP_STORE)")
	fs.BoolVar(&f.Audit, "audit", os.Getenv("MCP_AUDIT") == "1", "write one JSON audit record per request to stderr (env MCP_AUDIT=1)")
	var unlinked []*authFlag
	if extra != nil {
		extra(fs)
	} else {
		unlinked = unlinkedAuthFlags(fs)
	}
	fs.Usage = func() {
		var lines []string
		if serves != nil {
			lines = serves()
		}
		usage(stderr, fs, name, lines)
	}
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	for _, a := range unlinked {
		if a.value != "" {
			return f, fmt.Errorf("%s: this server is built without OAuth (package %s is not linked in): "+
				"regenerate its main with mcpgen -with auth (a scope=\"...\" on a tool does it too), "+
				"or import that package blank in main", a.source(), AuthPackage)
		}
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.Stdio && f.HTTPAddr != "":
		return f, errors.New("-stdio and -http are exclusive")
	case f.SSE && f.HTTPAddr == "":
		return f, errors.New("-sse needs -http")
	}
	if err := f.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return f, fmt.Errorf("-log-level: %w", err)
	}
	return f, nil
}

// AuthPackage is the package that gives Main its OAuth flags.
const AuthPackage = "github.com/mcpgen/mcpgen/runtime/auth"

// AuthFlags are runtime/auth's flags and the environment variables they
// default to (runtime/auth's tests check that the two lists agree).
var AuthFlags = [][2]string{
	{"auth-issuer", "MCP_AUTH_ISSUER"},
	{"auth-audience", "MCP_AUTH_AUDIENCE"},
	{"auth-introspection", "MCP_AUTH_INTROSPECTION_URL"},
	{"auth-jwt-typ", "MCP_AUTH_JWT_TYP"},
	{"auth-allow-http", "MCP_AUTH_ALLOW_HTTP"},
}

// authBoolFlags are the AuthFlags that take no value.
var authBoolFlags = map[string]bool{"auth-allow-http": true}

// An authFlag is an OAuth flag of a server without runtime/auth.
type authFlag struct {
	name, env, value string
	set              bool // given on the command line, not from env
}

func (a *authFlag) String() string   { return a.value }
func (a *authFlag) IsBoolFlag() bool { return authBoolFlags[a.name] }
func (a *authFlag) Set(v string) error {
	a.value, a.set = v, true
	return nil
}

// source names where the value came from, for the error.
func (a *authFlag) source() string {
	if a.set {
		return "-" + a.name
	}
	return a.env
}

// unlinkedAuthFlags defines the OAuth flags on fs, to be refused when given.
func unlinkedAuthFlags(fs *flag.FlagSet) []*authFlag {
	var out []*authFlag
	for _, nf := range AuthFlags {
		a := &authFlag{name: nf[0], env: nf[1], value: os.Getenv(nf[1])}
		fs.Var(a, a.name, "not available: this server is built without OAuth (mcpgen -with auth)")
		out = append(out, a)
	}
	return out
}

// usage prints -h: what the command serves, then its flags.
func usage(w io.Writer, fs *flag.FlagSet, name string, serves []string) {
	fmt.Fprintf(w, "usage: %s [-stdio | -http addr [-sse]] [-log-level level] [-store url] [-audit]\n\n", name)
	fmt.Fprintf(w, "%s is an MCP server. An MCP client launches it over stdio, or reaches it over\n", name)
	fmt.Fprintf(w, "Streamable HTTP at http://ADDR/mcp when started with -http ADDR.\n\n")
	for _, line := range serves {
		fmt.Fprintln(w, line)
	}
	if len(serves) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "flags:")
	fs.PrintDefaults()
}

// TerminalHint tells a person who started the server in a terminal what it is
// waiting for.
func TerminalHint(w io.Writer, name string) {
	fmt.Fprintf(w, "%s: serving MCP on stdin/stdout, waiting for a client's JSON-RPC messages.\n", name)
	fmt.Fprintf(w, "%s: an MCP client should start this command; run it with -h for flags, or -http ADDR to serve HTTP. Ctrl-D exits.\n", name)
}

// IsTerminal reports whether r is a character device such as a terminal. It
// errs on the side of yes (/dev/null is one too): the hint goes to stderr only.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
