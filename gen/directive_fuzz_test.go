package gen

import (
	"go/ast"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzToolDirective feeds arbitrary argument text of //mcp:tool to the
// directive reader and parser: no panic, every error points inside the text,
// and a clean parse keeps a name that is a single token.
func FuzzToolDirective(f *testing.F) {
	for _, seed := range []string{"", "forecast", "name=forecast", "forecast readOnly idempotent",
		`title="Weather forecast" destructive=false`, "strict=openai", "strict=bogus", "name=a name=b",
		`title="unterminated`, "=x", "name=", "readOnly=maybe", "\x00\xff", "  spaced   args  "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		doc := &ast.CommentGroup{List: []*ast.Comment{{Text: "//mcp:tool " + args}}}
		ds := directives(doc)
		if len(ds) != 1 || ds[0].word != "tool" {
			if !strings.ContainsAny(args, "\n") {
				t.Fatalf("directives(%q) = %v, want one tool directive", args, ds)
			}
			return
		}
		spec, errs := parseToolArgs(ds[0].args)
		for _, e := range errs {
			if e.off < 0 || e.off > len(ds[0].args) {
				t.Errorf("error %q at offset %d outside %q", e.msg, e.off, ds[0].args)
			}
			if e.msg == "" {
				t.Errorf("empty error message for %q", args)
			}
		}
		if len(errs) == 0 && spec.name != "" && utf8.ValidString(args) && strings.ContainsAny(spec.name, " \t") {
			t.Errorf("parseToolArgs(%q): name %q holds a space", args, spec.name)
		}
	})
}
