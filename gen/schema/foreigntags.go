package schema

import (
	"fmt"
	"go/token"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Dialect is a convention for the tags of struct fields. The zero Dialect
// is mcpgen's own: `jsonschema:"key=value,..."` as invopop/jsonschema reads
// it. The others are those of other Go MCP libraries, which mcpgen reads when
// asked (mcpgen -tags=NAME) so that a package written for them generates
// before its tags are rewritten (mcpgen -fix).
type Dialect string

// The dialects.
const (
	// DialectMCPGen is mcpgen's own convention. A field whose tags follow
	// another library's convention gets one diagnostic naming the fix.
	DialectMCPGen Dialect = ""
	// DialectGoSDK is the official Go SDK's (github.com/modelcontextprotocol/go-sdk,
	// through github.com/google/jsonschema-go): the whole jsonschema tag is
	// the property's description. A tag starting with WORD= (which the SDK
	// refuses, keeping it for keywords) is read in mcpgen's grammar.
	DialectGoSDK Dialect = "gosdk"
	// DialectMCPGo is mcp-go's (github.com/mark3labs/mcp-go), all releases:
	// jsonschema_description:"..." is the description; the jsonschema tag is
	// a comma-separated list whose enum=V entries are enum values and whose
	// other plain text is the description (v0.58.0 and later), and whose
	// key=value entries and the `required` flag mean what invopop/jsonschema
	// meant by them (v0.45.0 and earlier), which is mcpgen's grammar. The
	// json option ",required" (from mcp-go's old examples) means required.
	// Precedence of descriptions: description=, then jsonschema_description,
	// then the text.
	DialectMCPGo Dialect = "mcpgo"
)

// Dialects lists the dialects a user can name, for messages.
var Dialects = []Dialect{DialectGoSDK, DialectMCPGo}

// ParseDialect returns the dialect named s ("" is mcpgen's own).
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(s); d {
	case DialectMCPGen, DialectGoSDK, DialectMCPGo:
		return d, nil
	}
	return "", fmt.Errorf("unknown tag dialect %q (known: gosdk, mcpgo)", s)
}

// SetDialect makes b read struct tags in dialect d. With fix set, fields
// whose tags follow another library's convention are read as that library
// means them (as d says, or as the diagnostics of the zero Dialect guess)
// and recorded for Foreign instead of being reported.
func (b *Builder) SetDialect(d Dialect, fix bool) {
	b.tags = tagConfig{dialect: d, fix: fix, foreign: map[token.Pos]bool{}}
}

// tagConfig is how a Builder reads struct tags.
type tagConfig struct {
	dialect Dialect
	fix     bool
	foreign map[token.Pos]bool // fields read in another convention, with fix
}

// Foreign returns the positions of the fields whose tags were read in
// another library's convention, sorted, for FixTag.
func (b *Builder) Foreign() []token.Position {
	var out []token.Position
	for pos := range b.tags.foreign {
		out = append(out, b.fset.Position(pos))
	}
	slices.SortFunc(out, func(x, y token.Position) int {
		return compareDiag(Diagnostic{Pos: x}, Diagnostic{Pos: y})
	})
	return out
}

