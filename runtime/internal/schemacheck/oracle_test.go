package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/internal/jsontest"
	"github.com/mcpgen/mcpgen/internal/testfigures"
	"github.com/mcpgen/mcpgen/runtime/internal/format"
	"github.com/mcpgen/mcpgen/runtime/internal/fullformats"
	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// This file checks the built-in validator against santhosh-tekuri/jsonschema/v6 as an
// oracle (a test-only import), with format assertion on. Where they may differ, the
// runtime is right by design, and only in these ways:
//   - an object repeating a member name is refused (v6 sees the last occurrence);
//   - a number beyond float64 is refused (v6 accepts it, or panics on some);
//   - date-time is what encoding/json decodes into time.Time: the oracle's own
//     date-time is replaced (v6 accepts "00:00:+0" seconds and leap seconds, refuses
//     a one-digit hour that time.Time takes), and an escaped date-time is refused
//     (time.Time reads the raw literal; the oracle sees the decoded string);
//   - an email with an empty local part ("@x"), or whose domain is an IPv4 literal
//     with a signed group ("a@[+1.2.3.4]"), is refused (v6 lets both through).

// oracleEmail is v6's own email format.
var oracleEmail = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("email.json", map[string]any{"format": "email"}); err != nil {
		panic(err)
	}
	return c.MustCompile("email.json")
})

// signedIPv4Literal matches an email whose domain is an IPv4 literal with a sign.
var signedIPv4Literal = regexp.MustCompile(`@\[[^\]]*[+-][^\]]*\]$`)

// oracleCompile compiles a schema with the oracle.
func oracleCompile(t testing.TB, raw []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := fullformats.NewCompiler(map[string]func(string) bool{ // date and uri: v6's own
		"date-time": format.DateTime,
		"email": func(s string) bool {
			return oracleEmail().Validate(s) == nil && !signedIPv4Literal.MatchString(s) && !strings.HasPrefix(s, "@")
		},
	})
	if err := c.AddResource("urn:test", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:test")
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, raw)
	}
	return sch
}

// oracleValid validates with the oracle; decided is false when it panics.
func oracleValid(sch *jsonschema.Schema, inst []byte) (valid, decided bool) {
	defer func() {
		if recover() != nil {
			decided = false
		}
	}()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		return false, false
	}
	return sch.Validate(v) == nil, true
}

// A schemaPair is a schema compiled by the runtime and by the oracle.
type schemaPair struct {
	name string
	raw  []byte
	node *Schema
	sch  *jsonschema.Schema
}

// compilePair compiles a schema both ways.
func compilePair(t testing.TB, name string, raw []byte) schemaPair {
	t.Helper()
	node, err := Compile(raw, true)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return schemaPair{name, raw, node, oracleCompile(t, raw)}
}

// agree checks the runtime against the oracle on one instance (valid JSON) and
// returns the runtime's verdict.
func (sp schemaPair) agree(t testing.TB, inst []byte) bool {
	t.Helper()
	got := sp.node.Valid(inst)
	fails := sp.node.Explain(inst)
	if got != (len(fails) == 0) {
		t.Fatalf("%s: %s: valid %v, but explain says %v", sp.name, inst, got, fails)
	}
	for _, f := range fails {
		if f.Keyword == "" || f.Message == "" {
			t.Fatalf("%s: %s: failure without a rule or message: %+v", sp.name, inst, f)
		}
	}
	if jsontest.RepeatsName(inst) || hasHugeNumber(inst) {
		if got {
			t.Fatalf("%s: %s: accepted a repeated member name or a number beyond float64", sp.name, inst)
		}
		return got
	}
	want, decided := oracleValid(sp.sch, inst)
	switch {
	case !decided || got == want:
	case want && !got && escapedDateTimeOnly(inst, fails):
	default:
		t.Fatalf("%s: %s: runtime valid=%v, oracle valid=%v (failures %v)\nschema %s", sp.name, inst, got, want, fails, sp.raw)
	}
	return got
}

