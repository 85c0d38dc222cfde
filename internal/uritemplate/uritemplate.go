// Package uritemplate parses and matches RFC 6570 level-1 URI templates, the
// form mcpgen accepts for resource templates: literal text with simple string
// expansions such as notes://{folder}/{name}. Both the generator (to check a
// //mcp:resource directive) and the runtime (to route resources/read) use it.
package uritemplate

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrSyntax reports a template that is not an RFC 6570 level-1 template.
var ErrSyntax = errors.New("invalid URI template")

// A Template is a parsed level-1 URI template. Lits has one more element than
// Vars: the text is Lits[0] Vars[0] Lits[1] ... Vars[n-1] Lits[n].
type Template struct {
	Raw  string
	Lits []string
	Vars []string
}

// Parse parses a level-1 template. Operators (+ # . / ; ? &), prefix and
// explode modifiers, variable lists, duplicate names, adjacent expressions
// (which cannot be matched unambiguously) and stray braces are errors
// wrapping ErrSyntax.
func Parse(s string) (*Template, error) {
	t := &Template{Raw: s}
	rest := s
	var lit strings.Builder
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			lit.WriteString(rest)
			break
		}
		if rest[open] == '}' {
			return nil, fmt.Errorf("%w: unmatched } in %q", ErrSyntax, s)
		}
		lit.WriteString(rest[:open])
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%w: unclosed { in %q", ErrSyntax, s)
		}
		name := rest[open+1 : open+end]
		if err := t.addVar(name, lit.String()); err != nil {
			return nil, fmt.Errorf("%w: %v in %q", ErrSyntax, err, s)
		}
		lit.Reset()
		rest = rest[open+end+1:]
	}
	t.Lits = append(t.Lits, lit.String())
	return t, nil
}

// addVar records the literal before a variable and the variable's name.
func (t *Template) addVar(name, before string) error {
	if err := checkVarName(name); err != nil {
		return err
	}
	if len(t.Vars) > 0 && before == "" {
		return fmt.Errorf("variables {%s} and {%s} are adjacent", t.Vars[len(t.Vars)-1], name)
	}
	for _, v := range t.Vars {
		if v == name {
			return fmt.Errorf("variable {%s} appears twice", name)
		}
	}
	t.Lits = append(t.Lits, before)
	t.Vars = append(t.Vars, name)
	return nil
}

// checkVarName accepts an RFC 6570 varname made of ALPHA, DIGIT, "_" and
// "." (not first or doubled); percent-encoded names are not accepted.
func checkVarName(name string) error {
	if name == "" {
		return errors.New("empty expression {}")
	}
	if strings.ContainsAny(name[:1], "+#./;?&=,!@|") {
		return fmt.Errorf("operator %q in {%s} is not level 1", name[0], name)
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case c == '.' && i > 0 && name[i-1] != '.' && i < len(name)-1:
		case c == ':' || c == '*':
			return fmt.Errorf("modifier %q in {%s} is not level 1", c, name)
		case c == ',':
			return fmt.Errorf("variable list {%s} is not level 1", name)
		default:
			return fmt.Errorf("invalid character %q in variable {%s}", c, name)
		}
	}
	return nil
}

// Match reports whether uri is an expansion of t and returns the decoded
// variable values. A level-1 expansion percent-encodes everything but
// unreserved characters, so a value is a non-empty run of unreserved
// characters and %XX escapes; it ends at the first occurrence of the next
// literal.
func (t *Template) Match(uri string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(uri, t.Lits[0])
	if !ok {
		return nil, false
	}
	vals := make(map[string]string, len(t.Vars))
	for i, name := range t.Vars {
		next := t.Lits[i+1]
		n := valueLen(rest)
		if next == "" {
			if n != len(rest) {
				return nil, false
			}
		} else {
			j := strings.Index(rest, next)
			if j < 0 || j > n {
				return nil, false
			}
			n = j
		}
		v, err := url.PathUnescape(rest[:n])
		if n == 0 || err != nil {
			return nil, false
		}
		vals[name] = v
		rest = rest[n+len(next):]
	}
	if rest != "" {
		return nil, false
	}
	return vals, true
}

// valueLen returns the length of the longest prefix of s made of unreserved
// characters and percent escapes.
func valueLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-._~%", c) >= 0:
		default:
			return i
		}
	}
	return len(s)
}

// Expand returns the URI t names for vals, percent-encoding every value
// (missing values expand to the empty string, as RFC 6570 says).
func (t *Template) Expand(vals map[string]string) string {
	var b strings.Builder
	b.WriteString(t.Lits[0])
	for i, name := range t.Vars {
		b.WriteString(encode(vals[name]))
		b.WriteString(t.Lits[i+1])
	}
	return b.String()
}

// encode percent-encodes every byte of s that is not unreserved.
func encode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
