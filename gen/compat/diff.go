package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// A differ collects the changes of one Diff.
type differ struct {
	out []Change
}

// add records a change.
func (d *differ) add(c Change) { d.out = append(d.out, c) }

// A side is one schema document being compared, for resolving its $refs.
type side struct {
	root map[string]any
}

// A cmpCtx is where a comparison stands.
type cmpCtx struct {
	d        *differ
	tool     string
	where    string // "input" or "output"
	old, new side
	seen     map[string]bool // "oldRef newRef" pairs already compared
}

// tool compares the schemas of one tool.
func (d *differ) tool(o, n Contract) error {
	if err := d.schemas(o.Name, "input", o.InputSchema, n.InputSchema); err != nil {
		return err
	}
	switch {
	case o.OutputSchema == nil && n.OutputSchema == nil:
	case o.OutputSchema == nil:
		d.add(Change{Tool: o.Name, Where: "output", Msg: "structured output added"})
	case n.OutputSchema == nil:
		d.add(Change{Tool: o.Name, Where: "output", Breaking: true, Msg: "structured output removed"})
	default:
		return d.schemas(o.Name, "output", o.OutputSchema, n.OutputSchema)
	}
	return nil
}

// schemas compares two schema documents of one tool.
func (d *differ) schemas(tool, where string, oldRaw, newRaw json.RawMessage) error {
	o, err := decodeObject(oldRaw)
	if err != nil {
		return fmt.Errorf("%s %s schema (base): %w", tool, where, err)
	}
	n, err := decodeObject(newRaw)
	if err != nil {
		return fmt.Errorf("%s %s schema: %w", tool, where, err)
	}
	c := &cmpCtx{d: d, tool: tool, where: where, old: side{o}, new: side{n}, seen: map[string]bool{}}
	c.node(o, n, "")
	return nil
}

// decodeObject parses a schema, keeping numbers exact.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	switch v := v.(type) {
	case map[string]any:
		return v, nil
	case bool:
		if v {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	return nil, fmt.Errorf("schema is not an object")
}

// report records a change at ptr; breaking says whether it breaks clients.
func (c *cmpCtx) report(ptr string, breaking bool, format string, args ...any) {
	c.d.add(Change{Tool: c.tool, Where: c.where, Ptr: ptr, Breaking: breaking, Msg: fmt.Sprintf(format, args...)})
}

// input reports whether the comparison is of an input schema, where a
// narrowing breaks; in an output schema a widening breaks.
func (c *cmpCtx) input() bool { return c.where == "input" }

// A view is a subschema with its nullable union and $ref resolved.
type view struct {
	s        map[string]any
	nullable bool
	ref      string
}

// resolve unwraps {"anyOf":[X,{"type":"null"}]} and follows a local $ref.
func (sd side) resolve(s map[string]any) view {
	v := view{s: s}
	for range 8 { // $ref chains are short; the bound stops loops
		if ref, ok := v.s["$ref"].(string); ok {
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			defs, _ := sd.root["$defs"].(map[string]any)
			target, _ := defs[name].(map[string]any)
			if !ok || target == nil {
				return v
			}
			v.ref, v.s = ref, target
			continue
		}
		if inner, ok := nullableBranch(v.s); ok {
			v.nullable, v.s = true, inner
			continue
		}
		return v
	}
	return v
}

// nullableBranch returns X of {"anyOf":[X,{"type":"null"}]}.
func nullableBranch(s map[string]any) (map[string]any, bool) {
	l, ok := s["anyOf"].([]any)
	if !ok || len(l) != 2 {
		return nil, false
	}
	null, _ := l[1].(map[string]any)
	inner, _ := l[0].(map[string]any)
	if null == nil || inner == nil || null["type"] != "null" || len(null) != 1 {
		return nil, false
	}
	return inner, true
}

