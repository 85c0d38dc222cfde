package scope

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

const incidentSchema = `{"type":"object","properties":{"severity":{"type":"string","enum":["p1","p2"]},"title":{"type":"string"},"team":{"type":"string"}},"required":["severity","title"],"additionalProperties":false}`

func TestImplies(t *testing.T) {
	for _, c := range []struct {
		g, r string
		want bool
	}{{"a", "a", true}, {"a", "a:b", true}, {"a", "ab", false}, {"a:b", "a", false}, {"", "x", false}} {
		if got := Implies(c.g, c.r); got != c.want {
			t.Errorf("Implies(%q, %q) = %v", c.g, c.r, got)
		}
	}
}

// TestExpandAndListable: enum fields expand to every scope; a free string
// field is open and listable with a grant extending its literal prefix.
func TestExpandAndListable(t *testing.T) {
	ts, err := Compile([]string{"incident:create:{severity|lower}", "team:{team}"}, json.RawMessage(strings.Replace(incidentSchema, `"required":["severity","title"]`, `"required":["severity","title","team"]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	alts, all := Expand(ts, json.RawMessage(incidentSchema))
	if want := []string{"incident:create:p1", "incident:create:p2"}; !slices.Equal(all, want) || alts["team:{team}"] != nil {
		t.Errorf("Expand: all %q, alts %q", all, alts)
	}
	for _, c := range []struct {
		granted []string
		want    bool
	}{
		{[]string{"incident:create:p2", "team:red"}, true},
		{[]string{"incident", "team"}, true},
		{[]string{"incident:create:p3", "team:red"}, false},
		{[]string{"incident:create:p1"}, false},
	} {
		if got := Listable(c.granted, ts, alts, Implies); got != c.want {
			t.Errorf("Listable(%q) = %v, want %v", c.granted, got, c.want)
		}
	}
}

// Required reads the {field} values in place: literals, several fields,
// |lower, escaped values and keys, and the values a scope cannot hold.
func TestRequiredInPlace(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string","enum":["TeAm","Q","x"]}},"required":["a","b"]}`
	ts, err := Compile([]string{"lit", "x:{a}", "y:{b|lower}:{a}"}, json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		want []string // nil: an error
	}{
		{`{"a":"p1","b":"TeAm"}`, []string{"lit", "x:p1", "y:team:p1"}},
		{`{ "b" : "Q" , "a" : "z" }`, []string{"lit", "x:z", "y:q:z"}},
		{`{"a":"\u0070\u0031","b":"x"}`, []string{"lit", "x:p1", "y:x:p1"}},
		{`{"\u0061":"k","b":"x"}`, []string{"lit", "x:k", "y:x:k"}},
		{`{"a":1,"b":"x"}`, nil},
		{`{"a":"","b":"x"}`, nil},
		{`{"a":"p 1","b":"x"}`, nil},
		{`{"a":"p\"1","b":"x"}`, nil},
		{`{"a":"p\\1","b":"x"}`, nil},
		{`{"a":"{b}","b":"x"}`, nil},
		{`{"a":"é","b":"x"}`, nil},
		{`{"a":"acme:read","b":"x"}`, nil},
		{`{"a":"acme\u003aread","b":"x"}`, nil},
		{`{"a":"*","b":"x"}`, nil},
		{`{"a":"p1"}`, nil},
		{`{"a":"` + strings.Repeat("v", 100) + `","b":"x"}`, []string{"lit", "x:" + strings.Repeat("v", 100), "y:x:" + strings.Repeat("v", 100)}},
	} {
		got, err := Required(ts, json.RawMessage(c.args))
		if c.want == nil {
			if err == nil {
				t.Errorf("%s: got %q, want an error", c.args, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	// The strings returned do not alias the arguments.
	args := []byte(`{"a":"p1","b":"x"}`)
	got, _ := Required(ts, args)
	copy(args, strings.Repeat("#", len(args)))
	if got[1] != "x:p1" {
		t.Errorf("result aliases the arguments: %q", got)
	}
}

// The scope check of a call allocates the result and one string.
func TestRequiredAllocs(t *testing.T) {
	ts, _ := Compile([]string{"incident:create:{severity}"}, json.RawMessage(incidentSchema))
	args := json.RawMessage(`{"severity":"p1","title":"Disk full"}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = Required(ts, args) }); n > 2 {
		t.Errorf("%v allocations, want at most 2", n)
	}
}

func TestCompileRefusesBadTemplates(t *testing.T) {
	for _, scopes := range [][]string{{"x:{nope}"}, {"x:{team}"}, {"a b"}, {"x:{severity"}, {"x:{severity|upper}"}, {""}} {
		if _, err := Compile(scopes, json.RawMessage(incidentSchema)); err == nil {
			t.Errorf("Compile(%q) = nil error", scopes)
		}
	}
}

func TestCallerDecisions(t *testing.T) {
	none, every := Caller{}, Caller{Known: true, All: true}
	some := Caller{Known: true, Scopes: []string{"incident:create", "read"}}
	for _, c := range []struct {
		who      Caller
		required []string
		want     bool
	}{
		{none, nil, true}, {none, []string{"read"}, false},
		{every, []string{"anything:at:all"}, true},
		{some, []string{"read", "incident:create:p1"}, true},
		{some, []string{"read", "incident:created"}, false},
		{Caller{Known: true}, nil, true}, {Caller{Known: true}, []string{"read"}, false},
	} {
		if got := c.who.Allows(c.required, Implies); got != c.want {
			t.Errorf("%+v.Allows(%v) = %v, want %v", c.who, c.required, got, c.want)
		}
	}
	ts, err := Compile([]string{"incident:create:{severity|lower}"}, json.RawMessage(incidentSchema))
	if err != nil {
		t.Fatal(err)
	}
	alts, _ := Expand(ts, json.RawMessage(incidentSchema))
	if !none.MayList(nil, nil, Implies) || none.MayList(ts, alts, Implies) || !every.MayList(ts, alts, Implies) ||
		!some.MayList(ts, alts, Implies) || (Caller{Known: true, Scopes: []string{"read"}}).MayList(ts, alts, Implies) {
		t.Fatal("MayList")
	}
	d := &Denial{Required: []string{"a", "b:c"}, Challenge: "Bearer x"}
	if d.Error() != "insufficient scope: this request needs a b:c" {
		t.Fatal(d.Error())
	}
}

// TestCompileRefusesInjection: |lower on a free string, and an enum value
// holding ':' or '*', cannot be part of a scope.
func TestCompileRefusesInjection(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"string"},"e":{"type":"string","enum":["x","y:z"]},"w":{"type":"string","enum":["*"]}},"required":["a","e","w"]}`
	for sc, want := range map[string]string{
		"r:{a|lower}": "needs an enum field",
		"r:{e}":       `enum value "y:z"`,
		"r:{w}":       `enum value "*"`,
	} {
		if _, err := Compile([]string{sc}, json.RawMessage(schema)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%s) = %v, want %q", sc, err, want)
		}
	}
}
