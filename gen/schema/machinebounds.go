package schema

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// machineBound reports whether n is a bound of a 64-bit integer type (int,
// int64, uint, uint64, uintptr): a limit of the machine, not of the data.
func machineBound(n json.Number) bool {
	switch n {
	case "-9223372036854775808", "9223372036854775807", "18446744073709551615":
		return true
	}
	return false
}

// dropMachineBounds returns s with the bounds of 64-bit integer types removed
// ("minimum": 0 of unsigned types stays), copying the nodes it changes and
// their ancestors so that subschemas shared with other schemas are left
// alone. An output schema says what json.Marshal writes; without these bounds
// it still accepts all of it, and a model or host reads some 20 tokens less
// per integer (bounds beyond 2^53 are not even exact in JavaScript). Bounds
// of narrow types (int32, uint8, ...) and of tags stay: they say something.
func dropMachineBounds(s *jsonschema.Schema) *jsonschema.Schema {
	return (&boundDropper{memo: map[*jsonschema.Schema]*jsonschema.Schema{}}).node(s)
}

type boundDropper struct {
	memo map[*jsonschema.Schema]*jsonschema.Schema
}

func (d *boundDropper) node(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if c, ok := d.memo[s]; ok {
		return c
	}
	c := *s
	changed := false
	if s.Type == "integer" {
		if machineBound(c.Minimum) {
			c.Minimum, changed = "", true
		}
		if machineBound(c.Maximum) {
			c.Maximum, changed = "", true
		}
	}
	sub := func(p **jsonschema.Schema) {
		if n := d.node(*p); n != *p {
			*p, changed = n, true
		}
	}
	list := func(p *[]*jsonschema.Schema) {
		var out []*jsonschema.Schema
		for i, x := range *p {
			if n := d.node(x); n != x {
				if out == nil {
					out = append([]*jsonschema.Schema(nil), (*p)...)
				}
				out[i] = n
			}
		}
		if out != nil {
			*p, changed = out, true
		}
	}
	list(&c.AnyOf)
	list(&c.AllOf)
	list(&c.OneOf)
	list(&c.PrefixItems)
	sub(&c.Items)
	sub(&c.AdditionalProperties)
	sub(&c.PropertyNames)
	sub(&c.Not)
	if s.Properties != nil {
		props := jsonschema.NewProperties()
		propsChanged := false
		for k, v := range s.Properties.FromOldest() {
			n := d.node(v)
			propsChanged = propsChanged || n != v
			props.Set(k, n)
		}
		if propsChanged {
			c.Properties, changed = props, true
		}
	}
	if s.Definitions != nil {
		var defs jsonschema.Definitions
		for k, v := range s.Definitions {
			if n := d.node(v); n != v {
				if defs == nil {
					defs = jsonschema.Definitions{}
					for k2, v2 := range s.Definitions {
						defs[k2] = v2
					}
				}
				defs[k] = n
			}
		}
		if defs != nil {
			c.Definitions, changed = defs, true
		}
	}
	out := s
	if changed {
		out = &c
	}
	d.memo[s] = out
	return out
}
