// Package uritemplate parses, expands and matches the RFC 6570 URI templates
// mcpgen accepts for resource templates: every operator (simple, + # . / ; ?
// &), the prefix modifier {v:n} and the explode modifier on path segments
// {/v*}, restricted to the forms a concrete URI can be matched against
// unambiguously.
//
// The generator checks every template with github.com/yosida95/uritemplate/v3
// as well (syntax, variable names, expansion); the runtime uses this package
// alone, for resources/read routing: that library encodes non-ASCII values as
// code points rather than UTF-8 and cannot match, and the runtime keeps its
// dependencies to the standard library.
//
// Matching rules (see DESIGN.md):
//   - Simple {v} and reserved {+v} variables are required and non-empty; the
//     other operators' variables are optional (absent when the URI leaves the
//     expression out).
//   - A value is as long as it can be (greedy, left to right), shorter only
//     when the rest of the URI does not match otherwise; the whole template
//     is one regular expression, so matching takes linear time.
//   - A value must be written exactly as Expand writes it: percent escapes
//     upper-case, only for bytes the operator does not allow, valid UTF-8. So
//     a match always re-expands to the very same URI; "%2e%2e" is not "..".
package uritemplate

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrSyntax reports a template that is not an RFC 6570 template or not one
// mcpgen can match unambiguously.
var ErrSyntax = errors.New("invalid URI template")

// MaxMatchLen is the longest URI Match considers; longer URIs match no
// template.
const MaxMatchLen = 16 << 10

// An Error is a refused template: where, why, and a form that works.
type Error struct {
	Template string
	Off      int    // byte offset in Template of the offending expression
	Msg      string // why
	Hint     string // a form that works, or ""
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Unwrap makes every Error an ErrSyntax.
func (e *Error) Unwrap() error { return ErrSyntax }

// A Var is one variable of an expression.
type Var struct {
	Name    string
	Prefix  int  // {v:n}: at most n characters; 0 for none
	Explode bool // {/v*}: a list of path segments
}

// An Expr is one {expression}.
type Expr struct {
	Op   byte // 0 (simple), '+', '#', '.', '/', ';', '?' or '&'
	Vars []Var
	Off  int // byte offset of '{' in the template
}

// A Template is a parsed template. Lits has one more element than Exprs: the
// text is Lits[0] Exprs[0] Lits[1] ... Exprs[n-1] Lits[n].
type Template struct {
	Raw   string
	Lits  []string
	Exprs []Expr
	Vars  []string // every variable name, in order
	re    *regexp.Regexp
}

// Values are the variables of a matched URI, percent-decoded. A variable
// that the URI leaves out is in neither map.
type Values struct {
	// Vars holds every defined variable; an exploded list {/v*} is its
	// segments joined with "/".
	Vars map[string]string
	// Lists holds the segments of each defined exploded variable.
	Lists map[string][]string
}

// opInfo describes an operator (RFC 6570 section 3.2, appendix A).
type opInfo struct {
	first, sep string
	named      bool
	ifemp      string
	reserved   bool // allows reserved characters (+ and #)
}

func info(op byte) opInfo {
	switch op {
	case '+':
		return opInfo{sep: ",", reserved: true}
	case '#':
		return opInfo{first: "#", sep: ",", reserved: true}
	case '.':
		return opInfo{first: ".", sep: "."}
	case '/':
		return opInfo{first: "/", sep: "/"}
	case ';':
		return opInfo{first: ";", sep: ";", named: true}
	case '?':
		return opInfo{first: "?", sep: "&", named: true, ifemp: "="}
	case '&':
		return opInfo{first: "&", sep: "&", named: true, ifemp: "="}
	}
	return opInfo{sep: ","}
}

// Required reports whether e's variable is always present in a matching URI:
// simple {v} and reserved {+v} expressions.
func (e *Expr) Required() bool { return e.Op == 0 || e.Op == '+' }

// Spans reports whether e's value may contain "/": {+v}, {#v} and {/v*}.
func (e *Expr) Spans() bool {
	return e.Op == '+' || e.Op == '#' || len(e.Vars) == 1 && e.Vars[0].Explode
}

// String writes e back in template syntax.
func (e *Expr) String() string {
	var b strings.Builder
	b.WriteByte('{')
	if e.Op != 0 {
		b.WriteByte(e.Op)
	}
	for i, v := range e.Vars {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v.Name)
		if v.Prefix > 0 {
			b.WriteString(":" + strconv.Itoa(v.Prefix))
		}
		if v.Explode {
			b.WriteByte('*')
		}
	}
	b.WriteByte('}')
	return b.String()
}

