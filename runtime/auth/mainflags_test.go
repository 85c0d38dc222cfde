package auth

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/cli"
)

// TestMainFlagsMatchUnlinked: the flags and variables a main without this
// package refuses (runtime/internal/cli.AuthFlags) are exactly the ones this
// package defines, so a server built without OAuth never ignores one.
func TestMainFlagsMatchUnlinked(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	(&mainFlags{}).Flags(fs)
	var got []string
	fs.VisitAll(func(f *flag.Flag) { got = append(got, f.Name) })
	var want []string
	isBool := func(name string) bool {
		b, ok := fs.Lookup(name).Value.(interface{ IsBoolFlag() bool })
		return ok && b.IsBoolFlag()
	}
	for _, nf := range cli.AuthFlags {
		want = append(want, nf[0])
		slices.Sort(want)
		if fs.Lookup(nf[0]) != nil && isBool(nf[0]) {
			t.Setenv(nf[1], "1") // a boolean flag's variable is "1" for true
		} else {
			t.Setenv(nf[1], "value-of-"+nf[1])
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("runtime/auth defines %v, cli.AuthFlags lists %v", got, want)
	}
	// Each flag's default is read from the variable cli.AuthFlags pairs it with.
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	(&mainFlags{}).Flags(fs)
	for _, nf := range cli.AuthFlags {
		want := os.Getenv(nf[1])
		if isBool(nf[0]) {
			want = "true"
		}
		if v := fs.Lookup(nf[0]).DefValue; v != want {
			t.Errorf("-%s defaults to %q, not to $%s", nf[0], v, nf[1])
		}
	}
}

// TestMainFlagsPlainHTTP: a generated main refuses an http:// issuer that is
// not loopback, naming -auth-allow-http, and takes it with that flag; a
// loopback one needs nothing (with -auth-jwt-typ given as a list).
func TestMainFlagsPlainHTTP(t *testing.T) {
	parse := func(args ...string) (*mainFlags, error) {
		m := &mainFlags{}
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		m.Flags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		var opts mcpruntime.HTTPOptions
		return m, m.Configure(mcpruntime.NewServer(mcpruntime.Implementation{Name: "x", Version: "1"}, nil), true, &opts)
	}
	aud := []string{"-auth-audience", "https://mcp.example.com/mcp"}
	if _, err := parse(append(aud, "-auth-issuer", "http://as.example.com")...); err == nil || !strings.Contains(err.Error(), "-auth-allow-http") {
		t.Errorf("http issuer: %v, want a refusal naming -auth-allow-http", err)
	}
	if _, err := parse(append(aud, "-auth-issuer", "http://as.example.com", "-auth-allow-http")...); err != nil {
		t.Errorf("http issuer with -auth-allow-http: %v", err)
	}
	if _, err := parse(append(aud, "-auth-issuer", "http://127.0.0.1:4444", "-auth-jwt-typ", "JWT, jwt ")...); err != nil {
		t.Errorf("loopback issuer: %v", err)
	}
}
