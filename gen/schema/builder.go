package schema

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// A Diagnostic is a user error found while deriving a schema, at the
// innermost position that explains it (usually a struct field's declaration).
type Diagnostic struct {
	Pos token.Position
	Msg string
}

func (d Diagnostic) String() string { return fmt.Sprintf("%s: %s", d.Pos, d.Msg) }

// A Default is a value declared with `jsonschema:"default=..."` that the
// generated decoder stores in the input value before decoding, so that it
// survives when the property is absent.
type Default struct {
	// Path is the Go field names from the root struct to the field,
	// including the names of embedded fields on the way
	// (SearchInput{Page: Page{Limit: 10}} has Path ["Page", "Limit"]).
	// Every step is a non-pointer struct field.
	Path []string
	// Type is the Go type of the field.
	Type types.Type
	// JSON is the default as a JSON literal of the Go value (10, "abc",
	// true, ["a","b"]).
	JSON string
}

type mode int

const (
	modeInput mode = iota
	modeOutput
)

// A Builder derives schemas from go/types with encoding/json semantics.
// It caches the schema of each named type, per direction, so a Builder
// should be shared by all the tools of a run. A Builder is not safe for
// concurrent use.
type Builder struct {
	fset  *token.FileSet
	docs  *docIndex
	roots map[*types.Package]bool // the packages given to New

	// cache maps named types to *entry, per mode, `mcp:"any"` context and
	// addressability (see addrSensitive): index mode*4 + any*2 + addr.
	cache     [8]typeutil.Map
	sensitive typeutil.Map // named type -> bool, see addrSensitive
	defs      [2]map[string]*jsonschema.Schema
	defNames  [2]typeutil.Map // recursive named type -> $defs name, per addr
	taken     map[string]bool
	enums     typeutil.Map         // named type -> []any (nil: none)
	builds    int                  // named types built (not from the cache), for tests
	parsed    map[string]dirResult // //mcp:schema text -> parsed schema
	// defaultJSON holds the input defaults of fields.
	defaultJSON map[fieldKey]string
	// headers maps the input schemas annotated with x-mcp-header to their
	// fields, for checkHeaders.
	headers map[*jsonschema.Schema]where
	// tags says how struct tags are read (foreigntags.go).
	tags tagConfig
}

// An entry is the cached result for one named type in one mode.
type entry struct {
	schema    *jsonschema.Schema
	needs     map[string]bool // $defs names the schema refers to, transitively
	diags     []Diagnostic
	building  bool
	recursive bool
	name      string
}

// New returns a Builder. pkgs are the loaded packages (with Syntax and
// TypesInfo where available): their doc comments become descriptions and
// their named types with constants become enums.
func New(fset *token.FileSet, pkgs []*packages.Package) *Builder {
	b := &Builder{
		fset:        fset,
		docs:        indexDocs(pkgs),
		roots:       map[*types.Package]bool{},
		defs:        [2]map[string]*jsonschema.Schema{{}, {}},
		taken:       map[string]bool{},
		parsed:      map[string]dirResult{},
		defaultJSON: map[fieldKey]string{},
		headers:     map[*jsonschema.Schema]where{},
	}
	for _, p := range pkgs {
		if p.Types != nil {
			b.roots[p.Types] = true
		}
	}
	return b
}

// A fieldKey identifies a struct field across identical instantiations of
// a generic type: the generic field and the instantiated field type.
type fieldKey struct {
	v   *types.Var
	typ string
}

func keyOf(v *types.Var) fieldKey { return fieldKey{v.Origin(), types.TypeString(v.Type(), nil)} }

// isLocal reports whether a package is the user's: one given to New, or
// any package outside the standard library. Only local packages supply
// descriptions and enums: the standard library's doc comments speak Go,
// and its constants (fs.FileMode bits, time.Duration units) are not
// exhaustive value sets.
func (b *Builder) isLocal(p *types.Package) bool {
	return p != nil && (b.roots[p] || !isStd(p.Path()))
}