// Lookup returns the expression holding variable name and the variable.
func (t *Template) Lookup(name string) (*Expr, *Var) {
	for i := range t.Exprs {
		for j := range t.Exprs[i].Vars {
			if t.Exprs[i].Vars[j].Name == name {
				return &t.Exprs[i], &t.Exprs[i].Vars[j]
			}
		}
	}
	return nil, nil
}

// Specificity ranks templates for routing: more literal characters first,
// then fewer expressions whose values span slashes (+ # and {/v*}).
func (t *Template) Specificity() (literal, spanning int) {
	for _, l := range t.Lits {
		literal += len(l)
	}
	for i := range t.Exprs {
		if t.Exprs[i].Spans() {
			spanning++
		}
	}
	return literal, spanning
}

// Parse parses a template and refuses, with an *Error saying why and what to
// write instead, the forms that cannot be matched unambiguously: adjacent
// expressions whose boundary a URI cannot show, lists of variables in one
// unnamed expression, explode of anything but path segments, a variable used
// twice, and two expressions whose values may both contain "/".
func Parse(s string) (*Template, error) {
	t := &Template{Raw: s}
	if !utf8.ValidString(s) {
		return nil, &Error{s, 0, "template is not valid UTF-8", ""}
	}
	var lit strings.Builder
	for i := 0; i < len(s); {
		switch s[i] {
		case '}':
			return nil, &Error{s, i, "unmatched }", "write %7D for a literal brace"}
		case '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, &Error{s, i, "unclosed {", ""}
			}
			if j := strings.IndexByte(s[i+1:i+end], '{'); j >= 0 {
				return nil, &Error{s, i, "unclosed {", ""}
			}
			e, err := parseExpr(s, i, s[i+1:i+end])
			if err != nil {
				return nil, err
			}
			t.Lits = append(t.Lits, lit.String())
			lit.Reset()
			t.Exprs = append(t.Exprs, e)
			i += end + 1
		default:
			lit.WriteByte(s[i])
			i++
		}
	}
	t.Lits = append(t.Lits, lit.String())
	for _, e := range t.Exprs {
		t.Vars = append(t.Vars, varNames(&e)...)
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	t.compile()
	return t, nil
}

// parseExpr parses the inside of one expression starting at off.
func parseExpr(tpl string, off int, body string) (Expr, error) {
	e := Expr{Off: off}
	whole := "{" + body + "}"
	if body == "" {
		return e, &Error{tpl, off, "empty expression {}", ""}
	}
	switch c := body[0]; c {
	case '+', '#', '.', '/', ';', '?', '&':
		e.Op, body = c, body[1:]
	case '=', ',', '!', '@', '|':
		return e, &Error{tpl, off, fmt.Sprintf("operator %q in {%s} is reserved by RFC 6570", c, body), ""}
	}
	for spec := range strings.SplitSeq(body, ",") {
		v := Var{Name: spec}
		if name, ok := strings.CutSuffix(spec, "*"); ok {
			v.Name, v.Explode = name, true
		} else if name, n, ok := strings.Cut(spec, ":"); ok {
			p, err := strconv.Atoi(n)
			if err != nil || p < 1 || p > 9999 || n[0] == '0' || n[0] == '+' {
				return e, &Error{tpl, off, fmt.Sprintf("prefix %q in {%s} is not a length from 1 to 9999", n, body), ""}
			}
			v.Name, v.Prefix = name, p
		}
		if err := checkVarName(v.Name); err != nil {
			return e, &Error{tpl, off, fmt.Sprintf("%v in %s", err, whole), ""}
		}
		e.Vars = append(e.Vars, v)
	}
	return e, nil
}

