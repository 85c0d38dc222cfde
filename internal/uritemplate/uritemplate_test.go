package uritemplate

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	lib "github.com/yosida95/uritemplate/v3"
)

func TestParse(t *testing.T) {
	good := map[string][]string{
		"test://static":                 nil,
		"test://template/{id}/data":     {"id"},
		"notes://{folder}/{name}.md":    {"folder", "name"},
		"runbook://{service}/{ver.sub}": {"service", "ver.sub"},
		"file:///{+path}":               {"path"},
		"repo://{owner}/{repo}{/path*}": {"owner", "repo", "path"},
		"search://items{?q,limit}":      {"q", "limit"},
		"doc://{id}{#section}":          {"id", "section"},
		"img://{name}{;w,h}":            {"name", "w", "h"},
		"x://a{?q}{&page}":              {"q", "page"},
		"x://{/a}{/b}":                  {"a", "b"},
		"x://{a:3}/{b}":                 {"a", "b"},
		"x://file{.ext}":                {"ext"},
		"x://{a}{?q}":                   {"a", "q"},
		// the forms the refusals suggest
		"x://{name}.{ext}":     {"name", "ext"},
		"x:///{/path*}{?q}":    {"path", "q"},
		"x://r{/last}{/segs*}": {"last", "segs"},
		"x://{a}{/b}":          {"a", "b"},
		"x://r{?q,n,page}":     {"q", "n", "page"},
		"x://{+from}/to/{to}":  {"from", "to"},
		"x://{a}/{b}":          {"a", "b"},
	}
	for in, vars := range good {
		tpl, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if diff := cmp.Diff(vars, tpl.Vars, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Parse(%q) vars (-want +got):\n%s", in, diff)
		}
		// The library the generator checks templates with accepts every one.
		if l, err := lib.New(in); err != nil || !cmp.Equal(l.Varnames(), tpl.Vars, cmpopts.EquateEmpty()) {
			t.Errorf("library on %q: %v %v", in, err, l)
		}
	}
}

func TestParseRefused(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"a://{", "unclosed {"},
		{"a://}", "unmatched }"},
		{"a://{}", "empty expression {}"},
		{"a://{=x}", `operator '=' in {=x} is reserved`},
		{"a://{x:0}", `prefix "0" in {x:0}`},
		{"a://{x-y}", `invalid character '-' in variable name "x-y" in {x-y}`},
		{"a://{.x.}", `invalid character`},
		{"a://{x,y}", "variable list {x,y} cannot be matched"},
		{"a://{/x,y}", "write {/x}{/y}"},
		{"a://{x*}", "explode {x*} of a non-path variable"},
		{"a://{?q*}", "write {/q*} for a list of path segments, or {?q} for one value"},
		{"a://{x}{y}", "expressions {x} and {y} are adjacent"},
		{"a://{x}{.y}", "expressions {x} and {.y} are adjacent"},
		{"a://{+x}{?q}", "expressions {+x} and {?q} are adjacent"},
		{"a://{/x*}{/y}", "expressions {/x*} and {/y} are adjacent"},
		{"a://{x}{/y}{z}", "expressions {/y} and {z} are adjacent"},
		{"a://{?q,r}{&p}", "join them in one expression, e.g. {?q,r,p}"},
		{"a://{x}/{x}", "variable x appears twice"},
		{"a://{+x}/{+y}", `{+x} and {+y} may both contain "/"`},
		{"a://{/x*}/{#y}", `{/x*} and {#y} may both contain "/"`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var e *Error
		if !errors.Is(err, ErrSyntax) || !errors.As(err, &e) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q): got %v, want ErrSyntax containing %q", tt.in, err, tt.msg)
		}
	}
	_, err := Parse("a://b/{x}{y}")
	if e := (*Error)(nil); !errors.As(err, &e) || e.Off != 9 {
		t.Errorf("offset of the refused expression: got %v", err)
	}
}

