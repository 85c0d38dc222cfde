package gen

import (
	"encoding/json"
	"go/token"

	"github.com/invopop/jsonschema"

	"github.com/mcpgen/mcpgen/gen/schema"
)

// legacyWrapName is the property that wraps a non-object result for
// 2025-11-25 clients, whose structuredContent must be an object
// (schema.LegacyWrap uses the same name).
const legacyWrapName = "result"

// emptyInputSchema is the input schema of a handler without In.
func emptyInputSchema() json.RawMessage {
	return json.RawMessage("{\n  \"type\": \"object\",\n  \"additionalProperties\": false\n}")
}

// marshal renders a schema as indented JSON. A failure is mcpgen's bug and is
// reported as an internal error at pos.
func (a *analyzer) marshal(s *jsonschema.Schema, pos token.Pos, label string) json.RawMessage {
	raw, err := schema.Marshal(s)
	if err != nil {
		a.errorf(pos, "%s: internal error: marshal schema: %v", label, err)
		return nil
	}
	return raw
}

// legacyWrap returns the 2025-11-25 output schema {"result": s} when the root
// of s is not an object, or nil when s can be sent as is.
func legacyWrap(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || schema.IsObjectRoot(s) {
		return nil
	}
	return schema.LegacyWrap(s)
}