// node compares the subschemas o (old) and n (new) at ptr.
func (c *cmpCtx) node(o, n map[string]any, ptr string) {
	ov, nv := c.old.resolve(o), c.new.resolve(n)
	if ov.ref != "" || nv.ref != "" {
		key := ov.ref + " " + nv.ref
		if c.seen[key] {
			return
		}
		c.seen[key] = true
	}
	c.null(ov, nv, ptr)
	if !c.types(ov.s, nv.s, ptr) {
		return // a different type: its keywords are not comparable
	}
	c.bounds(ov.s, nv.s, ptr)
	c.text(ov.s, nv.s, ptr)
	c.enum(ov.s, nv.s, ptr)
	c.object(ov.s, nv.s, ptr)
	if oi, ni := asMap(ov.s["items"]), asMap(nv.s["items"]); oi != nil && ni != nil {
		c.node(oi, ni, ptr+"/items")
	}
}

// null compares whether null is accepted.
func (c *cmpCtx) null(o, n view, ptr string) {
	switch {
	case o.nullable && !n.nullable:
		c.report(ptr, c.input(), "null no longer allowed")
	case !o.nullable && n.nullable:
		c.report(ptr, !c.input(), "null now allowed")
	}
}

// typeSet returns the JSON types a schema allows, nil for any.
func typeSet(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		if t == "number" {
			return []string{"integer", "number"}
		}
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, typeSet(map[string]any{"type": str})...)
			}
		}
		return out
	}
	return nil
}

// types compares the allowed types; it reports false when the types
// share no value, so that their other keywords are not compared.
func (c *cmpCtx) types(o, n map[string]any, ptr string) bool {
	ot, nt := typeSet(o), typeSet(n)
	lost := lostValues(ot, nt) // in old, not in new
	gained := lostValues(nt, ot)
	if len(lost) == 0 && len(gained) == 0 {
		return true
	}
	msg := fmt.Sprintf("type changed from %s to %s", typeName(o), typeName(n))
	switch {
	case len(lost) > 0 && len(gained) > 0:
		c.report(ptr, true, "%s", msg)
		return false
	case len(lost) > 0:
		c.report(ptr, c.input(), "%s (narrowed)", msg)
	default:
		c.report(ptr, !c.input(), "%s (widened)", msg)
	}
	return true
}

// lostValues returns the elements of a missing from b; a nil set is "any".
func lostValues(a, b []string) []string {
	if b == nil {
		return nil
	}
	if a == nil {
		return []string{"any"}
	}
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// typeName formats a schema's type for messages.
func typeName(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case nil:
		return "any"
	default:
		b, _ := json.Marshal(t)
		return string(b)
	}
}

// A bound is a numeric keyword and the direction that narrows it.
type bound struct {
	key   string
	lower bool // a larger value narrows (minimum), else a smaller one does
}

// bounds compares numeric, length and count limits.
func (c *cmpCtx) bounds(o, n map[string]any, ptr string) {
	for _, b := range []bound{{"minimum", true}, {"exclusiveMinimum", true}, {"maximum", false}, {"exclusiveMaximum", false},
		{"minLength", true}, {"maxLength", false}, {"minItems", true}, {"maxItems", false}, {"minProperties", true}, {"maxProperties", false}} {
		ov, oOK := number(o[b.key])
		nv, nOK := number(n[b.key])
		switch {
		case !oOK && !nOK:
		case !oOK:
			c.report(ptr, c.input(), "%s %v added (narrowed)", b.key, n[b.key])
		case !nOK:
			c.report(ptr, !c.input(), "%s %v removed (widened)", b.key, o[b.key])
		case ov.Cmp(nv) != 0:
			narrowed := (ov.Cmp(nv) < 0) == b.lower
			verb := "widened"
			if narrowed {
				verb = "narrowed"
			}
			c.report(ptr, narrowed == c.input(), "%s changed from %v to %v (%s)", b.key, o[b.key], n[b.key], verb)
		}
	}
	if om, nm := fmt.Sprint(o["multipleOf"]), fmt.Sprint(n["multipleOf"]); om != nm {
		c.report(ptr, true, "multipleOf changed from %s to %s", om, nm)
	}
}

// number reads a JSON number exactly.
func number(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return r, ok
}

