package uritemplate

import (
	"testing"
)

// FuzzMatch matches random URIs against random templates: Parse and Match
// never panic, and a match always re-expands to the very same URI.
func FuzzMatch(f *testing.F) {
	seeds := [][2]string{
		{"file:///{+path}", "file:///docs/a%20b.md"},
		{"file:///{+path}", "file:///%2e%2e/etc/passwd"},
		{"repo://{owner}{/path*}{?ref}", "repo://me/a//b?ref=main"},
		{"search://items{?q,limit}", "search://items?q=&limit=5"},
		{"img://{name}{;w,h}", "img://cat;w=1;h"},
		{"doc://{id}{#section}", "doc://7#a/b"},
		{"x://file{.ext}", "x://file.tar.gz"},
		{"x://{a:3}/{b}", "x://%C3%BCbc/d"},
		{"x://{a}-{b}", "x://p-q-r"},
		{"x://r{/a}{/b}", "x://r/p/q"},
		{"file:///{+path}/meta", "file:///a/meta/meta"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tpl, uri string) {
		p, err := Parse(tpl)
		if err != nil {
			return
		}
		vals, ok := p.Match(uri)
		if !ok {
			return
		}
		if back := p.Expand(vals.Vars, vals.Lists); back != uri {
			t.Fatalf("%q matched %q with %v %v, which expands to %q", tpl, uri, vals.Vars, vals.Lists, back)
		}
		again, ok := p.Match(p.Expand(vals.Vars, vals.Lists))
		if !ok || len(again.Vars) != len(vals.Vars) {
			t.Fatalf("%q: re-matching %q gave %v %v", tpl, uri, again.Vars, ok)
		}
	})
}
