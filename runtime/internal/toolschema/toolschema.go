// Package toolschema holds the schemas of registered tools and forms: the
// checks at registration (an input schema is an object schema; a schema beyond
// the built-in validator needs runtime/fullschema), compilation once, on first
// use, by the built-in validator (internal/schemacheck) or by runtime/fullschema
// (through internal/fullhook), validation with reasons, and the top-level
// property names in document order; failures.go says what a failed validation
// means (for the model, the log, an elicitation answer).
package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/schemacheck"
)

// A Lazy is a tool's input or output schema: checked when the tool is
// registered, compiled on first use, once, for the built-in validator (internal/schemacheck) or,
// beyond it, for runtime/fullschema.
type Lazy struct {
	Name string // for messages, e.g. "echo/input"
	Raw  json.RawMessage
	Full bool // beyond the built-in validator: runtime/fullschema validates it
	// Auto marks a schema not checked at registration (the generator checked
	// it): the first use decides between the built-in validator and
	// runtime/fullschema, as Mode would have, and a schema neither can compile
	// is an error then.
	Auto   bool
	once   sync.Once
	node   *schemacheck.Schema // built-in (nil is the schema true)
	fullV  fullhook.Validator
	closed bool // every object the schema admits is closed (built-in only)
	err    error
}

// get compiles the schema on the first call.
func (l *Lazy) get() error {
	l.once.Do(func() {
		if !l.Full {
			l.node, l.err = schemacheck.Compile(l.Raw, true)
			var unsupported *schemacheck.UnsupportedError
			if l.err == nil {
				l.closed = l.node.ClosedTree(map[*schemacheck.Schema]bool{})
				return
			}
			switch {
			case !errors.As(l.err, &unsupported):
				l.err = fmt.Errorf("compile schema %s: %w", l.Name, l.err)
				return
			case !l.Auto || fullhook.Compile == nil:
				l.err = fmt.Errorf("compile schema %s: %w; add %s to the program", l.Name, l.err, fullSchemaImport)
				return
			}
			l.node, l.Full = nil, true // Auto: beyond the built-in validator
		}
		if l.fullV, l.err = fullhook.Compile(l.Raw); l.err != nil {
			l.err = fmt.Errorf("compile schema %s: %w", l.Name, l.err)
		}
	})
	return l.err
}

// Failures validates a JSON value (valid JSON): nil when it is valid, else why not.
// A valid value costs no allocation with the built-in validator.
func (l *Lazy) Failures(v []byte) ([]fullhook.Failure, error) {
	if err := l.get(); err != nil {
		return nil, err
	}
	if !l.Full {
		if l.node.Valid(v) {
			return nil, nil
		}
		if fails := l.node.Explain(v); len(fails) > 0 {
			return fails, nil
		}
		return nil, fmt.Errorf("schema %s: the validator refused a value without a reason", l.Name)
	}
	if t := jsonwire.TrimSpace(v); len(t) == 0 || !schemacheck.WalkOK(t) { // repeated names, out-of-range numbers
		return schemacheck.Empty.Explain(v), nil
	}
	fails, err := l.fullV(v)
	if err != nil {
		return nil, fmt.Errorf("validate with schema %s: %w", l.Name, err)
	}
	return fails, nil
}

// Mode decides how a schema is validated at registration: by the built-in
// validator, or by runtime/fullschema when the schema is beyond it. Without
// runtime/fullschema such a schema is an error naming the keyword and the import; a
// schema that is not valid JSON Schema is an error either way.
func Mode(raw json.RawMessage) (full bool, err error) {
	err = schemacheck.Check(raw)
	var unsupported *schemacheck.UnsupportedError
	switch {
	case err == nil:
		return false, nil
	case !errors.As(err, &unsupported):
		return false, err
	case fullhook.Compile != nil:
		return true, nil
	}
	return false, fmt.Errorf("%w; add %s to the program (mcpgen adds it to the generated code of schemas that need it)", err, fullSchemaImport)
}

// CheckInput reports whether raw is a JSON object whose type is "object".
func CheckInput(raw json.RawMessage) error {
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(raw, &root); err != nil || !isObject(raw) {
		return fmt.Errorf("not a JSON object")
	}
	if root.Type != "object" {
		return fmt.Errorf(`root type must be "object"`)
	}
	return nil
}

// PropertyNames returns the keys of the schema's top-level "properties", in document
// order.
func PropertyNames(schema json.RawMessage) ([]string, error) {
	var root struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &root); err != nil || root.Properties == nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(root.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("properties: %w", err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
		names = append(names, fmt.Sprint(tok))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
	}
	return names, nil
}

// Closed reports whether every object the schema admits is closed (built-in
// validator only; false until the schema is compiled).
func (l *Lazy) Closed() bool { return l.closed }

// fullSchemaImport is the import that registers the full validator.
const fullSchemaImport = `import _ "github.com/mcpgen/mcpgen/runtime/fullschema"`

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