// isStd reports whether an import path is in the standard library: its
// first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// A run holds the state of one Input or Output call.
type run struct {
	b     *Builder
	mode  mode
	needs map[string]bool
	diags []Diagnostic
	root  string // name of the root type, first element of field paths
}

// where locates a type in the value being described.
type where struct {
	path  string    // Go path for messages: SearchInput.Opts.Callback
	pos   token.Pos // innermost field declaration
	anyOK bool      // inside a field tagged `mcp:"any"`
	// addr reports whether json.Marshal sees the value as addressable
	// (behind a pointer, in a slice, in a field of such a value), so that
	// methods with pointer receivers apply.
	addr bool
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *run) errorf(w where, format string, args ...any) {
	what := "field "
	if !strings.Contains(w.path, ".") {
		what = "type " // the root itself
	}
	msg := fmt.Sprintf(format, args...)
	r.diags = append(r.diags, Diagnostic{Pos: r.b.fset.Position(w.pos), Msg: what + w.path + ": " + msg})
}

// Input returns the schema of a tool's arguments: t must be a struct or a
// pointer to one. at locates t's use (the handler's parameter) for
// diagnostics about the root itself.
func (b *Builder) Input(t types.Type, at token.Pos) (*jsonschema.Schema, []Default, []Diagnostic) {
	r := b.newRun(modeInput, t)
	root := derefRoot(t)
	if !isStruct(root) {
		r.diags = append(r.diags, Diagnostic{Pos: b.fset.Position(at),
			Msg: fmt.Sprintf("input type %s must be a struct or a pointer to a struct: tool arguments are a JSON object", typeString(t))})
		return &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.FalseSchema}, nil, r.finishDiags()
	}
	s := r.assemble(r.typ(root, where{path: r.root, pos: at}))
	if !IsObjectRoot(s) && len(r.diags) == 0 {
		r.diags = append(r.diags, Diagnostic{Pos: b.fset.Position(at),
			Msg: fmt.Sprintf("input type %s: its //mcp:schema must describe an object: tool arguments are a JSON object", typeString(t))})
	}
	r.checkSize(s, t, at)
	r.checkHeaders(s)
	defaults := r.defaults(root, at)
	return s, defaults, r.finishDiags()
}

// Output returns the schema of what json.Marshal emits for a tool's result
// of type t. A pointer root is described by its element: the generated
// adapter never marshals a nil result.
func (b *Builder) Output(t types.Type, at token.Pos) (*jsonschema.Schema, []Diagnostic) {
	r := b.newRun(modeOutput, t)
	// A pointer result is marshaled through the pointer: addressable.
	w := where{path: r.root, pos: at, addr: isPointer(t)}
	s := dropMachineBounds(r.assemble(r.typ(derefRoot(t), w))) // machinebounds.go
	r.checkSize(s, t, at)
	return s, r.finishDiags()
}

// checkSize refuses a schema too large to write out (see maxNodes).
func (r *run) checkSize(s *jsonschema.Schema, t types.Type, at token.Pos) {
	if n := schemaNodes(s, map[*jsonschema.Schema]int{}); n > maxNodes {
		r.diags = append(r.diags, Diagnostic{Pos: r.b.fset.Position(at),
			Msg: fmt.Sprintf("type %s: the schema would have more than %d subschemas once inlined: its types share subtypes too often (give a shared type a //mcp:schema, or restructure)", typeString(t), maxNodes)})
	}
}

func (b *Builder) newRun(m mode, t types.Type) *run {
	return &run{b: b, mode: m, needs: map[string]bool{}, root: rootName(t)}
}

// derefRoot removes one pointer from a root type.
func derefRoot(t types.Type) types.Type {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		return types.Unalias(p.Elem())
	}
	return t
}

func rootName(t types.Type) string {
	t = derefRoot(t)
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return typeString(t)
}

