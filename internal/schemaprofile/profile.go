// Package schemaprofile checks tool input schemas against what model
// providers accept. It is the stdlib-only core of gen/profile (which the
// generator's -lint and -strict use) and of the runtime's provider surfaces
// (runtime/modelcall/surfaces.go), so that both apply the same rules. The rules and
// their sources are listed in docs/profiles.md:
//
//	openai     OpenAI function calling with "strict": true (Structured Outputs):
//	           every object closed, every property required (optional ones as a
//	           union with null), a keyword and format whitelist, size limits
//	anthropic  Anthropic tool input_schema: an object root without
//	           oneOf/anyOf/allOf at the top level
//	gemini     Gemini function declarations (the OpenAPI 3.0 Schema subset): one
//	           type per schema, no $ref, a keyword whitelist, string enums
package schemaprofile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Finding is one thing a provider would reject.
type Finding struct {
	Ptr string // JSON pointer of the offending subschema ("" is the root)
	Msg string
}

// A Profile is one provider's accepted schema subset.
type Profile struct {
	Name  string // flag value: openai, anthropic, gemini
	Label string // for messages: "OpenAI strict mode"
	check func(c *checker, root map[string]any)
}

// Profiles returns the known profiles, sorted by name.
func Profiles() []Profile {
	return []Profile{
		{Name: "anthropic", Label: "Anthropic", check: checkAnthropic},
		{Name: "gemini", Label: "Gemini", check: checkGemini},
		{Name: "openai", Label: "OpenAI strict mode", check: checkOpenAI},
	}
}

// Names returns the names of the known profiles, sorted.
func Names() []string {
	var names []string
	for _, p := range Profiles() {
		names = append(names, p.Name)
	}
	return names
}

// Lookup returns the profile called name.
func Lookup(name string) (Profile, bool) {
	for _, p := range Profiles() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Check returns what the provider would reject in the input schema raw,
// sorted by pointer then message.
func (p Profile) Check(raw json.RawMessage) ([]Finding, error) {
	doc, err := decode(raw)
	if err != nil {
		return nil, err
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return []Finding{{Msg: p.Label + " requires an object schema at the root"}}, nil
	}
	c := &checker{label: p.Label}
	p.check(c, root)
	slices.SortFunc(c.out, func(a, b Finding) int {
		if c := strings.Compare(a.Ptr, b.Ptr); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
	return slices.Compact(c.out), nil
}

// decode parses a schema keeping numbers exact.
func decode(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return v, nil
}

// A checker collects findings.
type checker struct {
	label string
	out   []Finding
}

// addf records a finding at ptr.
func (c *checker) addf(ptr, format string, args ...any) {
	c.out = append(c.out, Finding{Ptr: ptr, Msg: fmt.Sprintf(format, args...)})
}

// A node is one subschema and where it is.
type node struct {
	s     map[string]any
	ptr   string
	depth int // objects enclosing it, the root's properties being at depth 1
}

// children returns the subschemas of n, in a fixed order.
func children(n node) []node {
	var out []node
	add := func(v any, ptr string, depth int) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, node{m, ptr, depth})
		}
	}
	d := n.depth
	if isObject(n.s) {
		d++
	}
	for _, k := range sortedKeys(n.s) {
		v := n.s[k]
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			m, _ := v.(map[string]any)
			depth := d
			if k == "$defs" || k == "definitions" {
				depth = 0
			}
			for _, name := range sortedKeys(m) {
				add(m[name], n.ptr+"/"+k+"/"+Escape(name), depth)
			}
		case "items", "additionalProperties", "not", "propertyNames", "contains", "if", "then", "else", "contentSchema", "unevaluatedProperties", "unevaluatedItems":
			add(v, n.ptr+"/"+k, d)
		case "anyOf", "oneOf", "allOf", "prefixItems":
			l, _ := v.([]any)
			for i, e := range l {
				add(e, fmt.Sprintf("%s/%s/%d", n.ptr, k, i), n.depth)
			}
		}
	}
	return out
}

// walk calls f on root and every subschema under it.
func walk(root map[string]any, f func(n node)) {
	stack := []node{{s: root}}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f(n)
		kids := children(n)
		slices.Reverse(kids)
		stack = append(stack, kids...)
	}
}

// isObject reports whether s describes objects.
func isObject(s map[string]any) bool {
	return s["type"] == "object" || s["properties"] != nil
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// Escape escapes a JSON pointer reference token (RFC 6901).
func Escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// keywordsOutside reports the keywords of n that are not in allowed.
func (c *checker) keywordsOutside(n node, allowed func(k string) bool, hint func(k string) string) {
	for _, k := range sortedKeys(n.s) {
		if !allowed(k) {
			c.addf(n.ptr, "keyword %q is not supported by %s%s", k, c.label, hint(k))
		}
	}
}
