package primitive

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type set = Set[string, string, string]

func mustTemplate(t *testing.T, tpl string, values map[string][]string) *Template[string] {
	t.Helper()
	e, err := NewTemplate(Desc{URITemplate: tpl}, values, nil, tpl)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRoute(t *testing.T) {
	var s set
	s.AddResource(NewResource(Desc{URI: "notes://readme"}, nil, "readme"))
	for _, tpl := range []string{"notes://{+path}", "notes://{name}", "notes://{name}/raw", "notes://fixed/{name}"} {
		if !s.AddTemplate(mustTemplate(t, tpl, nil)) {
			t.Fatalf("AddTemplate %s refused", tpl)
		}
	}
	if s.AddTemplate(mustTemplate(t, "notes://{name}", nil)) {
		t.Fatal("a duplicate template was added")
	}
	s.AddTemplate(mustTemplate(t, "color://{c}", map[string][]string{"c": {"red", "blue"}}))
	for uri, want := range map[string]string{
		"notes://readme":  "resource readme",
		"notes://a":       "notes://{name}",       // fewer spanning expressions win
		"notes://a/b":     "notes://{+path}",      // only {+path} spans a slash
		"notes://a/raw":   "notes://{name}/raw",   // more literal characters win
		"notes://fixed/x": "notes://fixed/{name}", // more literal characters win
		"color://red":     "color://{c}",
		"color://green":   "none", // outside the enum
		"other://x":       "none",
		"notes://":        "none",
	} {
		r, tpl, vals := s.Route(uri)
		got := "none"
		switch {
		case r != nil:
			got = "resource " + r.Src
		case tpl != nil:
			got = tpl.Src
			if vals == nil || len(vals.Vars) == 0 {
				t.Errorf("%s: no variables", uri)
			}
		}
		if got != want {
			t.Errorf("Route(%s) = %s, want %s", uri, got, want)
		}
	}
	if !s.RemoveResource("notes://readme") || s.RemoveResource("notes://readme") {
		t.Fatal("RemoveResource")
	}
	if _, tpl, _ := s.Route("notes://readme"); tpl == nil || tpl.Src != "notes://{name}" {
		t.Fatal("a removed resource still routes")
	}
	if _, err := NewTemplate(Desc{URITemplate: "x://{a}{b}"}, nil, nil, ""); err == nil {
		t.Fatal("an ambiguous template was accepted")
	}
}

func TestPromptArguments(t *testing.T) {
	if _, err := NewPrompt("p", "", "", []Arg{{Name: "a"}, {Name: "a"}}, nil, ""); err == nil {
		t.Fatal("duplicate argument accepted")
	}
	p, err := NewPrompt("p", "P", "", []Arg{{Name: "sev", Required: true, Values: []string{"p1", "p2"}}, {Name: "note", Title: "Note"}}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"p","title":"P","arguments":[{"name":"sev","required":true},{"name":"note","title":"Note"}]}`; string(p.Wire) != want {
		t.Fatalf("wire %s, want %s", p.Wire, want)
	}
	for raw, want := range map[string]string{
		`{"sev":"p1"}`:            "",
		`{"sev":"p2","note":"x"}`: "",
		`{"sev":"p3"}`:            `argument "sev" must be one of ["p1" "p2"], got "p3"`,
		`{}`:                      `missing required argument "sev"`,
		`null`:                    `missing required argument "sev"`,
		`{"sev":"p1","x":"y"}`:    `unknown argument "x" (valid arguments: [sev note])`,
		`{"sev":1}`:               "arguments must be an object of strings",
	} {
		args, err := p.Arguments(json.RawMessage(raw))
		switch {
		case want == "" && (err != nil || args["sev"] == ""):
			t.Errorf("%s: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	none, _ := NewPrompt("q", "", "", nil, nil, "")
	if _, err := none.Arguments(json.RawMessage(`{"a":"b"}`)); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
		t.Fatalf("no-argument prompt: %v", err)
	}
}

func TestSetOrderCapabilitiesScopes(t *testing.T) {
	var s set
	caps := map[string]any{}
	s.Capabilities(caps)
	if len(caps) != 0 {
		t.Fatalf("empty set declares %v", caps)
	}
	if d, known := s.Declares("prompts"); d || !known {
		t.Fatal("Declares(prompts) on an empty set")
	}
	if _, known := s.Declares("tools"); known {
		t.Fatal("Declares decides tools")
	}
	for _, n := range []string{"a", "b", "c"} {
		p, _ := NewPrompt(n, "", "", nil, []string{"s:" + n}, n)
		s.AddPrompt(p)
	}
	p, _ := NewPrompt("a", "", "", nil, nil, "a2")
	s.PutPrompt(p)
	var order []string
	for _, e := range s.Prompts().All() {
		order = append(order, e.Src)
	}
	if !slices.Equal(order, []string{"b", "c", "a2"}) {
		t.Fatalf("after PutPrompt: %v", order)
	}
	s.Capabilities(caps)
	if _, ok := caps["prompts"]; !ok || caps["completions"] == nil || caps["resources"] != nil {
		t.Fatalf("caps %v", caps)
	}
	s.AddTemplate(mustTemplate(t, "x://{a}", nil))
	s.Capabilities(caps)
	if d, _ := s.Declares("resources"); !d || caps["resources"] == nil {
		t.Fatal("a template does not declare resources")
	}
	if got := s.Scopes(); !slices.Equal(got, []string{"s:b", "s:c"}) {
		t.Fatalf("Scopes = %v", got)
	}
	if !s.RemovePrompt("b") || s.RemovePrompt("b") || s.Prompts().Len() != 2 {
		t.Fatal("RemovePrompt")
	}
}

func TestListPage(t *testing.T) {
	var s set
	for i := range 5 {
		s.AddResource(NewResource(Desc{URI: fmt.Sprintf("r://%d", i), Title: "T"}, nil, ""))
	}
	wire := func(e *Resource[string]) []byte { return e.Wire }
	b, ok := ListPage(s.Resources(), nil, 2, "resources", wire)
	var page struct {
		Resources  []Desc `json:"resources"`
		NextCursor string `json:"nextCursor"`
	}
	if !ok || json.Unmarshal(append(b, '}'), &page) != nil || len(page.Resources) != 2 || page.Resources[0].Name != "r://0" || page.NextCursor == "" {
		t.Fatalf("first page %s", b)
	}
	b, ok = ListPage(s.Resources(), &page.NextCursor, 10, "resources", wire)
	page.NextCursor = ""
	if !ok || json.Unmarshal(append(b, '}'), &page) != nil || len(page.Resources) != 3 || page.NextCursor != "" {
		t.Fatalf("last page %s", b)
	}
	bad := "bogus"
	if _, ok := ListPage(s.Resources(), &bad, 2, "resources", wire); ok {
		t.Fatal("a foreign cursor was accepted")
	}
	if got := string(AppendCacheHints([]byte("{"), 1500, true)); got != `{,"ttlMs":1500,"cacheScope":"private"` {
		t.Fatal(got)
	}
}

func TestCompletion(t *testing.T) {
	var s set
	p, _ := NewPrompt("p", "", "", []Arg{{Name: "a"}, {Name: "b"}}, nil, "")
	s.AddPrompt(p)
	s.AddTemplate(mustTemplate(t, "x://{id}", nil))
	s.AddResource(NewResource(Desc{URI: "y://plain"}, nil, ""))
	for params, want := range map[string]string{
		`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"b","value":""}}`: "prompt 1",
		`{"ref":{"type":"ref/resource","uri":"x://{id}"},"argument":{"name":"id"}}`:   "template",
		`{"ref":{"type":"ref/resource","uri":"y://plain"},"argument":{"name":"id"}}`:  "nothing",
		`{"ref":{"type":"ref/prompt","name":"q"},"argument":{"name":"a"}}`:            "Unknown prompt: q",
		`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"c"}}`:            `prompt p has no argument "c"`,
		`{"ref":{"type":"ref/resource","uri":"x://{id}"},"argument":{"name":"n"}}`:    `template x://{id} has no variable "n"`,
		`{"ref":{"type":"ref/resource","uri":"z://"},"argument":{"name":"n"}}`:        "Unknown resource or template: z://",
		`{"ref":{"type":"ref/other"},"argument":{"name":"n"}}`:                        `unknown ref type "ref/other"`,
		`{"ref":{"type":"ref/prompt","name":"p"}}`:                                    "params need ref and argument",
	} {
		got := ""
		cp, err := ParseComplete(json.RawMessage(params))
		if err == nil {
			var pr *Prompt[string]
			var i int
			var tpl *Template[string]
			var problem string
			pr, i, tpl, problem = s.Target(cp)
			switch {
			case problem != "":
				got = problem
			case pr != nil:
				got = fmt.Sprintf("prompt %d", i)
			case tpl != nil:
				got = "template"
			default:
				got = "nothing"
			}
		}
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", params, got, want)
		}
	}
	if got := WithPrefix([]string{"Alpha", "beta", "alps"}, "AL"); !slices.Equal(got, []string{"Alpha", "alps"}) {
		t.Fatalf("WithPrefix = %v", got)
	}
	if got := string(EncodeCompletion(nil, 0, false)); got != `{"completion":{"values":[]}}` {
		t.Fatal(got)
	}
	many := make([]string, 150)
	var res struct {
		Completion struct {
			Values  []string
			Total   int
			HasMore bool
		}
	}
	if json.Unmarshal(EncodeCompletion(many, 120, false), &res) != nil || len(res.Completion.Values) != MaxCompletionValues || res.Completion.Total != 150 || !res.Completion.HasMore {
		t.Fatalf("capped completion %+v", res)
	}
}
