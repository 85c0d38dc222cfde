// Package scope compiles and matches the OAuth scopes a tool, resource or
// prompt requires: the default hierarchy (a scope implies those extending it
// after a ':'), scope templates naming top-level string arguments
// ("incident:create:{severity}", "{field|lower}"), the scopes one call needs,
// every scope a template can require (enum fields expanded), whether a caller's
// grants allow a call or may use a tool at all (for listing), and the refusal
// naming the missing scopes. It knows nothing of principals, servers or calls:
// the runtime describes its caller as a Caller.
package scope

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Implies is the default scope hierarchy: granted implies required when they
// are equal or required extends granted after a ':' ("incident:create"
// implies "incident:create:p1", not "incident:created").
func Implies(granted, required string) bool {
	return granted == required ||
		len(required) > len(granted) && required[len(granted)] == ':' && strings.HasPrefix(required, granted)
}

// HoldsAll reports whether granted holds every required scope under implies.
func HoldsAll(granted, required []string, implies func(granted, required string) bool) bool {
	for _, r := range required {
		if !holds(granted, r, implies) {
			return false
		}
	}
	return true
}

// holds reports whether some granted scope implies required.
func holds(granted []string, required string, implies func(granted, required string) bool) bool {
	for _, g := range granted {
		if implies(g, required) {
			return true
		}
	}
	return false
}

// Listable reports whether a caller granted scopes may use a tool with
// templates ts (alts from Expand): for each template some value of its fields
// is granted (enum values from the schema; a free string field: a granted
// scope extending the literal prefix).
func Listable(granted []string, ts []Template, alts map[string][]string, implies func(granted, required string) bool) bool {
	for _, t := range ts {
		ok := false
		for _, cand := range alts[t.raw] {
			if holds(granted, cand, implies) {
				ok = true
				break
			}
		}
		if !ok && t.fields > 0 && len(alts[t.raw]) == 0 {
			prefix := t.parts[0]
			ok = slices.ContainsFunc(granted, func(g string) bool {
				return strings.HasPrefix(g, prefix) || Implies(g, strings.TrimSuffix(prefix, ":"))
			})
		}
		if !ok {
			return false
		}
	}
	return true
}

// A Template is one compiled Tool.Scopes entry: literals and field names.
type Template struct {
	raw    string
	parts  []string // literal, field, literal, field, ... (even: literal)
	lower  []bool   // per field: {field|lower}, the value in lower case
	fields int
}

