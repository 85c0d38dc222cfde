package gen

import (
	"errors"
	"fmt"
	"go/token"
	"strings"

	lib "github.com/yosida95/uritemplate/v3"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/internal/uritemplate"
)

// parseTemplate checks a //mcp:resource URI at pos. It is parsed twice: by
// github.com/yosida95/uritemplate/v3 (the RFC 6570 library the official Go
// SDK uses), which must accept it, and by internal/uritemplate, the runtime's
// matcher, which refuses the forms it cannot match unambiguously with a
// diagnostic at the offending expression saying why and what to write. Both
// must then agree on the variables and on an expansion of sample values,
// and the matcher must read the sample values back from that expansion.
func (a *analyzer) parseTemplate(uri string, pos token.Pos, label string) (*uritemplate.Template, bool) {
	tpl, err := uritemplate.Parse(uri)
	if err != nil {
		var e *uritemplate.Error
		if errors.As(err, &e) {
			a.errorf(pos+token.Pos(e.Off), "%s: bad URI template: %v", label, e)
		} else {
			a.errorf(pos, "%s: bad URI template: %v", label, err)
		}
		return nil, false
	}
	lt, err := lib.New(uri)
	if err != nil {
		off, msg := libError(uri, err)
		a.errorf(pos+token.Pos(off), "%s: bad URI template: %s (RFC 6570 library)", label, msg)
		return nil, false
	}
	if msg := crossCheck(tpl, lt); msg != "" {
		a.errorf(pos, "%s: URI template %s: %s", label, uri, msg)
		return nil, false
	}
	return tpl, true
}

// crossCheck compares the library's reading of a template with the
// matcher's: the same variables, the same expansion of ASCII sample values
// (where the library follows RFC 6570), and a match of that expansion that
// gives the values back. It returns "" when they agree.
func crossCheck(tpl *uritemplate.Template, lt *lib.Template) string {
	if got, want := strings.Join(tpl.Vars, ","), strings.Join(lt.Varnames(), ","); got != want {
		return fmt.Sprintf("variables {%s}, but the RFC 6570 library reads {%s}", got, want)
	}
	vars, lists, lv := map[string]string{}, map[string][]string{}, lib.Values{}
	for i, name := range tpl.Vars {
		e, v := tpl.Lookup(name)
		val := fmt.Sprintf("v%d", i)
		if e.Op == '+' || e.Op == '#' {
			val += "/x"
		}
		if v.Explode {
			lists[name] = []string{val, "s"}
			lv.Set(name, lib.List(val, "s"))
			continue
		}
		if v.Prefix > 0 && v.Prefix < len(val) {
			val = val[:v.Prefix]
		}
		vars[name] = val
		lv.Set(name, lib.String(val))
	}
	want, err := lt.Expand(lv)
	if err != nil {
		return fmt.Sprintf("the RFC 6570 library cannot expand it: %v", err)
	}
	if got := tpl.Expand(vars, lists); got != want {
		return fmt.Sprintf("mcpgen expands it to %s, the RFC 6570 library to %s", got, want)
	}
	m, ok := tpl.Match(want)
	if !ok || tpl.Expand(m.Vars, m.Lists) != want || len(m.Vars) != len(tpl.Vars) {
		return fmt.Sprintf("mcpgen cannot read its own expansion %s back", want)
	}
	for k, v := range vars {
		if m.Vars[k] != v {
			return fmt.Sprintf("the expansion %s reads back with %s=%q, not %q; put literals between the variables", want, k, m.Vars[k], v)
		}
	}
	return ""
}

// libError takes the offset and message out of the library's parse error,
// "MESSAGE: TEXT-READ-SO-FAR" followed by one marker character.
func libError(uri string, err error) (int, string) {
	text := err.Error()
	i := strings.LastIndex(text, ": ")
	if i < 0 {
		return 0, text
	}
	msg, read := text[:i], text[i+2:]
	if read == "" || !strings.HasPrefix(uri, read[:len(read)-1]) {
		return 0, err.Error()
	}
	off := len(read) - 1
	if off < len(uri) {
		msg += fmt.Sprintf(" at %q", uri[off:off+1])
	}
	return off, msg
}

// templateWarnings warns about a resource template that matches exactly the
// URIs of one registered before it (the same template up to variable names,
// by the RFC 6570 library's Equals) when the earlier one restricts none of
// its variables to enum values: routing then never reaches the later one.
func templateWarnings(prog *model.Program) []Diagnostic {
	type seen struct {
		r  *model.Resource
		lt *lib.Template
	}
	var earlier []seen
	var out []Diagnostic
	for _, p := range prog.Packages {
		for _, r := range p.Resources {
			if !r.Template {
				continue
			}
			lt, err := lib.New(r.URI)
			if err != nil {
				continue
			}
			for _, e := range earlier {
				if lib.Equals(e.lt, lt, 0) && !hasValues(e.r) {
					out = append(out, Diagnostic{Pos: r.Pos, Msg: fmt.Sprintf("warning: mcp:resource %s: template %s "+
						"matches exactly the URIs of %s (%s), which is registered first: resources/read never reaches %s; "+
						"add a literal to one of them or restrict a variable of %s to an enum type",
						r.Func, r.URI, e.r.URI, shortPos(e.r.Pos), r.Func, e.r.Func)})
					break
				}
			}
			earlier = append(earlier, seen{r, lt})
		}
	}
	return out
}

// hasValues reports whether a variable of r only accepts enum values.
func hasValues(r *model.Resource) bool {
	for _, p := range r.Params {
		if p.Values != nil {
			return true
		}
	}
	return false
}