// checkVarName accepts an RFC 6570 varname made of ALPHA, DIGIT, "_" and
// "." (not first, last or doubled); percent-encoded names are not accepted.
func checkVarName(name string) error {
	if name == "" {
		return errors.New("empty variable name")
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case c == '.' && i > 0 && name[i-1] != '.' && i < len(name)-1:
		default:
			return fmt.Errorf("invalid character %q in variable name %q", c, name)
		}
	}
	return nil
}

// check refuses the forms Match could not tell apart.
func (t *Template) check() error {
	seen := map[string]bool{}
	spanning := -1
	for i := range t.Exprs {
		e := &t.Exprs[i]
		oi := info(e.Op)
		op := ""
		if e.Op != 0 {
			op = string(e.Op)
		}
		if len(e.Vars) > 1 && !oi.named {
			a, b := e.Vars[0].Name, e.Vars[1].Name
			hint := fmt.Sprintf("give each variable its own expression with a literal between them, e.g. {%s%s}/{%s%s}", op, a, op, b)
			if e.Op == '/' {
				hint = fmt.Sprintf("write {/%s}{/%s}", a, b)
			}
			return &Error{t.Raw, e.Off, fmt.Sprintf("variable list %s cannot be matched: when one variable is left out, "+
				"the others' values shift", e.String()), hint}
		}
		for _, v := range e.Vars {
			if seen[v.Name] {
				return &Error{t.Raw, e.Off, fmt.Sprintf("variable %s appears twice: a URI could give it two different values", v.Name),
					"use another name for the second one"}
			}
			seen[v.Name] = true
			if v.Explode && e.Op != '/' {
				return &Error{t.Raw, e.Off, fmt.Sprintf("explode %s of a non-path variable cannot be matched: its items "+
					"are not told apart from the separators around it", e.String()),
					fmt.Sprintf("write {/%s*} for a list of path segments, or {%s%s} for one value", v.Name, op, v.Name)}
			}
			if v.Explode && v.Prefix > 0 {
				return &Error{t.Raw, e.Off, fmt.Sprintf("%s has both a prefix and explode", e.String()), ""}
			}
		}
		if e.Spans() {
			if spanning >= 0 {
				p := &t.Exprs[spanning]
				return &Error{t.Raw, e.Off, fmt.Sprintf("%s and %s may both contain \"/\": a URI splits between them in more "+
					"than one way", p.String(), e.String()),
					fmt.Sprintf("keep one expression that spans slashes, e.g. {%s} for the other", e.Vars[0].Name)}
			}
			spanning = i
		}
		if err := t.checkAdjacent(i); err != nil {
			return err
		}
	}
	return nil
}

// checkAdjacent refuses expression i when nothing marks where the value of an
// expression right before it ends: the literal between is empty, and i
// starts with no character or with one the earlier expression's value may
// contain. Optional expressions in between are looked through.
func (t *Template) checkAdjacent(i int) error {
	e := &t.Exprs[i]
	for j := i - 1; j >= 0 && t.Lits[j+1] == ""; j-- {
		p := &t.Exprs[j]
		first := info(e.Op).first
		if first == "" || strings.ContainsRune(p.inner(), rune(first[0])) {
			return &Error{t.Raw, e.Off, fmt.Sprintf("expressions %s and %s are adjacent: a URI does not show where the "+
				"value of %s ends", p.String(), e.String(), p.String()), adjacentHint(p, e)}
		}
		if p.Required() {
			break
		}
	}
	return nil
}

