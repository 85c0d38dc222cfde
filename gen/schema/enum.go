package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/constant"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
)

// enumValues returns the values of the constants of type n declared at
// package level in n's package, in declaration order without repeats; nil
// when n is not from a loaded package or has no constants.
func (b *Builder) enumValues(n *types.Named) []any {
	if v, ok := b.enums.At(n).([]any); ok {
		return v
	}
	vals := b.findEnum(n)
	b.enums.Set(n, vals)
	return vals
}

func (b *Builder) findEnum(n *types.Named) []any {
	obj := n.Obj()
	if !b.isLocal(obj.Pkg()) || n.TypeArgs().Len() > 0 {
		return nil
	}
	if _, ok := n.Underlying().(*types.Basic); !ok {
		return nil
	}
	scope := obj.Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		if c, ok := scope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), n) {
			consts = append(consts, c)
		}
	}
	slices.SortFunc(consts, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	vals := []any{}
	seen := map[string]bool{}
	for _, c := range consts {
		v := constValue(c.Val(), n)
		key := fmt.Sprint(v)
		if !seen[key] {
			seen[key] = true
			vals = append(vals, v)
		}
	}
	return vals
}

// constValue converts a constant to the JSON value encoding/json writes.
func constValue(v constant.Value, t types.Type) any {
	b := t.Underlying().(*types.Basic)
	switch {
	case b.Info()&types.IsString != 0:
		return constant.StringVal(v)
	case b.Info()&types.IsBoolean != 0:
		return constant.BoolVal(v)
	case b.Info()&types.IsInteger != 0:
		return json.Number(v.ExactString())
	default:
		// Spelled as encoding/json writes the value (100000000000000000000,
		// 0.000001, 1e+21, 1e-7), which a ",string" enum compares as text.
		f, _ := constant.Float64Val(v)
		var js []byte
		if b.Kind() == types.Float32 {
			js, _ = json.Marshal(float32(f))
		} else {
			js, _ = json.Marshal(f)
		}
		return json.Number(js)
	}
}

// A dirResult is a parsed //mcp:schema directive.
type dirResult struct {
	schema *jsonschema.Schema
	err    error
}

// directiveSchema returns the schema given by a //mcp:schema directive.
func (r *run) directiveSchema(n *types.Named, d directive, w where) *jsonschema.Schema {
	if r.mode == modeOutput && (r.pointerOnly(n, "MarshalJSON", w) || r.pointerOnly(n, "MarshalText", w)) {
		return &jsonschema.Schema{}
	}
	res, ok := r.b.parsed[d.json]
	if !ok {
		res.schema, res.err = parseDirective(d.json)
		r.b.parsed[d.json] = res
	}
	if res.err != nil {
		r.diags = append(r.diags, Diagnostic{Pos: r.b.fset.Position(d.pos),
			Msg: fmt.Sprintf("mcp:schema of type %s: %v", n.Obj().Name(), res.err)})
		return &jsonschema.Schema{}
	}
	return res.schema
}

// parseDirective parses and meta-validates the JSON of a //mcp:schema
// directive. Keywords the invopop model lacks are kept in Extras.
func parseDirective(text string) (*jsonschema.Schema, error) {
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return nil, fmt.Errorf("want a JSON object, as in //mcp:schema {\"type\":\"string\"}")
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected text after the JSON object")
	}
	if err := metaValidate(raw); err != nil {
		return nil, err
	}
	if _, ok := raw["$ref"]; ok {
		return nil, fmt.Errorf("$ref is not supported here: the schema must be self-contained")
	}
	s := &jsonschema.Schema{}
	if err := json.Unmarshal([]byte(text), s); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	known := knownKeys()
	for k, v := range raw {
		if !known[k] {
			if s.Extras == nil {
				s.Extras = map[string]any{}
			}
			s.Extras[k] = v
		}
	}
	return s, nil
}

// knownKeys returns the JSON names of the fields of jsonschema.Schema.
func knownKeys() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
}

// metaValidate checks a schema document against the 2020-12 metaschema.
func metaValidate(doc any) error {
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	if err := c.AddResource("mcp-schema.json", doc); err != nil {
		return fmt.Errorf("invalid schema: %w", err)
	}
	if _, err := c.Compile("mcp-schema.json"); err != nil {
		return fmt.Errorf("invalid schema: %s", metaErrText(err))
	}
	return nil
}

// metaErrText condenses a metaschema validation error to its leaf
// messages, without the temporary URL.
func metaErrText(err error) string {
	var sve *sjs.SchemaValidationError
	if !errors.As(err, &sve) {
		return err.Error()
	}
	var msgs []string
	for line := range strings.Lines(sve.Err.Error()) {
		m, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if ok && !strings.HasSuffix(m, "' failed") {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return sve.Err.Error()
	}
	return strings.Join(msgs, "; ")
}