// mcpgenKeys are the keys of mcpgen's jsonschema tag grammar.
var mcpgenKeys = []string{"title", "description", "required", "default", "example", "enum",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems"}

// invopopOnly are invopop/jsonschema tag keys (mcp-go up to v0.45.0) that
// mcpgen has no equivalent key for, with what to do instead.
var invopopOnly = map[string]string{
	"-":              `mcpgen's schema follows encoding/json: leave the field out with json:"-"`,
	"nullable":       "drop it: a pointer field accepts null (make the field a pointer if it is not one)",
	"readOnly":       "mcpgen has no readOnly: drop it, or describe the field in its doc comment",
	"writeOnly":      "mcpgen has no writeOnly: drop it, or describe the field in its doc comment",
	"anchor":         "mcpgen has no anchor: drop it",
	"type":           "the type comes from the Go type: change the field's type, or give a named type a //mcp:schema",
	"oneof_required": "write the schema by hand with //mcp:schema on a named type",
	"anyof_required": "write the schema by hand with //mcp:schema on a named type",
	"oneof_ref":      "write the schema by hand with //mcp:schema on a named type",
	"anyof_ref":      "write the schema by hand with //mcp:schema on a named type",
	"oneof_type":     "write the schema by hand with //mcp:schema on a named type",
	"anyof_type":     "write the schema by hand with //mcp:schema on a named type",
}

// sdkReserved matches a tag the official Go SDK refuses: it starts with
// WORD= (google/jsonschema-go keeps that form for keywords).
var sdkReserved = regexp.MustCompile(`^[^ \t\n]*=`)

// keyWord matches the key of a key=value tag entry.
var keyWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// A tagRead is what a field's tags mean in some library's convention, in
// mcpgen's terms.
type tagRead struct {
	style   string   // the convention recognised, for messages ("" when the tags are mcpgen's own)
	desc    string   // the description the tags give
	hasDesc bool     // a description is given (it may be empty)
	keys    []string // mcpgen jsonschema entries (unescaped), in order
	// jsonRequired: the json tag has the option ",required", which
	// encoding/json ignores.
	jsonRequired bool
	// dropDescTag: jsonschema_description is consumed.
	dropDescTag bool
	problems    []string // what has no mcpgen equivalent, as sentences
	// kept are the entries with no mcpgen equivalent, which -fix leaves
	// in the tag for the next generation to report.
	kept []string
}

// foreign reports whether the tags need rewriting.
func (t *tagRead) foreign() bool { return t.style != "" }

// The styles, as what the tags do, for messages.
const (
	styleGoSDK   = "is a description in the official Go SDK's style (it reads the whole jsonschema tag as the description)"
	styleMCPGo   = "is a description with enum values in mcp-go's style (plain text in the jsonschema tag is the description)"
	styleDesc    = "is mcp-go's description tag, which mcpgen does not read"
	styleJSON    = `uses ",required", which is no encoding/json option (mcp-go's old examples had it): a field without omitempty is already required`
	styleMixed   = "mixes text with key=value entries (mcp-go's style); mcpgen reads only key=value entries"
	styleNoKeys  = "uses invopop/jsonschema keys that mcpgen does not have (mcp-go up to v0.45.0)"
	stylePointer = "is a pointer without omitempty, which the other libraries require"
	styleComma   = `has a comma in its description= that ends the value (invopop/jsonschema drops the rest); a comma inside a value is written \\,`
)

// tagParts is a jsonschema tag split as mcp-go and invopop/jsonschema split it.
type tagParts struct {
	keys     []string // mcpgen entries
	descKV   string   // the value of description=
	hasKV    bool
	texts    []string // plain text entries
	enums    int      // how many keys are enum=
	problems []string
	kept     []string // the entries of problems
	// comma: plain text followed description=, and was taken as the rest
	// of its value, cut at an unescaped comma.
	comma bool
}

func splitParts(raw string) tagParts {
	var p tagParts
	inDesc := false // the previous entry was description= or its rest
	for _, part := range splitTag(raw) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, hasEq := strings.Cut(part, "=")
		isKey := (hasEq && keyWord.MatchString(key)) || slices.Contains(mcpgenKeys, part) || invopopOnly[part] != ""
		if inDesc && !isKey {
			p.descKV += ", " + part
			p.comma = true
			continue
		}
		inDesc = hasEq && key == "description"
		switch {
		case hasEq && key == "description":
			p.descKV, p.hasKV = val, true
		case hasEq && keyWord.MatchString(key) && invopopOnly[key] != "":
			p.problems = append(p.problems, fmt.Sprintf("jsonschema tag: %q is invopop/jsonschema's, not mcpgen's: %s", key, invopopOnly[key]))
			p.kept = append(p.kept, part)
		case hasEq && keyWord.MatchString(key):
			p.keys = append(p.keys, part)
			if key == "enum" {
				p.enums++
			}
		case slices.Contains(mcpgenKeys, part):
			// required, uniqueItems, or a key without its value (which
			// applyTag reports).
			p.keys = append(p.keys, part)
		case invopopOnly[part] != "":
			p.problems = append(p.problems, fmt.Sprintf("jsonschema tag: %q is invopop/jsonschema's, not mcpgen's: %s", part, invopopOnly[part]))
			p.kept = append(p.kept, part)
		default:
			p.texts = append(p.texts, part)
		}
	}
	return p
}

