package profile

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/invopop/jsonschema"
)

// OpenAIStrict returns the OpenAI strict form of the input schema s: every
// property required, the ones that were optional made nullable (null stands
// for "absent"), defaults moved into the description and annotations OpenAI
// rejects (examples, contentEncoding, ...) dropped. s is not modified.
//
// Origin maps the JSON pointer of every subschema of the result to the
// pointer of the subschema of s it comes from, for positions. The findings
// are the optional properties whose default null would erase (a slice or
// map decodes null as nil), at their pointers in the result. Whatever else
// OpenAI rejects (maps, untyped values, unsupported assertions) stays and
// is for Check to report.
func OpenAIStrict(s *jsonschema.Schema) (out *jsonschema.Schema, origin map[string]string, findings []Finding) {
	t := &strictTx{origin: map[string]string{}}
	out = t.schema(s, "", "")
	return out, t.origin, t.findings
}

// A strictTx is the state of one OpenAIStrict call.
type strictTx struct {
	origin   map[string]string
	findings []Finding
}

// schema transforms the subschema s found at old (in the input) and placed
// at ptr (in the output).
func (t *strictTx) schema(s *jsonschema.Schema, ptr, old string) *jsonschema.Schema {
	if s == nil || s == jsonschema.TrueSchema || s == jsonschema.FalseSchema {
		return s
	}
	t.origin[ptr] = old
	c := *s
	dropAnnotations(&c)
	c.Items = t.schema(s.Items, ptr+"/items", old+"/items")
	c.AdditionalProperties = t.schema(s.AdditionalProperties, ptr+"/additionalProperties", old+"/additionalProperties")
	c.Not = t.schema(s.Not, ptr+"/not", old+"/not")
	c.PropertyNames = t.schema(s.PropertyNames, ptr+"/propertyNames", old+"/propertyNames")
	c.AnyOf = t.list(s.AnyOf, ptr+"/anyOf", old+"/anyOf")
	c.OneOf = t.list(s.OneOf, ptr+"/oneOf", old+"/oneOf")
	c.AllOf = t.list(s.AllOf, ptr+"/allOf", old+"/allOf")
	c.PrefixItems = t.list(s.PrefixItems, ptr+"/prefixItems", old+"/prefixItems")
	if s.Definitions != nil {
		c.Definitions = jsonschema.Definitions{}
		for name, d := range s.Definitions {
			c.Definitions[name] = t.schema(d, ptr+"/$defs/"+escape(name), old+"/$defs/"+escape(name))
		}
	}
	if s.Properties != nil {
		t.properties(&c, s, ptr, old)
	}
	return &c
}

// list transforms the schemas of an array keyword.
func (t *strictTx) list(l []*jsonschema.Schema, ptr, old string) []*jsonschema.Schema {
	if l == nil {
		return nil
	}
	out := make([]*jsonschema.Schema, len(l))
	for i, e := range l {
		out[i] = t.schema(e, fmt.Sprintf("%s/%d", ptr, i), fmt.Sprintf("%s/%d", old, i))
	}
	return out
}

// properties makes every property of c (a copy of s) required, and the
// optional ones nullable.
func (t *strictTx) properties(c, s *jsonschema.Schema, ptr, old string) {
	c.Properties = jsonschema.NewProperties()
	c.Required = nil
	for name, ps := range s.Properties.FromOldest() {
		p, o := ptr+"/properties/"+escape(name), old+"/properties/"+escape(name)
		optional := !slices.Contains(s.Required, name)
		if optional && isNullable(ps) && hasDefault(ps) {
			t.findings = append(t.findings, Finding{Ptr: p, Msg: fmt.Sprintf(
				"property %q has a default, but its type decodes null as nil, so OpenAI's null (absent) would erase the default: drop the default or make the field a non-nullable type", name)})
		}
		ns := t.schema(ps, p, o)
		if optional && !isNullable(ns) {
			ns = t.wrapNull(ns, p, o)
		}
		c.Properties.Set(name, ns)
		c.Required = append(c.Required, name)
	}
}

// wrapNull returns {"anyOf": [s, {"type": "null"}]} with s's title and
// description moved to the union, and records the new pointers.
func (t *strictTx) wrapNull(s *jsonschema.Schema, ptr, old string) *jsonschema.Schema {
	inner := *s
	w := &jsonschema.Schema{Title: s.Title, Description: s.Description}
	inner.Title, inner.Description = "", ""
	w.AnyOf = []*jsonschema.Schema{&inner, {Type: "null"}}
	shift(t.origin, ptr, ptr+"/anyOf/0")
	t.origin[ptr] = old
	t.origin[ptr+"/anyOf/1"] = old
	return w
}

// shift moves the origin entries under from to under to.
func shift(origin map[string]string, from, to string) {
	moved := map[string]string{}
	for k, v := range origin {
		if k == from || (len(k) > len(from) && k[:len(from)] == from && k[len(from)] == '/') {
			moved[to+k[len(from):]] = v
			delete(origin, k)
		}
	}
	for k, v := range moved {
		origin[k] = v
	}
}

// dropAnnotations removes what OpenAI rejects but validation ignores,
// keeping a default as text in the description.
func dropAnnotations(c *jsonschema.Schema) {
	if c.Default != nil {
		if b, err := json.Marshal(c.Default); err == nil {
			c.Description = joinSentence(c.Description, "Default: "+string(b)+".")
		}
		c.Default = nil
	}
	c.Examples = nil
	c.ContentEncoding, c.ContentMediaType, c.Comments = "", "", ""
	c.Deprecated, c.ReadOnly, c.WriteOnly = false, false, false
}

// joinSentence appends a sentence to a description.
func joinSentence(desc, sentence string) string {
	if desc == "" {
		return sentence
	}
	return desc + " " + sentence
}

// isNullable reports whether s accepts null.
func isNullable(s *jsonschema.Schema) bool {
	if s == nil || s.Type == "null" {
		return s != nil
	}
	for _, b := range s.AnyOf {
		if b != nil && b.Type == "null" {
			return true
		}
	}
	return false
}

// hasDefault reports whether s or a branch of its union declares a default.
func hasDefault(s *jsonschema.Schema) bool {
	if s.Default != nil {
		return true
	}
	for _, b := range s.AnyOf {
		if b != nil && b.Default != nil {
			return true
		}
	}
	return false
}