// typeString writes t with package names rather than paths.
func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// assemble resolves a $ref root and attaches the $defs the schema needs.
func (r *run) assemble(s *jsonschema.Schema) *jsonschema.Schema {
	if len(r.needs) == 0 {
		return s
	}
	defs := r.b.defs[r.mode]
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, defsPrefix)
		c := *defs[name]
		if s.Description != "" {
			c.Description = s.Description
		}
		s = &c
	} else {
		c := *s
		s = &c
	}
	s.Definitions = jsonschema.Definitions{}
	for name := range r.needs {
		s.Definitions[name] = defs[name]
	}
	return s
}

const defsPrefix = "#/$defs/"

// finishDiags sorts and deduplicates the run's diagnostics.
func (r *run) finishDiags() []Diagnostic {
	slices.SortFunc(r.diags, compareDiag)
	return slices.Compact(r.diags)
}

func compareDiag(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Pos.Filename, b.Pos.Filename),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Column, b.Pos.Column),
		cmp.Compare(a.Msg, b.Msg))
}

// named returns the schema of a named type, from the cache when possible.
// build computes it on a miss. Recursive references become $refs.
func (r *run) named(n *types.Named, w where, build func() *jsonschema.Schema) *jsonschema.Schema {
	anyKey := w.anyOK && !isStruct(n)
	addrKey := r.mode == modeOutput && w.addr && r.b.addrSensitive(n)
	cache := &r.b.cache[int(r.mode)*4+b2i(anyKey)*2+b2i(addrKey)]
	if e, ok := cache.At(n).(*entry); ok {
		if e.building {
			e.recursive = true
			e.name = r.b.defName(n, addrKey)
			r.needs[e.name] = true
			return &jsonschema.Schema{Ref: defsPrefix + e.name}
		}
		maps.Copy(r.needs, e.needs)
		r.diags = append(r.diags, e.diags...)
		return e.schema
	}
	e := &entry{building: true}
	cache.Set(n, e)
	r.b.builds++
	outerNeeds, outerDiags := r.needs, r.diags
	r.needs, r.diags = map[string]bool{}, nil
	s := r.withTypeDoc(build(), n)
	e.building = false
	e.needs, e.diags = r.needs, r.diags
	if e.recursive {
		r.b.defs[r.mode][e.name] = s
		s = &jsonschema.Schema{Ref: defsPrefix + e.name}
	}
	e.schema = s
	r.needs, r.diags = outerNeeds, append(outerDiags, e.diags...)
	maps.Copy(r.needs, e.needs)
	return s
}

// defName returns the stable $defs name of a recursive named type: its name
// with type arguments, qualified by its package name on a clash.
func (b *Builder) defName(n *types.Named, addr bool) string {
	names := &b.defNames[b2i(addr)]
	if name, ok := names.At(n).(string); ok {
		return name
	}
	name := sanitize(typeNameWithArgs(n, false))
	if b.taken[name] {
		name = sanitize(typeNameWithArgs(n, true))
	}
	for i := 2; b.taken[name]; i++ {
		name = fmt.Sprintf("%s%d", strings.TrimRight(name, "0123456789"), i)
	}
	b.taken[name] = true
	names.Set(n, name)
	return name
}

func typeNameWithArgs(n *types.Named, qualify bool) string {
	name := n.Obj().Name()
	if qualify && n.Obj().Pkg() != nil {
		name = n.Obj().Pkg().Name() + "." + name
	}
	args := n.TypeArgs()
	if args.Len() == 0 {
		return name
	}
	parts := make([]string, args.Len())
	for i := range args.Len() {
		parts[i] = typeString(args.At(i))
	}
	return name + "[" + strings.Join(parts, ",") + "]"
}

// sanitize keeps a $defs name readable and safe in a JSON pointer and URI
// fragment: letters, digits, '_', '-' and '.'; runs of others become '_'.
func sanitize(s string) string {
	var sb strings.Builder
	under := false
	for _, c := range s {
		ok := c == '_' || c == '-' || c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
		if ok {
			sb.WriteRune(c)
			under = false
		} else if !under {
			sb.WriteByte('_')
			under = true
		}
	}
	return strings.Trim(sb.String(), "_")
}