// readTags reads a field's tags in dialect d. For the zero Dialect it
// guesses which library's convention foreign tags follow, for the
// diagnostic and for -fix.
func readTags(d Dialect, tag reflect.StructTag, pointer bool) tagRead {
	var t tagRead
	raw, hasJS := tag.Lookup("jsonschema")
	descTag, hasDescTag := tag.Lookup("jsonschema_description")
	_, jsonOpts, _ := strings.Cut(tag.Get("json"), ",")
	t.jsonRequired = hasOpt(jsonOpts, "required")
	if _, ok := tag.Lookup("jsonschema_extras"); ok {
		t.problems = append(t.problems, "jsonschema_extras is invopop/jsonschema's, not mcpgen's: give the field a named type with a //mcp:schema, or drop it")
	}
	p := splitParts(raw)
	sdkWhole := hasJS && raw != "" && !sdkReserved.MatchString(raw)
	plain := !hasDescTag && !t.jsonRequired // nothing but the jsonschema tag to read
	switch {
	case d == DialectGoSDK && sdkWhole:
		t.style, t.desc, t.hasDesc = styleGoSDK, raw, true
	case d == DialectMCPGen && plain && sdkWhole && len(p.texts) > 0 && len(p.keys) == 0 && !p.hasKV:
		// Only text, and a tag the SDK reads whole: the SDK's style.
		t.style, t.desc, t.hasDesc = styleGoSDK, raw, true
	case d == DialectGoSDK || (d == DialectMCPGen && plain && len(p.texts) == 0):
		// mcpgen's own grammar, perhaps with invopop/jsonschema's keys.
		t.problems, t.kept = append(t.problems, p.problems...), p.kept
		t.keys = p.keys
		if p.hasKV {
			t.desc, t.hasDesc = p.descKV, true
		}
		switch {
		case p.comma:
			t.style = styleComma
		case len(p.problems) > 0:
			t.style = styleNoKeys
		}
	default:
		// mcp-go, any era.
		t.problems, t.kept = append(t.problems, p.problems...), p.kept
		t.keys = p.keys
		switch {
		case p.hasKV:
			t.desc, t.hasDesc = p.descKV, true
			t.dropDescTag = hasDescTag
		case hasDescTag:
			t.desc, t.hasDesc = strings.TrimSpace(descTag), true
			t.dropDescTag = true
		case len(p.texts) > 0:
			t.desc, t.hasDesc = strings.Join(p.texts, ", "), true
		}
		switch {
		case p.comma:
			t.style = styleComma
		case hasDescTag:
			t.style = styleDesc
		case len(p.texts) > 0 && len(p.keys) == p.enums:
			t.style = styleMCPGo
		case len(p.texts) > 0:
			t.style = styleMixed
		case t.jsonRequired:
			t.style = styleJSON
		case len(p.problems) > 0:
			t.style = styleNoKeys
		}
	}
	if d == DialectGoSDK && hasDescTag {
		t.problems = append(t.problems, "jsonschema_description is mcp-go's description tag, which the official Go SDK does not read: write the text as the field's doc comment, or generate with -tags=mcpgo")
	}
	if d != DialectMCPGen && pointer && !hasOpt(jsonOpts, "omitempty") && !hasOpt(jsonOpts, "omitzero") &&
		!slices.ContainsFunc(t.keys, func(k string) bool { return strings.HasPrefix(k, "required") }) {
		// The other libraries require every field without omitempty or
		// omitzero, pointers too (null is then a value); mcpgen makes a
		// pointer optional unless it says required.
		t.keys = append(t.keys, "required")
		if t.style == "" {
			t.style = stylePointer
		}
	}
	if t.jsonRequired {
		// A field with omitempty was meant to be required anyway.
		if (hasOpt(jsonOpts, "omitempty") || hasOpt(jsonOpts, "omitzero")) && !slices.Contains(t.keys, "required") {
			t.keys = append(t.keys, "required")
		}
		if t.style == "" {
			t.style = styleJSON
		}
	}
	return t
}

// jsonschemaValue is the jsonschema tag in mcpgen's grammar: the keys, and
// the description when withDesc is set, last (a comma in it escaped).
func (t *tagRead) jsonschemaValue(withDesc bool) string {
	parts := slices.Clone(t.keys)
	if withDesc && t.hasDesc {
		parts = append(parts, "description="+strings.ReplaceAll(t.desc, ",", `\,`))
	}
	return strings.Join(parts, ",")
}

// jsonschemaTag returns the field's jsonschema tag in mcpgen's grammar,
// reading the field's tags in the Builder's dialect. In mcpgen's own
// dialect, a field whose tags follow another library's convention gets one
// diagnostic saying what to write instead, and its tags are not applied.
func (r *run) jsonschemaTag(f *jsonField, w where) (string, bool) {
	raw, ok := f.tag.Lookup("jsonschema")
	t := readTags(r.b.tags.dialect, f.tag, isPointer(f.typ))
	if !t.foreign() && len(t.problems) == 0 {
		return raw, ok
	}
	v := f.last()
	if t.foreign() && (r.b.tags.fix || r.b.tags.dialect != DialectMCPGen) {
		if r.b.tags.fix {
			r.b.tags.foreign[v.Origin().Pos()] = true
		}
		for _, p := range t.problems {
			r.errorf(w, "%s", p)
		}
		return t.jsonschemaValue(true), true
	}
	if !t.foreign() {
		for _, p := range t.problems {
			r.errorf(w, "%s", p)
		}
		return t.jsonschemaValue(true), true
	}
	r.errorf(w, "%s", r.foreignMessage(f, &t))
	return "", false
}