// escapedDateTimeOnly reports whether every failure is a date-time written with an
// escape (which time.Time refuses and the oracle cannot see).
func escapedDateTimeOnly(inst []byte, fails []fullhook.Failure) bool {
	for _, f := range fails {
		if f.Keyword != "format" || !strings.Contains(f.Message, "date-time") ||
			!bytes.Contains(rawAt(jsonwire.TrimSpace(inst), f.Pointer), []byte(`\`)) {
			return false
		}
	}
	return len(fails) > 0
}

// rawAt returns the raw value at a JSON Pointer of v, or nil.
func rawAt(v []byte, pointer string) []byte {
	if pointer == "" {
		return v
	}
	tok, rest, more := strings.Cut(pointer[1:], "/")
	if more {
		rest = "/" + rest
	}
	tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
	var found []byte
	switch v[0] {
	case '{':
		for k := jsonwire.SkipWS(v, 1); v[k] == '"'; {
			keyEnd := jsonwire.StringEnd(v, k)
			vs := jsonwire.MemberValue(v, keyEnd)
			end := jsonwire.ValueEnd(v, vs)
			if string(jsonwire.AppendUnquoted(nil, v[k+1:keyEnd-1])) == tok {
				found = v[vs:end]
			}
			k = jsonwire.NextItem(v, end)
		}
	case '[':
		n := 0
		for i := jsonwire.SkipWS(v, 1); v[i] != ']'; n++ {
			end := jsonwire.ValueEnd(v, i)
			if fmt.Sprint(n) == tok {
				found = v[i:end]
			}
			i = jsonwire.NextItem(v, end)
		}
	}
	if found == nil {
		return nil
	}
	return rawAt(found, rest)
}

// hasHugeNumber reports whether inst holds a number strconv.ParseFloat refuses.
func hasHugeNumber(inst []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(inst))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok {
			if _, err := n.Float64(); err != nil {
				return true
			}
		}
	}
}

// rawSchemaLiteral matches the schemas of generated code: json.RawMessage(`...`).
var rawSchemaLiteral = regexp.MustCompile("(?s)json\\.RawMessage\\(`(\\{.*?\\})`\\)")

// corpusSchemas returns the schemas of the example servers, of the generator's
// golden files and of this package's fixtures that the built-in validator covers,
// in a stable order, without repeats.
var corpusSchemas = sync.OnceValue(func() [][2]string {
	var files []string
	for _, glob := range []string{"../../../examples/*/mcp_gen.go", "../testserver/register.go", "../../../testdata/golden/*.txtar"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	var out [][2]string
	add := func(name, raw string) {
		if !seen[raw] && json.Valid([]byte(raw)) && Check([]byte(raw)) == nil {
			seen[raw] = true
			out = append(out, [2]string{name, raw})
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for i, m := range rawSchemaLiteral.FindAllSubmatch(data, -1) {
			add(fmt.Sprintf("%s#%d", f, i), string(m[1]))
		}
	}
	names := make([]string, 0, len(edgeSchemas))
	for name := range edgeSchemas {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		add(name, edgeSchemas[name])
	}
	return out
})

var (
	corpusOnce  sync.Once
	corpusPairs []schemaPair
)

// compiledCorpus compiles corpusSchemas both ways, once.
func compiledCorpus(t testing.TB) []schemaPair {
	corpusOnce.Do(func() {
		for _, s := range corpusSchemas() {
			corpusPairs = append(corpusPairs, compilePair(t, s[0], []byte(s[1])))
		}
	})
	if len(corpusPairs) < 50 {
		t.Fatalf("only %d schemas in the corpus", len(corpusPairs))
	}
	return corpusPairs
}

// FuzzSchemaOracle checks the built-in validator against the oracle on the schemas of
// the examples, the goldens and the edge cases: which picks the schema.
func FuzzSchemaOracle(f *testing.F) {
	pairs := compiledCorpus(f)
	for i, inst := range edgeInstances {
		f.Add(uint16(i), []byte(inst))
	}
	f.Fuzz(func(t *testing.T, which uint16, inst []byte) {
		if !json.Valid(inst) {
			return
		}
		pairs[int(which)%len(pairs)].agree(t, inst)
	})
}

// TestSchemaOracleCorpus runs every edge instance against every schema of the corpus.
func TestSchemaOracleCorpus(t *testing.T) {
	pairs := compiledCorpus(t)
	for _, sp := range pairs {
		for _, inst := range edgeInstances {
			if json.Valid([]byte(inst)) {
				sp.agree(t, []byte(inst))
			}
		}
	}
	figure := fmt.Sprintf("%d schemas × %d edge instances", len(pairs), len(edgeInstances))
	t.Log(figure)
	checkReliabilityFigure(t, "Repeated member names, exact numbers, formats", figure)
	checkReliabilityFigure(t, "Fuzzing", fmt.Sprintf("the %d schemas", len(pairs)))
}

// checkReliabilityFigure fails t unless the row of docs/reliability.md whose
// first cell is row quotes figure (internal/testfigures).
func checkReliabilityFigure(t *testing.T, row, figure string) {
	t.Helper()
	testfigures.Check(t, "../../../docs/reliability.md", row, figure)
}
