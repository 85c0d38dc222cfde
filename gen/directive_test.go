package gen

import (
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseToolArgs(t *testing.T) {
	tests := []struct {
		args string
		want toolSpec
		errs []string // substrings, in order
	}{
		{"", toolSpec{}, nil},
		{"search_notes", toolSpec{name: "search_notes"}, nil},
		{`search title="Search \"all\" notes" readonly idempotent`,
			toolSpec{name: "search", title: `Search "all" notes`, readOnly: true, idempotent: true, stated: set("readonly", "idempotent")}, nil},
		{"destructive openworld", toolSpec{destructive: true, openWorld: true, stated: set("destructive", "openworld")}, nil},
		{"destructive=false openworld=true", toolSpec{openWorld: true, stated: set("destructive", "openworld")}, nil},
		{"name=a.b-c title=Plain", toolSpec{name: "a.b-c", title: "Plain"}, nil},
		{"x readonyl", toolSpec{name: "x"}, []string{`unknown argument "readonyl"`}},
		{"readonly readonly", toolSpec{readOnly: true, stated: set("readonly")}, []string{`duplicate argument "readonly"`}},
		{"idempotent=yes", toolSpec{}, []string{"flag idempotent takes no value, or =true or =false"}},
		{`title="open`, toolSpec{}, []string{"unterminated quoted value for title"}},
		{`"x"`, toolSpec{}, []string{"unexpected quote"}},
		{`title="a"b`, toolSpec{}, []string{"missing space after quoted value"}},
		{`=x`, toolSpec{}, []string{"missing key before ="}},
		{`x title`, toolSpec{name: "x"}, []string{"title needs a value"}},
		{`title="\q"`, toolSpec{}, []string{"bad quoted value"}},
		{`x scope="a:b c:{d}" confirm="Do {d}?"`, toolSpec{name: "x", auth: authSpec{scope: "a:b c:{d}", hasScope: true, scopeOff: 8,
			confirm: "Do {d}?", hasConfirm: true, confirmOff: 28}}, nil},
		{`x scope= confirm`, toolSpec{name: "x"}, []string{"scope needs a value", "confirm needs a value"}},
	}
	for _, tt := range tests {
		got, errs := parseToolArgs(tt.args)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(toolSpec{}, authSpec{})); diff != "" {
			t.Errorf("parseToolArgs(%q) spec mismatch (-want +got):\n%s", tt.args, diff)
		}
		if len(errs) != len(tt.errs) {
			t.Errorf("parseToolArgs(%q): got errors %v, want %d", tt.args, errs, len(tt.errs))
			continue
		}
		for i, e := range errs {
			if !strings.Contains(e.msg, tt.errs[i]) {
				t.Errorf("parseToolArgs(%q) error %d: got %q, want it to contain %q", tt.args, i, e.msg, tt.errs[i])
			}
		}
	}
}

func TestArgErrorOffsets(t *testing.T) {
	_, errs := parseToolArgs(`name  bogus title="ok" more`)
	if len(errs) != 2 || errs[0].off != 6 || errs[1].off != 23 {
		t.Errorf("got %+v, want errors at offsets 6 and 23", errs)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"SearchNotes": "search_notes",
		"HTTPServer":  "http_server",
		"GetURLForID": "get_url_for_id",
		"V2Export":    "v2_export",
		"run":         "run",
		"ID":          "id",
		"parseJSON":   "parse_json",
		"Add2Numbers": "add2_numbers",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckToolName(t *testing.T) {
	for _, ok := range []string{"getUser", "DATA_EXPORT_v2", "admin.tools.list", "a-b", strings.Repeat("x", 128)} {
		if msg := checkToolName(ok); msg != "" {
			t.Errorf("checkToolName(%q) = %q, want valid", ok, msg)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", 129), "a b", "a,b", "é", "a/b"} {
		if msg := checkToolName(bad); msg == "" {
			t.Errorf("checkToolName(%q) accepted an invalid name", bad)
		}
	}
}

func TestLowerIdent(t *testing.T) {
	for in, want := range map[string]string{
		"Service": "service", "DB": "db", "HTTPClient": "httpClient", "store": "store", "T": "t",
	} {
		if got := lowerIdent(in); got != want {
			t.Errorf("lowerIdent(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParsePos(t *testing.T) {
	for in, want := range map[string]token.Position{
		"/a/b.go:3:4": {Filename: "/a/b.go", Line: 3, Column: 4},
		"/a/b.go:3":   {Filename: "/a/b.go", Line: 3},
		"/a/b.go":     {Filename: "/a/b.go"},
		"":            {},
	} {
		if got := parsePos(in); got != want {
			t.Errorf("parsePos(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestSortDiagnostics(t *testing.T) {
	d := func(f string, l, c int, m string) Diagnostic {
		return Diagnostic{Pos: token.Position{Filename: f, Line: l, Column: c}, Msg: m}
	}
	got := sortDiagnostics([]Diagnostic{d("b.go", 1, 1, "x"), d("a.go", 2, 1, "y"), d("a.go", 2, 1, "y"), d("a.go", 1, 5, "z")})
	want := []Diagnostic{d("a.go", 1, 5, "z"), d("a.go", 2, 1, "y"), d("b.go", 1, 1, "x")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sortDiagnostics mismatch (-want +got):\n%s", diff)
	}
}

// set is a set of hint flags, as toolSpec.stated records them.
func set(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}