// adjacentHint suggests a form for expression p followed directly by e.
func adjacentHint(p, e *Expr) string {
	pn, en := p.Vars[0].Name, e.Vars[0].Name
	switch {
	case info(p.Op).named && info(e.Op).named:
		return fmt.Sprintf("join them in one expression, e.g. {%c%s}", p.Op, strings.Join(append(varNames(p), varNames(e)...), ","))
	case p.Op == '+' && info(e.Op).first != "":
		return fmt.Sprintf("use path segments, whose values hold no %q, e.g. {/%s*}%s", info(e.Op).first, pn, e.String())
	case p.Spans():
		return fmt.Sprintf("put %s first, e.g. %s%s", e.String(), e.String(), p.String())
	case p.Op == 0 && e.Op == 0:
		return fmt.Sprintf("put a literal between them, e.g. {%s}-{%s}, or use {%s}{/%s}", pn, en, pn, en)
	}
	lit := info(e.Op).first
	if lit == "" {
		lit = "-"
	}
	return fmt.Sprintf("put a literal between them, e.g. %s%s{%s}", p.String(), lit, en)
}

func varNames(e *Expr) []string {
	out := make([]string, len(e.Vars))
	for i, v := range e.Vars {
		out[i] = v.Name
	}
	return out
}

const (
	unreservedChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	reservedChars   = ":/?#[]@!$&'()*+,;="
)

// inner is every character e's expansion may hold after its first one.
func (e *Expr) inner() string {
	oi := info(e.Op)
	s := unreservedChars + "%"
	if oi.reserved {
		s += reservedChars
	}
	if len(e.Vars) > 1 || e.Vars[0].Explode {
		s += oi.sep
	}
	if oi.named {
		s += "="
	}
	return s
}

// Expand returns the URI t names for the given values: vars for single
// values, lists for exploded {/v*} variables. A variable in neither map is
// undefined and left out, as RFC 6570 says. Unlike RFC 6570's reserved
// expansion, "%" in a value is always encoded, so that Match(Expand(v))
// gives v back.
func (t *Template) Expand(vars map[string]string, lists map[string][]string) string {
	var b strings.Builder
	b.WriteString(t.Lits[0])
	for i := range t.Exprs {
		t.Exprs[i].expand(&b, vars, lists)
		b.WriteString(t.Lits[i+1])
	}
	return b.String()
}

// expand appends e's expansion.
func (e *Expr) expand(b *strings.Builder, vars map[string]string, lists map[string][]string) {
	oi := info(e.Op)
	first := true
	for _, v := range e.Vars {
		var items []string
		if v.Explode {
			l, ok := lists[v.Name]
			if !ok || len(l) == 0 {
				continue
			}
			items = l
		} else {
			s, ok := vars[v.Name]
			if !ok {
				continue
			}
			if v.Prefix > 0 {
				s = prefix(s, v.Prefix)
			}
			items = []string{s}
		}
		if first {
			b.WriteString(oi.first)
			first = false
		} else {
			b.WriteString(oi.sep)
		}
		for k, s := range items {
			if k > 0 {
				b.WriteString(oi.sep)
			}
			if oi.named {
				b.WriteString(v.Name)
				if s == "" {
					b.WriteString(oi.ifemp)
					continue
				}
				b.WriteByte('=')
			}
			encode(b, s, oi.reserved)
		}
	}
}

// prefix returns the first n characters of s.
func prefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// allowed reports whether c is written as is in a value.
func allowed(c byte, reserved bool) bool {
	return strings.IndexByte(unreservedChars, c) >= 0 || reserved && strings.IndexByte(reservedChars, c) >= 0
}

