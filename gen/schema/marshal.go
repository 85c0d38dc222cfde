package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

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
	out.Grow(2 * buf.Len())
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("indent schema: %w", err)
	}
	if bytes.IndexByte(out.Bytes(), '`') < 0 {
		return out.Bytes(), nil
	}
	return bytes.ReplaceAll(out.Bytes(), []byte("`"), []byte(`\u0060`)), nil
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
	o := object{buf: buf}
	writeKeywords(&o, s)
	if o.err != nil {
		return o.err
	}
	buf.WriteByte('}')
	return nil
}

// An object writes the members of one JSON object, remembering the first
// error.
type object struct {
	buf *bytes.Buffer
	n   int
	err error
}

// kw writes the member key: v when ok.
func (o *object) kw(key string, ok bool, v any) {
	if !ok || o.err != nil {
		return
	}
	if o.n > 0 {
		o.buf.WriteByte(',')
	}
	o.n++
	writeString(o.buf, key)
	o.buf.WriteByte(':')
	if err := writeValue(o.buf, v); err != nil {
		o.err = fmt.Errorf("keyword %s: %w", key, err)
	}
}

// writeKeywords writes the keywords of s in the order Marshal promises.
func writeKeywords(o *object, s *jsonschema.Schema) {
	o.kw("$schema", s.Version != "", s.Version)
	o.kw("$id", s.ID != "", s.ID)
	o.kw("$anchor", s.Anchor != "", s.Anchor)
	o.kw("$ref", s.Ref != "", s.Ref)
	o.kw("$dynamicRef", s.DynamicRef != "", s.DynamicRef)
	o.kw("$comment", s.Comments != "", s.Comments)
	o.kw("title", s.Title != "", s.Title)
	o.kw("description", s.Description != "", s.Description)
	o.kw("type", s.Type != "", s.Type)
	o.kw("const", s.Const != nil, s.Const)
	o.kw("enum", s.Enum != nil, s.Enum)
	o.kw("format", s.Format != "", s.Format)
	o.kw("contentEncoding", s.ContentEncoding != "", s.ContentEncoding)
	o.kw("contentMediaType", s.ContentMediaType != "", s.ContentMediaType)
	o.kw("contentSchema", s.ContentSchema != nil, s.ContentSchema)
	o.kw("pattern", s.Pattern != "", s.Pattern)
	o.kw("minLength", s.MinLength != nil, s.MinLength)
	o.kw("maxLength", s.MaxLength != nil, s.MaxLength)
	o.kw("minimum", s.Minimum != "", s.Minimum)
	o.kw("exclusiveMinimum", s.ExclusiveMinimum != "", s.ExclusiveMinimum)
	o.kw("maximum", s.Maximum != "", s.Maximum)
	o.kw("exclusiveMaximum", s.ExclusiveMaximum != "", s.ExclusiveMaximum)
	o.kw("multipleOf", s.MultipleOf != "", s.MultipleOf)
	o.kw("allOf", s.AllOf != nil, s.AllOf)
	o.kw("anyOf", s.AnyOf != nil, s.AnyOf)
	o.kw("oneOf", s.OneOf != nil, s.OneOf)
	o.kw("not", s.Not != nil, s.Not)
	o.kw("if", s.If != nil, s.If)
	o.kw("then", s.Then != nil, s.Then)
	o.kw("else", s.Else != nil, s.Else)
	o.kw("prefixItems", s.PrefixItems != nil, s.PrefixItems)
	o.kw("items", s.Items != nil, s.Items)
	o.kw("contains", s.Contains != nil, s.Contains)
	o.kw("minContains", s.MinContains != nil, s.MinContains)
	o.kw("maxContains", s.MaxContains != nil, s.MaxContains)
	o.kw("minItems", s.MinItems != nil, s.MinItems)
	o.kw("maxItems", s.MaxItems != nil, s.MaxItems)
	o.kw("uniqueItems", s.UniqueItems, s.UniqueItems)
	o.kw("properties", s.Properties != nil, orderedProps{s})
	o.kw("patternProperties", s.PatternProperties != nil, s.PatternProperties)
	o.kw("required", len(s.Required) > 0, s.Required)
	o.kw("dependentRequired", s.DependentRequired != nil, s.DependentRequired)
	o.kw("dependentSchemas", s.DependentSchemas != nil, s.DependentSchemas)
	o.kw("minProperties", s.MinProperties != nil, s.MinProperties)
	o.kw("maxProperties", s.MaxProperties != nil, s.MaxProperties)
	o.kw("propertyNames", s.PropertyNames != nil, s.PropertyNames)
	o.kw("additionalProperties", s.AdditionalProperties != nil, s.AdditionalProperties)
	o.kw("default", s.Default != nil, s.Default)
	o.kw("examples", s.Examples != nil, s.Examples)
	o.kw("deprecated", s.Deprecated, s.Deprecated)
	o.kw("readOnly", s.ReadOnly, s.ReadOnly)
	o.kw("writeOnly", s.WriteOnly, s.WriteOnly)
	if len(s.Extras) > 0 {
		for _, k := range slices.Sorted(maps.Keys(s.Extras)) {
			o.kw(k, true, s.Extras[k])
		}
	}
	o.kw("$defs", len(s.Definitions) > 0, s.Definitions)
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
	if s.Type != "" || s.Ref != "" || s.Description != "" || s.Properties != nil {
		return false // the common cases, without reflection
	}
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
	case string:
		writeString(buf, v)
		return nil
	case *uint64:
		if v != nil {
			buf.Write(strconv.AppendUint(buf.AvailableBuffer(), *v, 10))
			return nil
		}
	case bool:
		buf.WriteString(strconv.FormatBool(v))
		return nil
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

// writeString writes s as a JSON string, as encoding/json does without
// HTML escaping; strings of plain printable ASCII take a short cut.
func writeString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			enc := json.NewEncoder(buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			buf.Truncate(buf.Len() - 1)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

func writeMap(buf *bytes.Buffer, m map[string]*jsonschema.Schema) error {
	buf.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeString(buf, k)
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
		writeString(buf, k)
		buf.WriteByte(':')
		if err := writeSchema(buf, v); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
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
