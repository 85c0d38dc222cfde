// Package fullformats sets up santhosh-tekuri/jsonschema/v6 compilers the way the
// runtime uses them, for runtime/fullschema and for the oracle tests of the
// built-in validator: 2020-12 by default, external $refs never fetched, the formats
// given asserted and every other format v6 knows an annotation.
package fullformats

import (
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// annotationFormats are the formats santhosh-tekuri/jsonschema/v6 knows that the
// runtime does not assert ("regex" cannot be replaced; the runtime asserts it neither,
// but no schema mcpgen generates uses it).
var annotationFormats = []string{"time", "duration", "period", "hostname", "idn-hostname",
	"idn-email", "ipv4", "ipv6", "iri", "uri-reference", "iri-reference", "uri-template",
	"json-pointer", "relative-json-pointer", "uuid", "semver"}

// NewCompiler returns a compiler that asserts the formats of assert (by name, on
// strings; other values pass) and treats the other formats v6 knows as
// annotations; formats in neither keep v6's own assertion.
func NewCompiler(assert map[string]func(string) bool) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	c.AssertFormat()
	for name, ok := range assert {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: stringFormat(ok)})
	}
	for _, name := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	return c
}

// stringFormat asserts a format on strings; other values pass.
func stringFormat(ok func(string) bool) func(any) error {
	return func(v any) error {
		if s, isString := v.(string); isString && !ok(s) {
			return errors.New("not of this format")
		}
		return nil
	}
}
