package schema

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
)

// HeaderKeyword is the MCP extension keyword that mirrors a tool parameter
// into an Mcp-Param-{name} HTTP header (2026-07-28, Streamable HTTP).
const HeaderKeyword = "x-mcp-header"

// maxSafeInt is 2^53-1, the largest integer a header-mirrored integer
// parameter may take.
var maxSafeInt = big.NewRat(1<<53-1, 1)

// IsHeaderToken reports whether name is an RFC 9110 token (1*tchar): what an
// x-mcp-header value must be.
func IsHeaderToken(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// HeaderTypeProblem returns why a property schema s cannot carry an
// x-mcp-header, or "": it must have type integer, string or boolean, and an
// integer must have minimum and maximum within ±(2^53-1).
func HeaderTypeProblem(typ string, minimum, maximum string) string {
	switch typ {
	case "string", "boolean":
		return ""
	case "integer":
		for _, b := range []struct{ name, v string }{{"minimum", minimum}, {"maximum", maximum}} {
			r, ok := new(big.Rat).SetString(b.v)
			if !ok {
				return fmt.Sprintf("an integer property needs a %s within ±(2^53-1) (add `jsonschema:\"minimum=...,maximum=...\"` or use a 32-bit type)", b.name)
			}
			if new(big.Rat).Abs(r).Cmp(maxSafeInt) > 0 {
				return fmt.Sprintf("integer %s %s is beyond ±(2^53-1) (narrow it with `jsonschema:\"minimum=...,maximum=...\"` or use a 32-bit type)", b.name, b.v)
			}
		}
		return ""
	case "":
		return "the property's schema has no single type (a pointer, slice or map field is nullable): use a non-pointer string, integer or boolean field, with omitempty to make it optional"
	case "number":
		return "x-mcp-header cannot sit on a number property (only integer, string or boolean)"
	}
	return fmt.Sprintf("x-mcp-header cannot sit on a property of type %s (only integer, string or boolean)", typ)
}

// headerField annotates the input schema s of field w with x-mcp-header name
// after checking the rules that concern the field alone; the rules about the
// whole input schema run in checkHeaders.
func (r *run) headerField(s *jsonschema.Schema, name string, w where) *jsonschema.Schema {
	if !IsHeaderToken(name) {
		r.errorf(w, "mcp tag: header=%q is not an HTTP header token (1*tchar of RFC 9110: letters, digits and !#$%%&'*+-.^_`|~; no spaces, colons or control characters)", name)
		return s
	}
	if msg := HeaderTypeProblem(s.Type, string(s.Minimum), string(s.Maximum)); msg != "" {
		r.errorf(w, "mcp tag: header=%s: %s", name, msg)
		return s
	}
	c := *s
	c.Extras = map[string]any{HeaderKeyword: name}
	for k, v := range s.Extras {
		c.Extras[k] = v
	}
	r.b.headers[&c] = w
	return &c
}

// A headerUse is one x-mcp-header found in an input schema.
type headerUse struct {
	name, ptr string
	reachable bool
	w         where
}

// checkHeaders checks the x-mcp-header annotations of input schema s as a
// whole: each must be reachable from the root through properties only, and
// unique case-insensitively.
func (r *run) checkHeaders(s *jsonschema.Schema) {
	if len(r.b.headers) == 0 {
		return
	}
	var uses []headerUse
	r.walkHeaders(s, "", true, map[*jsonschema.Schema]bool{}, &uses)
	seen := map[string]headerUse{}
	for _, u := range uses {
		if !u.reachable {
			r.errorf(u.w, "mcp tag: header=%s: the property is not statically reachable from the input root through properties only (it is at %s, under an array, map, nullable or recursive $defs type): move it to a plain struct field chain", u.name, u.ptr)
			continue
		}
		key := strings.ToLower(u.name)
		if first, dup := seen[key]; dup {
			r.errorf(u.w, "mcp tag: header=%s: duplicate x-mcp-header (case-insensitively) in the input schema: %s also uses %q", u.name, first.ptr, first.name)
			continue
		}
		seen[key] = u
	}
}

// walkHeaders collects the annotated schemas under s (at JSON pointer ptr):
// each occurrence reachable through properties only (their number is bounded
// by the inlined size, see maxNodes), and each unreachable schema once
// (unreached marks those already walked).
func (r *run) walkHeaders(s *jsonschema.Schema, ptr string, reachable bool, unreached map[*jsonschema.Schema]bool, uses *[]headerUse) {
	if s == nil || !reachable && unreached[s] {
		return
	}
	if !reachable {
		unreached[s] = true
	}
	if w, ok := r.b.headers[s]; ok {
		*uses = append(*uses, headerUse{name: fmt.Sprint(s.Extras[HeaderKeyword]), ptr: ptr, reachable: reachable, w: w})
	}
	if s.Properties != nil {
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			r.walkHeaders(p.Value, ptr+"/properties/"+escapePointer(p.Key), reachable, unreached, uses)
		}
	}
	sub := func(key string, c *jsonschema.Schema) { r.walkHeaders(c, ptr+"/"+key, false, unreached, uses) }
	sub("items", s.Items)
	sub("additionalProperties", s.AdditionalProperties)
	sub("propertyNames", s.PropertyNames)
	sub("not", s.Not)
	sub("if", s.If)
	sub("then", s.Then)
	sub("else", s.Else)
	sub("contains", s.Contains)
	for i, c := range s.PrefixItems {
		sub(fmt.Sprintf("prefixItems/%d", i), c)
	}
	for i, c := range s.AnyOf {
		sub(fmt.Sprintf("anyOf/%d", i), c)
	}
	for i, c := range s.AllOf {
		sub(fmt.Sprintf("allOf/%d", i), c)
	}
	for i, c := range s.OneOf {
		sub(fmt.Sprintf("oneOf/%d", i), c)
	}
	for _, k := range sortedKeys(s.Definitions) {
		sub("$defs/"+escapePointer(k), s.Definitions[k])
	}
	for _, k := range sortedKeys(s.PatternProperties) {
		sub("patternProperties/"+escapePointer(k), s.PatternProperties[k])
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
