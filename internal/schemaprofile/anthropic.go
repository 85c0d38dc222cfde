package schemaprofile

// checkAnthropic applies Anthropic's rules for a tool's input_schema: the
// root is an object schema and has no oneOf, anyOf or allOf.
func checkAnthropic(c *checker, root map[string]any) {
	if root["type"] != "object" {
		c.addf("", "%s requires \"type\": \"object\" at the root of an input schema", c.label)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if _, ok := root[k]; ok {
			c.addf("", "%q at the top level of an input schema is rejected by %s", k, c.label)
		}
	}
}