// Compile checks a tool's scopes against its input schema: every {field}
// names a top-level string property that is required.
func Compile(scopes []string, inputSchema json.RawMessage) ([]Template, error) {
	if len(scopes) == 0 {
		return nil, nil
	}
	var sch struct {
		Properties map[string]struct {
			Enum []json.RawMessage `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(inputSchema, &sch)
	var out []Template
	for _, raw := range scopes {
		t := Template{raw: raw}
		rest := raw
		for {
			open := strings.IndexByte(rest, '{')
			if open < 0 {
				t.parts = append(t.parts, rest)
				break
			}
			end := strings.IndexByte(rest[open:], '}')
			if end < 0 {
				return nil, fmt.Errorf("scope %q: unclosed {", raw)
			}
			field, mod, hasMod := strings.Cut(rest[open+1:open+end], "|")
			if hasMod && mod != "lower" {
				return nil, fmt.Errorf("scope %q: unknown modifier |%s (only |lower)", raw, mod)
			}
			prop, ok := sch.Properties[field]
			if !ok || !slices.Contains(sch.Required, field) {
				return nil, fmt.Errorf("scope %q: {%s} is not a required top-level input field", raw, field)
			}
			for _, v := range prop.Enum {
				if str, ok := jsonwire.String(v); ok && !scopeValue([]byte(str)) {
					return nil, fmt.Errorf("scope %q: {%s} has the enum value %s, which cannot be part of a scope", raw, field, v)
				}
			}
			if hasMod && len(prop.Enum) == 0 {
				// Folding a free string's case would let "ACME" use the grant of "acme".
				return nil, fmt.Errorf("scope %q: {%s|lower} needs an enum field (a free string keeps its case)", raw, field)
			}
			t.parts = append(t.parts, rest[:open], field)
			t.lower = append(t.lower, hasMod)
			t.fields++
			rest = rest[open+end+1:]
		}
		if strings.ContainsAny(raw, " \t\"\\") || raw == "" {
			return nil, fmt.Errorf("scope %q is not a scope token", raw)
		}
		out = append(out, t)
	}
	return out, nil
}

// Required returns the scopes a call with args needs; an argument that
// cannot be part of a scope (not a string, or a space or quote in it) is an error.
// The {field} values are read from args in place (one scan, no decoding unless a
// value holds escapes), and every scope is built into one buffer: a call
// allocates the result slice and one string.
func Required(ts []Template, args json.RawMessage) ([]string, error) {
	var vbuf [4]fieldValue
	values := vbuf[:0] // the top-level string members the templates name
	scanned := false
	var bbuf [64]byte
	buf := bbuf[:0]
	var ends [4]int
	end := ends[:0] // where each scope ends in buf
	for _, t := range ts {
		if t.fields == 0 {
			buf = append(buf, t.raw...)
			end = append(end, len(buf))
			continue
		}
		if !scanned {
			scanned = true
			jsonwire.EachMember(args, func(key, val []byte) {
				name, ok := namedField(ts, key)
				if !ok {
					return
				}
				if v, ok := stringBytes(val); ok {
					values = append(values, fieldValue{name, v})
				}
			})
		}
		for i, p := range t.parts {
			if i%2 == 0 {
				buf = append(buf, p...)
				continue
			}
			v, ok := lookupField(values, p)
			if !ok || !scopeValue(v) {
				// The value is never echoed: it is the caller's, and may be anything.
				return nil, fmt.Errorf("argument %s cannot be part of scope %s: a scope value is printable ASCII without ':', '*', space, quote, backslash or brace", p, t.raw)
			}
			if t.lower[i/2] {
				for _, c := range v { // printable ASCII (scopeValue)
					if 'A' <= c && c <= 'Z' {
						c += 'a' - 'A'
					}
					buf = append(buf, c)
				}
			} else {
				buf = append(buf, v...)
			}
		}
		end = append(end, len(buf))
	}
	all := string(buf)
	out := make([]string, len(end))
	from := 0
	for i, e := range end {
		out[i] = all[from:e]
		from = e
	}
	return out, nil
}

// A fieldValue is a top-level string argument named in a scope template: the
// name is the template's, the value the argument's bytes (unescaped).
type fieldValue struct {
	name  string
	value []byte
}

// namedField returns the template field name equal to the member key, if any.
func namedField(ts []Template, key []byte) (string, bool) {
	for _, t := range ts {
		for i := 1; i < len(t.parts); i += 2 {
			if t.parts[i] == string(key) {
				return t.parts[i], true
			}
		}
	}
	return "", false
}

// stringBytes returns the value of the JSON string raw: its inner bytes in place
// when it holds no escapes, else the decoded string's bytes.
func stringBytes(raw []byte) ([]byte, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && !hasEscape(raw[1:len(raw)-1]) {
		return raw[1 : len(raw)-1], true
	}
	s, ok := jsonwire.String(raw)
	return []byte(s), ok
}

// hasEscape reports whether the inside of a JSON string holds a backslash or quote.
func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c == '"' {
			return true
		}
	}
	return false
}

// lookupField returns the value of the named argument.
func lookupField(values []fieldValue, name string) ([]byte, bool) {
	for _, v := range values {
		if v.name == name {
			return v.value, true
		}
	}
	return nil, false
}

// scopeValue reports whether an argument value can be part of a scope: not
// empty, printable ASCII without quotes, backslashes or braces, and without the
// scope syntax a value could inject: ':' (the default hierarchy's separator:
// repo="acme:read" in "repo:{repo}:write" would make "repo:acme:read" imply
// it) and '*' (a wildcard in many authorization servers' scope families).
func scopeValue(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		if !ValueByte(c) {
			return false
		}
	}
	return true
}

// ValueByte reports whether c may appear in a value substituted into a scope
// template (gen checks enum values with it): printable ASCII but for space,
// '"', '\\', '{', '}', ':' and '*'.
func ValueByte(c byte) bool {
	return c > 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '{' && c != '}' && c != ':' && c != '*'
}

// Expand lists, per template, every scope it can require when all its
// fields are enums in the input schema (nil for a template with a free string).
func Expand(ts []Template, inputSchema json.RawMessage) (map[string][]string, []string) {
	var sch struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(inputSchema, &sch)
	alts := map[string][]string{}
	var all []string
	for _, t := range ts {
		cur := []string{""}
		for i, p := range t.parts {
			if i%2 == 0 {
				for j := range cur {
					cur[j] += p
				}
				continue
			}
			vals := sch.Properties[p].Enum
			if len(vals) == 0 {
				cur = nil
				break
			}
			var next []string
			for _, c := range cur {
				for _, v := range vals {
					if t.lower[i/2] {
						v = strings.ToLower(v)
					}
					next = append(next, c+v)
				}
			}
			cur = next
		}
		alts[t.raw] = cur
		all = append(all, cur...)
	}
	return alts, all
}

// A Denial is a refusal for missing scopes: every scope the operation needs, and
// the WWW-Authenticate challenge when the transport answers the refusal (HTTP 403).
type Denial struct {
	Required  []string
	Challenge string
}

func (d *Denial) Error() string {
	return "insufficient scope: this request needs " + strings.Join(d.Required, " ")
}

// A Caller is what a scope decision knows of the caller: none (Known false), one
// holding every scope (All), or one granted Scopes.
type Caller struct {
	Known, All bool
	Scopes     []string
}

// Allows reports whether c holds every required scope; a missing caller holds none.
func (c Caller) Allows(required []string, implies func(granted, required string) bool) bool {
	switch {
	case c.All:
		return true
	case !c.Known:
		return len(required) == 0
	}
	return HoldsAll(c.Scopes, required, implies)
}

// MayList reports whether c may use a tool with templates ts (alts from Expand):
// see Listable; a tool without scopes is for everyone, a missing caller holds none.
func (c Caller) MayList(ts []Template, alts map[string][]string, implies func(granted, required string) bool) bool {
	switch {
	case len(ts) == 0 || c.All:
		return true
	case !c.Known:
		return false
	}
	return Listable(c.Scopes, ts, alts, implies)
}
