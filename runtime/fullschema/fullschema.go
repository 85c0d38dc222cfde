// Package fullschema, when imported, lets the runtime validate JSON Schemas beyond
// its built-in validator, with santhosh-tekuri/jsonschema/v6:
//
//	import _ "github.com/mcpgen/mcpgen/runtime/fullschema"
//
// The runtime's built-in validator covers every schema mcpgen generates from Go
// types and the elicitation subset, and costs nothing at start-up. A tool whose input
// or output schema uses other keywords (allOf, not, if/then/else, $anchor, $id,
// patternProperties, ...), typically one written by hand with //mcp:tool
// input=FILE.json, needs this package: mcpgen adds the import to the generated file
// exactly when a schema needs it (runtime.CheckSchema decides), and Server.AddTool
// panics on such a schema without it. The package costs about 12 ms and 1.7 MB of
// initialisation (the validator's meta-schemas and golang.org/x/text tables).
//
// Formats are asserted as by the built-in validator: date-time as encoding/json
// decodes time.Time (of the decoded string: an escaped date-time passes here but not
// there), date, email and uri; other formats are annotations. Repeated member names
// and numbers beyond float64 are refused by the runtime before this validator runs.
package fullschema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/runtime/internal/format"
	"github.com/mcpgen/mcpgen/runtime/internal/fullformats"
	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
)

func init() {
	fullhook.Compile = compile
}

// compile compiles a 2020-12 schema that may reference only itself: external $refs
// are never fetched.
func compile(schema []byte) (fullhook.Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("decode schema: %w", err)
	}
	c := fullformats.NewCompiler(map[string]func(string) bool{
		"date-time": format.DateTime, "date": format.Date[string], "email": format.Email, "uri": format.URI})
	const url = "urn:mcpgen:schema"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return func(instance []byte) ([]fullhook.Failure, error) { return validate(sch, instance) }, nil
}

// errNumber reports a number the validator could not handle.
var errNumber = errors.New("a number the validator cannot handle")

// validate validates an instance. santhosh-tekuri/jsonschema v6.0.3 dereferences nil
// on numbers math/big refuses (e.g. 0.0000001e1000010) when the schema bounds them:
// the runtime refuses those first, and a panic left becomes an error here.
func validate(sch *jsonschema.Schema, instance []byte) (fails []fullhook.Failure, err error) {
	defer func() {
		if r := recover(); r != nil {
			fails, err = nil, errNumber
		}
	}()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return nil, fmt.Errorf("decode value: %w", err)
	}
	var verr *jsonschema.ValidationError
	if err := sch.Validate(v); errors.As(err, &verr) {
		return failures(verr), nil
	} else if err != nil {
		return nil, err
	}
	return nil, nil
}

// failures lists the output units that carry an error of their own, skipping the
// summary units of combinators and references.
func failures(verr *jsonschema.ValidationError) []fullhook.Failure {
	out := verr.BasicOutput()
	var list []fullhook.Failure
	add := func(u jsonschema.OutputUnit) {
		rule, text := ruleName(u.KeywordLocation), u.Error.String()
		text = strings.TrimPrefix(text, rule+": ")
		if !plainRules[rule] { // its text may quote the value: arguments may be secrets
			text = "the value does not satisfy " + rule + " at " + u.KeywordLocation
		}
		list = append(list, fullhook.Failure{Pointer: u.InstanceLocation, Keyword: rule, Message: text})
	}
	for _, u := range out.Errors {
		if u.Error == nil || len(u.Errors) > 0 {
			continue
		}
		switch ruleName(u.KeywordLocation) {
		case "allOf", "anyOf", "oneOf", "$ref", "$dynamicRef", "":
			continue
		}
		add(u)
	}
	if len(list) == 0 {
		if out.Error != nil {
			add(*out)
		} else {
			list = append(list, fullhook.Failure{Keyword: "schema", Message: "does not match the schema"})
		}
	}
	return list
}

// plainRules are the keywords whose messages never quote the instance's value
// (they name types, properties, counts or the schema's own values); the others
// (pattern, format, minimum, multipleOf, ...) get a message of their own.
var plainRules = map[string]bool{"type": true, "required": true, "additionalProperties": true,
	"enum": true, "const": true, "minItems": true, "maxItems": true, "minProperties": true,
	"maxProperties": true, "minLength": true, "maxLength": true, "uniqueItems": true,
	"dependentRequired": true, "false": true, "not": true}

// ruleName returns the keyword a keyword location ends with.
func ruleName(kwLoc string) string {
	return kwLoc[strings.LastIndexByte(kwLoc, '/')+1:]
}
