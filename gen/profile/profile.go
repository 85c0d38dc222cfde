// Package profile checks tool input schemas against what model providers
// accept, and rewrites them into OpenAI's strict form.
//
// A Profile is one provider's subset of JSON Schema for function (tool)
// parameters; Check reports every place where a schema leaves it, as a
// Finding at the JSON pointer of the offending subschema (package
// gen/schema maps pointers back to Go fields with Builder.Positions). The
// rules and their sources are listed in docs/profiles.md:
//
//	openai     OpenAI function calling with "strict": true (Structured Outputs):
//	           every object closed, every property required (optional ones as a
//	           union with null), a keyword and format whitelist, size limits
//	anthropic  Anthropic tool input_schema: an object root without
//	           oneOf/anyOf/allOf at the top level
//	gemini     Gemini function declarations (the OpenAPI 3.0 Schema subset): one
//	           type per schema, no $ref, a keyword whitelist, string enums
//
// The checks live in internal/schemaprofile (stdlib only), which the
// runtime's provider surfaces use too, so generate-time lints and run-time
// definitions apply the same rules.
//
// Only input schemas are checked: providers never see output schemas.
//
// OpenAIStrict turns the precise schema mcpgen derives into the strict form:
// optional properties become required and nullable. Because encoding/json
// decodes null into a non-pointer field as a no-op and into a pointer,
// slice or map as nil, a null argument then decodes exactly as an absent
// one (defaults included), except for a slice or map field with a default,
// which OpenAIStrict reports.
package profile

import "github.com/mcpgen/mcpgen/internal/schemaprofile"

// A Finding is one thing a provider would reject.
type Finding = schemaprofile.Finding

// A Profile is one provider's accepted schema subset; its Check method
// returns what the provider would reject in an input schema, sorted by
// pointer then message.
type Profile = schemaprofile.Profile

// Profiles returns the known profiles, sorted by name.
func Profiles() []Profile { return schemaprofile.Profiles() }

// Names returns the names of the known profiles, sorted.
func Names() []string { return schemaprofile.Names() }

// Lookup returns the profile called name.
func Lookup(name string) (Profile, bool) { return schemaprofile.Lookup(name) }

// escape escapes a JSON pointer reference token (RFC 6901).
func escape(s string) string { return schemaprofile.Escape(s) }
