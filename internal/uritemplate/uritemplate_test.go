package uritemplate

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	good := map[string][]string{
		"test://static":                 nil,
		"test://template/{id}/data":     {"id"},
		"notes://{folder}/{name}.md":    {"folder", "name"},
		"runbook://{service}/{ver.sub}": {"service", "ver.sub"},
	}
	for in, vars := range good {
		tpl, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if diff := cmp.Diff(vars, tpl.Vars); diff != "" {
			t.Errorf("Parse(%q) vars (-want +got):\n%s", in, diff)
		}
	}
	for _, in := range []string{"a://{", "a://}", "a://{}", "a://{+x}", "a://{#x}", "a://{x:3}", "a://{x*}",
		"a://{x,y}", "a://{x}{y}", "a://{x}/{x}", "a://{x-y}", "a://{.x}", "a://{x.}"} {
		if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q): got %v, want ErrSyntax", in, err)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		tpl, uri string
		want     map[string]string // nil: no match
	}{
		{"test://template/{id}/data", "test://template/123/data", map[string]string{"id": "123"}},
		{"test://template/{id}/data", "test://template/a%2Fb/data", map[string]string{"id": "a/b"}},
		{"test://template/{id}/data", "test://template//data", nil},
		{"test://template/{id}/data", "test://template/1/2/data", nil},
		{"test://template/{id}/data", "test://template/123/datax", nil},
		{"test://template/{id}/data", "other://template/123/data", nil},
		{"notes://{name}", "notes://todo.md", map[string]string{"name": "todo.md"}},
		{"notes://{name}", "notes://a b", nil},
		{"notes://{name}", "notes://%zz", nil},
		{"x://{a}-{b}", "x://p-q", map[string]string{"a": "p", "b": "q"}},
		{"x://static", "x://static", map[string]string{}},
	}
	for _, tt := range tests {
		tpl, err := Parse(tt.tpl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tpl.Match(tt.uri)
		switch {
		case tt.want == nil && ok:
			t.Errorf("%s Match(%q): got %v, want no match", tt.tpl, tt.uri, got)
		case tt.want != nil && !ok:
			t.Errorf("%s Match(%q): no match, want %v", tt.tpl, tt.uri, tt.want)
		case ok && cmp.Diff(tt.want, got) != "":
			t.Errorf("%s Match(%q) (-want +got):\n%s", tt.tpl, tt.uri, cmp.Diff(tt.want, got))
		}
	}
}

func TestExpandRoundTrip(t *testing.T) {
	tpl, err := Parse("notes://{folder}/{name}")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{"folder": "a b/c", "name": "ünï~x"}
	uri := tpl.Expand(vals)
	if uri != "notes://a%20b%2Fc/%C3%BCn%C3%AF~x" {
		t.Errorf("Expand: got %q", uri)
	}
	got, ok := tpl.Match(uri)
	if !ok || cmp.Diff(vals, got) != "" {
		t.Errorf("Match(Expand(v)): got %v %v, want %v", got, ok, vals)
	}
}
