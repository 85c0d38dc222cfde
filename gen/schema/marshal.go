package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/invopop/jsonschema"
)

// Marshal writes s as deterministic JSON indented by two spaces, with
// keywords in a fixed reading order (type and description first, $defs
// last), properties in field order and map keys sorted. Backquotes are
// escaped as \u0060, so the result can sit in a Go raw string literal.
func Marshal(s *jsonschema.Schema) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeSchema(&buf, s); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("indent schema: %w", err)
	}
	return bytes.ReplaceAll(out.Bytes(), []byte("`"), []byte(`\u0060`)), nil
}

// A kw is one keyword of a schema object, or absent when !ok.
type kw struct {
	key string
	val any
	ok  bool
}

func writeSchema(buf *bytes.Buffer, s *jsonschema.Schema) error {
	if s == nil || isEmpty(s) {
		buf.WriteString("{}")
		return nil
	}
	if b, ok := boolSchema(s); ok {
		fmt.Fprint(buf, b)
		return nil
	}
	buf.WriteByte('{')
	n := 0
	for _, k := range keywords(s) {
		if !k.ok {
			continue
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		if err := writeValue(buf, k.key); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := writeValue(buf, k.val); err != nil {
			return fmt.Errorf("keyword %s: %w", k.key, err)
		}
	}
	buf.WriteByte('}')
	return nil
}

// boolSchema reports whether s is the true or false schema.
func boolSchema(s *jsonschema.Schema) (bool, bool) {
	switch {
	case s == jsonschema.TrueSchema:
		return true, true
	case s == jsonschema.FalseSchema:
		return false, true
	}
	if !isShallowZero(s) {
		return false, false
	}
	b, err := s.MarshalJSON()
	if err != nil {
		return false, false
	}
	switch string(b) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// isShallowZero reports whether every exported field of s is zero.
func isShallowZero(s *jsonschema.Schema) bool {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() && !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

func writeValue(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case *jsonschema.Schema:
		return writeSchema(buf, v)
	case []*jsonschema.Schema:
		buf.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeSchema(buf, s); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case map[string]*jsonschema.Schema:
		return writeMap(buf, v)
	case jsonschema.Definitions:
		return writeMap(buf, v)
	case orderedProps:
		return writeProps(buf, v)
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

func writeMap(buf *bytes.Buffer, m map[string]*jsonschema.Schema) error {
	buf.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := writeValue(buf, k); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := writeSchema(buf, m[k]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

type orderedProps struct{ s *jsonschema.Schema }

func writeProps(buf *bytes.Buffer, p orderedProps) error {
	buf.WriteByte('{')
	i := 0
	for k, v := range p.s.Properties.FromOldest() {
		if i > 0 {
			buf.WriteByte(',')
		}
		i++
		if err := writeValue(buf, k); err != nil {
			return err
		}
		buf.WriteByte(':')
		if err := writeSchema(buf, v); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// keywords lists the keywords of s in the order Marshal writes them.
func keywords(s *jsonschema.Schema) []kw {
	ks := []kw{
		{"$schema", s.Version, s.Version != ""},
		{"$id", s.ID, s.ID != ""},
		{"$anchor", s.Anchor, s.Anchor != ""},
		{"$ref", s.Ref, s.Ref != ""},
		{"$dynamicRef", s.DynamicRef, s.DynamicRef != ""},
		{"$comment", s.Comments, s.Comments != ""},
		{"title", s.Title, s.Title != ""},
		{"description", s.Description, s.Description != ""},
		{"type", s.Type, s.Type != ""},
		{"const", s.Const, s.Const != nil},
		{"enum", s.Enum, s.Enum != nil},
		{"format", s.Format, s.Format != ""},
		{"contentEncoding", s.ContentEncoding, s.ContentEncoding != ""},
		{"contentMediaType", s.ContentMediaType, s.ContentMediaType != ""},
		{"contentSchema", s.ContentSchema, s.ContentSchema != nil},
		{"pattern", s.Pattern, s.Pattern != ""},
		{"minLength", s.MinLength, s.MinLength != nil},
		{"maxLength", s.MaxLength, s.MaxLength != nil},
		{"minimum", s.Minimum, s.Minimum != ""},
		{"exclusiveMinimum", s.ExclusiveMinimum, s.ExclusiveMinimum != ""},
		{"maximum", s.Maximum, s.Maximum != ""},
		{"exclusiveMaximum", s.ExclusiveMaximum, s.ExclusiveMaximum != ""},
		{"multipleOf", s.MultipleOf, s.MultipleOf != ""},
		{"allOf", s.AllOf, s.AllOf != nil},
		{"anyOf", s.AnyOf, s.AnyOf != nil},
		{"oneOf", s.OneOf, s.OneOf != nil},
		{"not", s.Not, s.Not != nil},
		{"if", s.If, s.If != nil},
		{"then", s.Then, s.Then != nil},
		{"else", s.Else, s.Else != nil},
		{"prefixItems", s.PrefixItems, s.PrefixItems != nil},
		{"items", s.Items, s.Items != nil},
		{"contains", s.Contains, s.Contains != nil},
		{"minContains", s.MinContains, s.MinContains != nil},
		{"maxContains", s.MaxContains, s.MaxContains != nil},
		{"minItems", s.MinItems, s.MinItems != nil},
		{"maxItems", s.MaxItems, s.MaxItems != nil},
		{"uniqueItems", s.UniqueItems, s.UniqueItems},
		{"properties", orderedProps{s}, s.Properties != nil},
		{"patternProperties", s.PatternProperties, s.PatternProperties != nil},
		{"required", s.Required, len(s.Required) > 0},
		{"dependentRequired", s.DependentRequired, s.DependentRequired != nil},
		{"dependentSchemas", s.DependentSchemas, s.DependentSchemas != nil},
		{"minProperties", s.MinProperties, s.MinProperties != nil},
		{"maxProperties", s.MaxProperties, s.MaxProperties != nil},
		{"propertyNames", s.PropertyNames, s.PropertyNames != nil},
		{"additionalProperties", s.AdditionalProperties, s.AdditionalProperties != nil},
		{"default", s.Default, s.Default != nil},
		{"examples", s.Examples, s.Examples != nil},
		{"deprecated", s.Deprecated, s.Deprecated},
		{"readOnly", s.ReadOnly, s.ReadOnly},
		{"writeOnly", s.WriteOnly, s.WriteOnly},
	}
	for _, k := range slices.Sorted(maps.Keys(s.Extras)) {
		ks = append(ks, kw{k, s.Extras[k], true})
	}
	return append(ks, kw{"$defs", s.Definitions, len(s.Definitions) > 0})
}

// IsObjectRoot reports whether s describes JSON objects only (its "type"
// is "object"), as the 2025-11-25 protocol requires of an outputSchema.
func IsObjectRoot(s *jsonschema.Schema) bool {
	return s.Type == "object" || s.Extras["type"] == "object"
}

// LegacyWrap returns {"type":"object","properties":{"result":s},
// "required":["result"],"additionalProperties":false}: the output schema
// for 2025-11-25 clients when s is not an object, with the value wrapped as
// {"result": value}. $defs move from s to the wrapper so that $refs still
// resolve. s is not modified.
func LegacyWrap(s *jsonschema.Schema) *jsonschema.Schema {
	inner := *s
	w := &jsonschema.Schema{
		Type:                 "object",
		Properties:           jsonschema.NewProperties(),
		Required:             []string{"result"},
		AdditionalProperties: jsonschema.FalseSchema,
		Definitions:          inner.Definitions,
	}
	inner.Definitions = nil
	w.Properties.Set("result", &inner)
	return w
}
