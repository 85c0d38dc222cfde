package schemaprofile

// geminiKeyword reports whether k is one of the fields of Gemini's Schema object (a subset of the
// OpenAPI 3.0 schema object), plus additionalProperties: false, which
// only restates that the properties are all there is.
func geminiKeyword(k string) bool {
	switch k {
	case "type", "format", "title", "description", "nullable", "enum",
		"maxItems", "minItems", "properties", "required", "minProperties", "maxProperties",
		"minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
		"default", "items", "minimum", "maximum", "additionalProperties":
		return true
	}
	return false
}

// geminiFormat reports whether Gemini accepts format f on type t.
func geminiFormat(t, f string) bool {
	switch t + " " + f {
	case "string enum", "string date-time", "number float", "number double", "integer int32", "integer int64":
		return true
	}
	return false
}

// geminiHint explains the usual replacements.
func geminiHint(k string) string {
	switch k {
	case "$ref", "$defs":
		return " (recursive Go types need $ref: break the recursion, or give the type a //mcp:schema)"
	case "exclusiveMinimum", "exclusiveMaximum":
		return " (use minimum or maximum)"
	case "const":
		return " (use a one-value enum)"
	}
	return ""
}

// checkGemini applies the rules of Gemini function declarations.
func checkGemini(c *checker, root map[string]any) {
	if root["type"] != "object" {
		c.addf("", "%s requires \"type\": \"object\" for function parameters", c.label)
	}
	walk(root, func(n node) {
		c.keywordsOutside(n, geminiKeyword, geminiHint)
		c.geminiType(n)
		if ap, ok := n.s["additionalProperties"]; ok && ap != false {
			c.addf(n.ptr, "an object with arbitrary keys (a map) cannot be described to %s: its schema has no additionalProperties", c.label)
		}
		c.geminiEnum(n)
	})
}

// geminiType checks that a schema names a single type and a format Gemini
// knows for it.
func (c *checker) geminiType(n node) {
	t, ok := n.s["type"]
	if !ok {
		return
	}
	ts, ok := t.(string)
	if !ok {
		c.addf(n.ptr, "a list of types is not supported by %s: use anyOf", c.label)
		return
	}
	f, ok := n.s["format"].(string)
	if ok && !geminiFormat(ts, f) {
		c.addf(n.ptr, "format %q on type %s is not supported by %s", f, ts, c.label)
	}
}

// geminiEnum checks that enum values are strings.
func (c *checker) geminiEnum(n node) {
	vals, _ := n.s["enum"].([]any)
	for _, v := range vals {
		if _, ok := v.(string); !ok {
			c.addf(n.ptr, "enum value %v is not a string: %s accepts string enums only", v, c.label)
			return
		}
	}
}
