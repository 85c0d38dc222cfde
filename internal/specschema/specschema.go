// Package specschema prepares the MCP specification's schema.json files for the
// tests that validate messages against them (the runtime's and interop's): where
// each revision keeps its types, and closing the open types of the draft-07
// schemas before 2025-11-25.
package specschema

// Older reports whether rev is a handshake revision before 2025-11-25.
func Older(rev string) bool { return rev < "2025-11-25" }

// DefsKey is where a revision's schema.json keeps its types: "definitions" in
// the draft-07 schemas before 2025-11-25, "$defs" since.
func DefsKey(rev string) string {
	if Older(rev) {
		return "definitions"
	}
	return "$defs"
}

// Strictify makes the types of a revision before 2025-11-25 closed: every
// definition with properties and no additionalProperties of its own (and the
// params object inside it) gets additionalProperties false. Those schemas leave
// objects open, so without this a field a later revision added (structuredContent,
// title, outputSchema, audio's siblings, a progress message…) would pass. A
// request or notification type also admits the JSON-RPC envelope members.
func Strictify(doc any) {
	root, _ := doc.(map[string]any)
	defs, _ := root["definitions"].(map[string]any)
	for _, d := range defs {
		def, _ := d.(map[string]any)
		props, _ := def["properties"].(map[string]any)
		if props == nil {
			continue
		}
		if _, open := def["additionalProperties"]; !open {
			def["additionalProperties"] = false
			if _, ok := props["method"]; ok {
				props["jsonrpc"], props["id"] = map[string]any{}, map[string]any{}
			}
		}
		params, _ := props["params"].(map[string]any)
		if pp, _ := params["properties"].(map[string]any); pp != nil {
			if _, open := params["additionalProperties"]; !open {
				params["additionalProperties"] = false
			}
		}
	}
}