// text compares pattern and format: any change may reject old values.
func (c *cmpCtx) text(o, n map[string]any, ptr string) {
	for _, k := range []string{"pattern", "format"} {
		ov, oOK := o[k].(string)
		nv, nOK := n[k].(string)
		switch {
		case ov == nv:
		case !nOK:
			c.report(ptr, !c.input(), "%s %q removed (widened)", k, ov)
		case !oOK:
			c.report(ptr, c.input(), "%s %q added (narrowed)", k, nv)
		default:
			c.report(ptr, true, "%s changed from %q to %q", k, ov, nv)
		}
	}
}

// enum compares enum and const values.
func (c *cmpCtx) enum(o, n map[string]any, ptr string) {
	ov, oOK := values(o)
	nv, nOK := values(n)
	switch {
	case !oOK && !nOK:
	case !oOK:
		c.report(ptr, c.input(), "restricted to the values %s (narrowed)", strings.Join(nv, ", "))
	case !nOK:
		c.report(ptr, !c.input(), "no longer restricted to enum values (widened)")
	default:
		for _, v := range lostValues(ov, nv) {
			c.report(ptr, c.input(), "enum value %s removed", v)
		}
		for _, v := range lostValues(nv, ov) {
			c.report(ptr, !c.input(), "enum value %s added", v)
		}
	}
}

// values returns the enum or const values of s as JSON text.
func values(s map[string]any) ([]string, bool) {
	var l []any
	if e, ok := s["enum"].([]any); ok {
		l = e
	} else if v, ok := s["const"]; ok {
		l = []any{v}
	} else {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, v := range l {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out, true
}

// object compares properties, required lists and additional properties.
func (c *cmpCtx) object(o, n map[string]any, ptr string) {
	op, np := asMap(o["properties"]), asMap(n["properties"])
	oreq, nreq := asStrings(o["required"]), asStrings(n["required"])
	nClosed := n["additionalProperties"] == false
	for _, name := range sortedKeys(op) {
		p := ptr + "/properties/" + escape(name)
		if _, ok := np[name]; !ok {
			c.removedField(name, p, slices.Contains(oreq, name), nClosed)
			continue
		}
		c.requiredChange(name, p, slices.Contains(oreq, name), slices.Contains(nreq, name))
		c.node(asMap(op[name]), asMap(np[name]), p)
	}
	for _, name := range sortedKeys(np) {
		if _, ok := op[name]; ok {
			continue
		}
		p := ptr + "/properties/" + escape(name)
		required := slices.Contains(nreq, name)
		c.report(p, required && c.input(), "field %q added%s", name, map[bool]string{true: " as required", false: ""}[required])
	}
	c.additional(o["additionalProperties"], n["additionalProperties"], ptr)
}

// removedField reports a property that disappeared.
func (c *cmpCtx) removedField(name, ptr string, wasRequired, closed bool) {
	if c.input() {
		c.report(ptr, closed, "field %q removed: arguments that set it are now rejected", name)
		return
	}
	c.report(ptr, wasRequired, "field %q removed from the result", name)
}

// requiredChange reports a property whose required status changed.
func (c *cmpCtx) requiredChange(name, ptr string, was, is bool) {
	switch {
	case !was && is:
		c.report(ptr, c.input(), "field %q is now required", name)
	case was && !is && c.input():
		c.report(ptr, false, "field %q is now optional", name)
	case was && !is:
		c.report(ptr, true, "field %q may now be absent from the result", name)
	}
}

// additional compares additionalProperties.
func (c *cmpCtx) additional(o, n any, ptr string) {
	om, nm := asMap(o), asMap(n)
	switch {
	case om != nil && nm != nil:
		c.node(om, nm, ptr+"/additionalProperties")
	case om != nil && n == false:
		c.report(ptr, c.input(), "no longer accepts arbitrary keys")
	case o == false && nm != nil:
		c.report(ptr, !c.input(), "now accepts arbitrary keys")
	}
}

// asMap returns v as a JSON object, or nil.
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// asStrings returns the strings of a JSON array.
func asStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escape escapes a JSON pointer reference token (RFC 6901).
func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
