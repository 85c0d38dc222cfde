package auth

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

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
	for _, nf := range cli.AuthFlags {
		want = append(want, nf[0])
		slices.Sort(want)
		t.Setenv(nf[1], "value-of-"+nf[1])
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("runtime/auth defines %v, cli.AuthFlags lists %v", got, want)
	}
	// Each flag's default is read from the variable cli.AuthFlags pairs it with.
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	(&mainFlags{}).Flags(fs)
	for _, nf := range cli.AuthFlags {
		if v := fs.Lookup(nf[0]).DefValue; v != os.Getenv(nf[1]) {
			t.Errorf("-%s defaults to %q, not to $%s", nf[0], v, nf[1])
		}
	}
}
