package runtime

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// routingServer registers overlapping templates; each handler answers its
// template and the variables it got.
func routingServer(t *testing.T, tpls ...string) *Server {
	t.Helper()
	s := newTestServer(t, &Options{}, echoTool())
	for _, tpl := range tpls {
		s.AddResourceTemplate(&ResourceTemplate{URITemplate: tpl, Values: map[string][]string{"kind": {"a", "b"}},
			Complete: map[string]Completer{"path": CompleteFrom("docs/", "docs/guide.md", "src/")},
			Handler: func(_ context.Context, req *ResourceRequest) (*ResourceResult, error) {
				var vars []string
				for k, v := range req.Vars {
					vars = append(vars, k+"="+v)
				}
				for k, v := range req.Lists {
					vars = append(vars, fmt.Sprintf("%s%q", k, v))
				}
				slices.Sort(vars)
				return TextResource(tpl + " " + strings.Join(vars, " ")), nil
			}})
	}
	return s
}

// TestResourceRouting pins which template reads a URI when several match:
// more literal characters first, then fewer expressions spanning slashes,
// then registration order.
func TestResourceRouting(t *testing.T) {
	s := routingServer(t,
		"file:///{+path}",
		"file:///{name}",
		"file:///docs/{+path}",
		"file:///docs/{name}.md",
		"repo://{owner}{/path*}",
		"repo://{owner}/readme",
		"repo://{owner}{/kind}",
		"search://items{?q,limit}",
		"x://{a}",
		"x://{b}",
	)
	tests := []struct{ uri, want string }{
		{"file:///a/b", "file:///{+path} path=a/b"},
		{"file:///a", "file:///{name} name=a"},                         // same literals, {name} does not span
		{"file:///docs/x/y", "file:///docs/{+path} path=x/y"},          // more literal characters
		{"file:///docs/guide.md", "file:///docs/{name}.md name=guide"}, // more still
		{"file:///docs/a/guide.md", "file:///docs/{+path} path=a/guide.md"},
		{"repo://me/readme", "repo://{owner}/readme owner=me"},
		{"repo://me/a", "repo://{owner}{/kind} kind=a owner=me"},            // fewer spanning expressions
		{"repo://me/c", `repo://{owner}{/path*} owner=me path=c path["c"]`}, // kind outside its values
		{"repo://me", "repo://{owner}{/kind} owner=me"},
		{"search://items?limit=3", "search://items{?q,limit} limit=3"},
		{"x://v", "x://{a} a=v"}, // the same URIs: the first registered
	}
	for _, modern := range []bool{false, true} {
		c := eraClient(t, s, modern)
		for _, tt := range tests {
			var got readResult
			c.call(modern, "resources/read", map[string]any{"uri": tt.uri}).decodeResult(t, &got)
			if len(got.Contents) != 1 || got.Contents[0].Text != tt.want {
				t.Errorf("read %s: got %+v, want %q", tt.uri, got.Contents, tt.want)
			}
		}
		for _, uri := range []string{"file:///", "file:///%2e%2e/x", "repo://me/a?x", "search://items?q", "x://"} {
			if resp := c.call(modern, "resources/read", map[string]any{"uri": uri}); resp.Error == nil {
				t.Errorf("read %s: got %s, want not found", uri, resp.raw)
			}
		}
	}
}

// TestCompleteEveryVariableKind completes variables of every operator.
func TestCompleteEveryVariableKind(t *testing.T) {
	s := routingServer(t, "file:///{+path}", "repo://{owner}{/path*}", "q://i{?kind,path}", "f://x{#path}")
	c := eraClient(t, s, true)
	for _, tpl := range []string{"file:///{+path}", "repo://{owner}{/path*}", "q://i{?kind,path}", "f://x{#path}"} {
		var got completion
		c.call(true, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": tpl},
			"argument": map[string]any{"name": "path", "value": "docs/"}}).decodeResult(t, &got)
		if want := []string{"docs/", "docs/guide.md"}; !slices.Equal(got.Completion.Values, want) {
			t.Errorf("complete %s path: got %v, want %v", tpl, got.Completion.Values, want)
		}
	}
	var got completion
	c.call(true, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "q://i{?kind,path}"},
		"argument": map[string]any{"name": "kind", "value": ""}}).decodeResult(t, &got)
	if want := []string{"a", "b"}; !slices.Equal(got.Completion.Values, want) {
		t.Errorf("complete kind: got %v, want %v", got.Completion.Values, want)
	}
}