// foreignMessage says what the tags are and what to write instead.
func (r *run) foreignMessage(f *jsonField, t *tagRead) string {
	newTag, doc := fixTag(f.tag, t, r.b.fieldDoc(f.last()) != "", false)
	var what []string
	if raw, ok := f.tag.Lookup("jsonschema"); ok {
		what = append(what, "jsonschema:"+strconv.Quote(raw))
	}
	if raw, ok := f.tag.Lookup("jsonschema_description"); ok {
		what = append(what, "jsonschema_description:"+strconv.Quote(raw))
	}
	if t.jsonRequired {
		what = append(what, "json:"+strconv.Quote(f.tag.Get("json")))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s; write instead ", strings.Join(what, " "), t.style)
	if doc != "" {
		fmt.Fprintf(&b, "the doc comment %q and ", "// "+strings.ReplaceAll(doc, "\n", "\n// "))
	}
	if newTag == "" {
		b.WriteString("no tag")
	} else {
		fmt.Fprintf(&b, "the tag `%s`", newTag)
	}
	hint := "mcpgen -fix rewrites it"
	switch t.style {
	case styleNoKeys: // nothing -fix can do: the key has no equivalent
		hint = ""
	case styleGoSDK:
		hint += "; -tags=gosdk reads it as the SDK does"
	case styleMCPGo, styleDesc, styleJSON, styleMixed:
		hint += "; -tags=mcpgo reads it as mcp-go does"
	}
	if hint != "" {
		fmt.Fprintf(&b, " (%s)", hint)
	}
	for _, p := range t.problems {
		b.WriteString("; also: " + p)
	}
	return b.String()
}

// FixTag returns a field's struct tag (the literal's value, without quotes)
// rewritten into mcpgen's convention as dialect d reads it (the zero Dialect
// guesses as mcpgen's diagnostics do), and the text of the doc comment to
// give the field ("" for none). hasDoc says whether the field already has a
// doc or line comment: then the description goes into the tag as
// description=. pointer says whether the field is a pointer: the other
// libraries require one without omitempty, so with a Dialect it gets
// jsonschema:"required". ok is false when the tags need no rewriting.
func FixTag(d Dialect, tag string, hasDoc, pointer bool) (newTag, doc string, ok bool) {
	t := readTags(d, reflect.StructTag(tag), pointer)
	if !t.foreign() {
		return tag, "", false
	}
	newTag, doc = fixTag(reflect.StructTag(tag), &t, hasDoc, true)
	return newTag, doc, true
}

// fixTag rewrites tag as t reads it. With keep, the entries that have no
// mcpgen equivalent stay, for the next generation to report.
func fixTag(tag reflect.StructTag, t *tagRead, hasDoc, keep bool) (newTag, doc string) {
	pairs := parseStructTag(string(tag))
	out := pairs[:0:0]
	sawJS := false
	js := t.jsonschemaValue(hasDoc)
	if keep && len(t.kept) > 0 {
		js = strings.Join(append(t.kept, js), ",")
		js = strings.TrimSuffix(js, ",")
	}
	for _, p := range pairs {
		switch p.key {
		case "jsonschema":
			sawJS = true
			if js != "" {
				out = append(out, tagPair{p.key, js})
			}
			continue
		case "jsonschema_description":
			if t.dropDescTag || t.hasDesc {
				continue
			}
		case "json":
			if t.jsonRequired {
				p.value = dropOpt(p.value, "required")
			}
		}
		out = append(out, p)
	}
	if !sawJS && js != "" {
		out = append(out, tagPair{"jsonschema", js})
	}
	if t.hasDesc && !hasDoc {
		doc = t.desc
	}
	return formatStructTag(out), doc
}

// dropOpt removes an option from a json tag value.
func dropOpt(v, opt string) string {
	name, opts, _ := strings.Cut(v, ",")
	var kept []string
	for o := range strings.SplitSeq(opts, ",") {
		if o != opt && o != "" {
			kept = append(kept, o)
		}
	}
	if len(kept) == 0 {
		return name
	}
	return name + "," + strings.Join(kept, ",")
}

// A tagPair is one key:"value" of a struct tag, the value unquoted.
type tagPair struct{ key, value string }

// parseStructTag splits a struct tag into its pairs, in order, following the
// conventions reflect.StructTag.Lookup reads; it stops at the first
// malformed pair.
func parseStructTag(tag string) []tagPair {
	var out []tagPair
	for tag != "" {
		i := 0
		for i < len(tag) && tag[i] == ' ' {
			i++
		}
		tag = tag[i:]
		if tag == "" {
			break
		}
		i = 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			break
		}
		key := tag[:i]
		tag = tag[i+1:]
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			break
		}
		value, err := strconv.Unquote(tag[:i+1])
		if err != nil {
			break
		}
		out = append(out, tagPair{key, value})
		tag = tag[i+1:]
	}
	return out
}

// formatStructTag writes pairs as a struct tag.
func formatStructTag(pairs []tagPair) string {
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.key + ":" + strconv.Quote(p.value)
	}
	return strings.Join(parts, " ")
}
