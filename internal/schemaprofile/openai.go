package schemaprofile

import (
	"fmt"
	"slices"
)

// OpenAI strict mode limits (Structured Outputs, "Supported schemas").
const (
	openAIMaxDepth       = 10     // levels of object nesting
	openAIMaxProperties  = 5000   // object properties in total
	openAIMaxEnumValues  = 1000   // enum values in total
	openAIMaxChars       = 120000 // characters of property names, $defs names, enum and const values
	openAIBigEnum        = 250    // an enum with more values than this ...
	openAIBigEnumMaxChar = 15000  // ... may total at most this many characters
)

// openAIKeyword reports whether k is one of the keywords OpenAI strict mode accepts.
func openAIKeyword(k string) bool {
	switch k {
	case "type", "description", "title", "properties", "required",
		"additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
		"pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
		"exclusiveMinimum", "minLength", "maxLength", "minItems", "maxItems":
		return true
	}
	return false
}

// openAIFormat reports whether k is one of the string formats OpenAI strict mode accepts.
func openAIFormat(k string) bool {
	switch k {
	case "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid":
		return true
	}
	return false
}

// openAIHint says what -strict=openai does about an unsupported keyword.
func openAIHint(k string) string {
	switch k {
	case "default":
		return " (-strict=openai moves a default into the description)"
	case "examples", "contentEncoding", "contentMediaType", "deprecated", "readOnly", "writeOnly", "$comment":
		return " (-strict=openai drops it)"
	}
	return ""
}

// openAITotals accumulates the sizes OpenAI limits.
type openAITotals struct {
	props, enumValues, chars int
}

// checkOpenAI applies OpenAI's strict-mode rules.
func checkOpenAI(c *checker, root map[string]any) {
	if root["type"] != "object" {
		c.addf("", "%s requires \"type\": \"object\" at the root", c.label)
	}
	if _, ok := root["anyOf"]; ok {
		c.addf("", "%s rejects anyOf at the root", c.label)
	}
	var tot openAITotals
	walk(root, func(n node) {
		c.keywordsOutside(n, openAIKeyword, openAIHint)
		c.openAITyped(n)
		c.openAIObject(n, &tot)
		c.openAIStringFormat(n)
		c.openAIEnum(n, &tot)
	})
	for name := range asMap(root["$defs"]) {
		tot.chars += len(name)
	}
	c.openAITotals(tot)
}

// openAITyped reports a schema that accepts any value.
func (c *checker) openAITyped(n node) {
	for _, k := range []string{"type", "anyOf", "$ref", "enum", "const"} {
		if _, ok := n.s[k]; ok {
			return
		}
	}
	c.addf(n.ptr, "a schema without a type (any JSON value) is not supported by %s", c.label)
}

// openAIObject checks that an object is closed and requires every property.
func (c *checker) openAIObject(n node, tot *openAITotals) {
	if !isObject(n.s) {
		return
	}
	if n.depth+1 > openAIMaxDepth {
		c.addf(n.ptr, "objects nest %d levels deep here; %s allows %d", n.depth+1, c.label, openAIMaxDepth)
	}
	switch ap := n.s["additionalProperties"]; {
	case ap == false:
	case ap == nil:
		c.addf(n.ptr, "%s requires \"additionalProperties\": false on every object", c.label)
	default:
		c.addf(n.ptr, "an object with arbitrary keys (a map) is not supported by %s: every object must set \"additionalProperties\": false", c.label)
	}
	props := asMap(n.s["properties"])
	required := asStrings(n.s["required"])
	for _, name := range sortedKeys(props) {
		tot.props++
		tot.chars += len(name)
		if !slices.Contains(required, name) {
			c.addf(n.ptr+"/properties/"+Escape(name), "property %q is optional, but %s requires every property: generate with -strict=openai (or //mcp:tool strict=openai) to make it required and nullable", name, c.label)
		}
	}
}

// openAIStringFormat checks a string format against the supported ones.
func (c *checker) openAIStringFormat(n node) {
	f, ok := n.s["format"].(string)
	if ok && !openAIFormat(f) {
		c.addf(n.ptr, "format %q is not supported by %s", f, c.label)
	}
}

// openAIEnum counts enum and const values against the limits.
func (c *checker) openAIEnum(n node, tot *openAITotals) {
	if v, ok := n.s["const"]; ok {
		tot.chars += valueLen(v)
	}
	vals, ok := n.s["enum"].([]any)
	if !ok {
		return
	}
	tot.enumValues += len(vals)
	chars := 0
	for _, v := range vals {
		chars += valueLen(v)
	}
	tot.chars += chars
	if len(vals) > openAIBigEnum && chars > openAIBigEnumMaxChar {
		c.addf(n.ptr, "an enum of %d values totalling %d characters exceeds %s's limit of %d characters for enums of more than %d values",
			len(vals), chars, c.label, openAIBigEnumMaxChar, openAIBigEnum)
	}
}

// openAITotals reports the schema-wide limits.
func (c *checker) openAITotals(tot openAITotals) {
	if tot.props > openAIMaxProperties {
		c.addf("", "the schema has %d object properties; %s allows %d", tot.props, c.label, openAIMaxProperties)
	}
	if tot.enumValues > openAIMaxEnumValues {
		c.addf("", "the schema has %d enum values; %s allows %d", tot.enumValues, c.label, openAIMaxEnumValues)
	}
	if tot.chars > openAIMaxChars {
		c.addf("", "property names, $defs names and enum values total %d characters; %s allows %d", tot.chars, c.label, openAIMaxChars)
	}
}

// valueLen is the length of a value as a string: a string's characters,
// another value's JSON text.
func valueLen(v any) int {
	if s, ok := v.(string); ok {
		return len([]rune(s))
	}
	return len(fmt.Sprint(v))
}

// asMap returns v as a JSON object, or nil.
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// asStrings returns the strings of a JSON array.
func asStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