// vs builds Values for the table.
func vs(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func TestMatch(t *testing.T) {
	tests := []struct {
		tpl, uri string
		want     map[string]string // nil: no match
	}{
		{"test://template/{id}/data", "test://template/123/data", vs("id", "123")},
		{"test://template/{id}/data", "test://template/a%2Fb/data", vs("id", "a/b")},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/1/2/data", nil},
		{"test://template/{id}/data", "test://template/123/datax", nil},
		{"test://template/{id}/data", "other://template/123/data", nil},
		{"notes://{name}", "notes://todo.md", vs("name", "todo.md")},
		{"notes://{name}", "notes://a b", nil},
		{"notes://{name}", "notes://%zz", nil},
		{"notes://{name}", "notes://%41", nil},    // A is written as is
		{"notes://{name}", "notes://%c3%bc", nil}, // lower-case escape
		{"notes://{name}", "notes://%C3%BC", vs("name", "ü")},
		{"notes://{name}", "notes://%FF", nil}, // not UTF-8
		{"notes://{name}.md", "notes://a.b.md", vs("name", "a.b")},
		{"x://{a}-{b}", "x://p-q", vs("a", "p", "b", "q")},
		{"x://{a}-{b}", "x://p-q-r", vs("a", "p-q", "b", "r")},
		{"x://static", "x://static", vs()},
		// + reserved: slashes kept
		{"file:///{+path}", "file:///docs/a%20b/c.md", vs("path", "docs/a b/c.md")},
		{"file:///{+path}", "file:///../etc/passwd", vs("path", "../etc/passwd")},
		{"file:///{+path}", "file:///%2e%2e/etc", nil},
		{"file:///{+path}", "file:///%2F", nil},
		{"file:///{+path}", "file:///", nil},
		{"file:///{+path}/meta", "file:///a/meta/meta", vs("path", "a/meta")},
		// # fragment
		{"doc://{id}{#section}", "doc://7#intro/a", vs("id", "7", "section", "intro/a")},
		{"doc://{id}{#section}", "doc://7", vs("id", "7")},
		{"doc://{id}{#section}", "doc://7#", vs("id", "7", "section", "")},
		// . label
		{"x://file{.ext}", "x://file.tar.gz", vs("ext", "tar.gz")},
		{"x://file{.ext}", "x://file", vs()},
		// / path segment(s)
		{"x://r{/a}{/b}", "x://r/p/q", vs("a", "p", "b", "q")},
		{"x://r{/a}{/b}", "x://r/p", vs("a", "p")},
		{"x://r{/a}{/b}", "x://r/p/q/z", nil},
		{"repo://{owner}{/path*}", "repo://me/a/b%2Fc", vs("owner", "me", "path", "a/b/c")},
		{"repo://{owner}{/path*}", "repo://me", vs("owner", "me")},
		{"repo://{owner}{/path*}{?ref}", "repo://me/a/b?ref=main", vs("owner", "me", "path", "a/b", "ref", "main")},
		// ; path-style parameters
		{"img://{name}{;w,h}", "img://cat;w=10;h=20", vs("name", "cat", "w", "10", "h", "20")},
		{"img://{name}{;w,h}", "img://cat;h", vs("name", "cat", "h", "")},
		{"img://{name}{;w,h}", "img://cat;h=2;w=1", nil}, // out of order
		// ? and & queries
		{"search://items{?q,limit}", "search://items?q=a%20b&limit=5", vs("q", "a b", "limit", "5")},
		{"search://items{?q,limit}", "search://items?limit=5", vs("limit", "5")},
		{"search://items{?q,limit}", "search://items?q=", vs("q", "")},
		{"search://items{?q,limit}", "search://items", vs()},
		{"search://items{?q,limit}", "search://items?q", nil},
		{"search://items{?q,limit}", "search://items?x=1", nil},
		{"x://a?fixed=1{&page}", "x://a?fixed=1&page=2", vs("page", "2")},
		// prefix
		{"x://{a:3}/{b}", "x://abc/d", vs("a", "abc", "b", "d")},
		{"x://{a:3}/{b}", "x://abcd/d", nil},
		{"x://{a:2}", "x://%C3%BC%C3%A9", vs("a", "üé")},
	}
	for _, tt := range tests {
		tpl, err := Parse(tt.tpl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tpl.Match(tt.uri)
		switch {
		case tt.want == nil && ok:
			t.Errorf("%s Match(%q): got %v, want no match", tt.tpl, tt.uri, got.Vars)
		case tt.want != nil && !ok:
			t.Errorf("%s Match(%q): no match, want %v", tt.tpl, tt.uri, tt.want)
		case ok && cmp.Diff(tt.want, got.Vars) != "":
			t.Errorf("%s Match(%q) (-want +got):\n%s", tt.tpl, tt.uri, cmp.Diff(tt.want, got.Vars))
		}
		if ok {
			if back := tpl.Expand(got.Vars, got.Lists); back != tt.uri {
				t.Errorf("%s: Expand(Match(%q)) = %q", tt.tpl, tt.uri, back)
			}
		}
	}
}

func TestMatchLists(t *testing.T) {
	tpl, err := Parse("repo://{owner}{/path*}")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := tpl.Match("repo://me/a//b%2Fc")
	if want := []string{"a", "", "b/c"}; !ok || !cmp.Equal(got.Lists["path"], want) {
		t.Errorf("Lists: got %q %v, want %q", got.Lists, ok, want)
	}
}

// TestExpandAgreesWithLibrary checks, on ASCII values without "%" (where the
// library follows RFC 6570), that Expand writes what the library writes.
func TestExpandAgreesWithLibrary(t *testing.T) {
	vars := map[string]string{"a": "x y/z", "path": "docs/a b", "q": "", "limit": "5", "section": "s:1", "ext": "gz", "w": "10"}
	lists := map[string][]string{"seg": {"p", "q r"}}
	for _, s := range []string{"x://{a}", "file:///{+path}", "x://{a}{#section}", "x://f{.ext}", "x://{a}{/seg*}",
		"x://{a}{;w,q}", "x://i{?q,limit}", "x://i?z=1{&limit,a}", "x://{a:3}", "x://r{/a}{/w}"} {
		tpl, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		lv := lib.Values{}
		for k, v := range vars {
			lv.Set(k, lib.String(v))
		}
		for k, v := range lists {
			lv.Set(k, lib.List(v...))
		}
		want, err := lib.MustNew(s).Expand(lv)
		if got := tpl.Expand(vars, lists); err != nil || got != want {
			t.Errorf("%s: Expand = %q, library %q (%v)", s, got, want, err)
		}
	}
}

func TestExpandRoundTrip(t *testing.T) {
	tpl, err := Parse("notes://{folder}/{name}")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{"folder": "a b/c", "name": "ünï~x"}
	uri := tpl.Expand(vals, nil)
	if uri != "notes://a%20b%2Fc/%C3%BCn%C3%AF~x" {
		t.Errorf("Expand: got %q", uri)
	}
	got, ok := tpl.Match(uri)
	if !ok || cmp.Diff(vals, got.Vars) != "" {
		t.Errorf("Match(Expand(v)): got %v %v, want %v", got, ok, vals)
	}
}

func TestMatchLongURI(t *testing.T) {
	tpl, _ := Parse("file:///{+path}")
	if _, ok := tpl.Match("file:///" + strings.Repeat("a", MaxMatchLen)); ok {
		t.Error("a URI longer than MaxMatchLen matched")
	}
}

// BenchmarkMatchWorstCase matches the longest URIs against templates whose
// values could end at every character: the regular expression keeps it
// linear (a backtracking matcher took minutes here).
func BenchmarkMatchWorstCase(b *testing.B) {
	cases := [][2]string{
		{"x://{a}a{b}z", "x://" + strings.Repeat("a", MaxMatchLen-10)},
		{"x://{+a}/{b}z", "x://" + strings.Repeat("a/", MaxMatchLen/2-10)},
		{"x://{a}-{b}-{c}z", "x://" + strings.Repeat("-", MaxMatchLen-10)},
	}
	for _, c := range cases {
		tpl, err := Parse(c[0])
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c[0], func(b *testing.B) {
			for b.Loop() {
				tpl.Match(c[1])
			}
		})
	}
}