// encode appends s, percent-encoding (as UTF-8) every byte not allowed.
func encode(b *strings.Builder, s string, reserved bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if allowed(c, reserved) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

// Match reports whether uri is an expansion of t and returns its variables
// (see the package comment for the rules). The template is matched as one
// regular expression (linear time, Go's regexp): each expression is a group
// of the characters its expansion may hold, greedy, earlier groups first;
// each group's text must then read as the expression's expansion.
func (t *Template) Match(uri string) (Values, bool) {
	if len(uri) > MaxMatchLen || !strings.HasPrefix(uri, t.Lits[0]) {
		return Values{}, false
	}
	if t.re == nil {
		return Values{}, false
	}
	idx := t.re.FindStringSubmatchIndex(uri)
	if idx == nil {
		return Values{}, false
	}
	vals := Values{Vars: map[string]string{}, Lists: map[string][]string{}}
	for i := range t.Exprs {
		if !t.Exprs[i].parse(uri[idx[2*i+2]:idx[2*i+3]], vals) {
			return Values{}, false
		}
	}
	return vals, true
}

// hexClass writes the characters of set as \xHH for a bracket expression.
func hexClass(set string) string {
	var b strings.Builder
	for i := 0; i < len(set); i++ {
		fmt.Fprintf(&b, `\x%02x`, set[i])
	}
	return b.String()
}

// compile builds the regular expression Match uses.
func (t *Template) compile() {
	var b strings.Builder
	b.WriteString(`\A`)
	b.WriteString(regexp.QuoteMeta(t.Lits[0]))
	for i := range t.Exprs {
		e := &t.Exprs[i]
		oi := info(e.Op)
		class := `(?:[` + hexClass(strings.ReplaceAll(e.inner(), "%", "")) + `]|%[0-9A-F]{2})`
		switch {
		case e.Required():
			b.WriteString(`(` + class + `+)`)
		case len(e.Vars) == 1 && e.Vars[0].Explode:
			b.WriteString(`((?:` + regexp.QuoteMeta(oi.first) + class + `*)*)`)
		default:
			b.WriteString(`((?:` + regexp.QuoteMeta(oi.first) + class + `*)?)`)
		}
		b.WriteString(regexp.QuoteMeta(t.Lits[i+1]))
	}
	b.WriteString(`\z`)
	t.re = regexp.MustCompile(b.String())
}

// parse reads s as the whole expansion of e into vals, accepting only the
// text Expand would write for the values read.
func (e *Expr) parse(s string, vals Values) bool {
	if s == "" {
		return !e.Required()
	}
	oi := info(e.Op)
	body, ok := strings.CutPrefix(s, oi.first)
	if !ok {
		return false
	}
	got := Values{Vars: map[string]string{}}
	switch {
	case oi.named:
		k := 0
		for part := range strings.SplitSeq(body, oi.sep) {
			name, val, _ := strings.Cut(part, "=")
			for k < len(e.Vars) && e.Vars[k].Name != name {
				k++
			}
			if k == len(e.Vars) {
				return false
			}
			d, ok := decode(val)
			if !ok {
				return false
			}
			got.Vars[e.Vars[k].Name] = d
			k++
		}
	case e.Vars[0].Explode:
		items := strings.Split(body, oi.sep)
		for k, it := range items {
			d, ok := decode(it)
			if !ok {
				return false
			}
			items[k] = d
		}
		got.Lists = map[string][]string{e.Vars[0].Name: items}
		got.Vars[e.Vars[0].Name] = strings.Join(items, "/")
	default:
		d, ok := decode(body)
		if !ok {
			return false
		}
		got.Vars[e.Vars[0].Name] = d
	}
	var b strings.Builder
	e.expand(&b, got.Vars, got.Lists)
	if b.String() != s {
		return false
	}
	for k, v := range got.Vars {
		vals.Vars[k] = v
	}
	for k, v := range got.Lists {
		vals.Lists[k] = v
	}
	return true
}

// decode percent-decodes s; it fails on a bad escape or invalid UTF-8.
func decode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		h, l := unhex(s[i+1]), unhex(s[i+2])
		if h < 0 || l < 0 {
			return "", false
		}
		b.WriteByte(byte(h<<4 | l))
		i += 2
	}
	d := b.String()
	return d, utf8.ValidString(d)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c - 'A' + 10)
	case c >= 'a' && c <= 'f':
		return int(c - 'a' + 10)
	}
	return -1
}
