// Package fullhook connects the runtime to runtime/fullschema without an import
// either way: the runtime reads Compile, and fullschema sets it when imported.
package fullhook

// A Failure is one reason a JSON value is invalid.
type Failure struct {
	Pointer string // JSON Pointer of the value ("" for the root)
	Keyword string // the rule, e.g. "minimum"
	Message string // what was found and what was expected
}

// A Validator validates one JSON value (valid JSON; no repeated member names and no
// number beyond float64: the runtime refuses those first). It returns the failures,
// nil when the value is valid, or an error when it cannot decide.
type Validator func(instance []byte) ([]Failure, error)

// Compile compiles a JSON Schema 2020-12 document beyond the runtime's built-in
// validator. It is nil unless runtime/fullschema is imported.
var Compile func(schema []byte) (Validator, error)
