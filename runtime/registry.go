package runtime

// registry.go: registering tools: AddTool, each tool's entry with its schemas compiled
// on first use, CheckSchema.

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/schemacheck"
)

// A toolSet is an immutable snapshot of the registered tools; AddTool replaces it.
type toolSet struct {
	list   []*toolEntry // registration order: the order of tools/list
	byName map[string]*toolEntry
	// AddTool leaves byName nil and toolsRef.Load builds it from list the first
	// time a reader asks (built), so that registering n tools costs O(n), not
	// a copy of the index per tool (n²/2: most of the start-up of 10,000 tools).
	built sync.Once
	// adding is the writer's index of list's names while AddTool appends to
	// this snapshot: owned by the Server's mu, passed from snapshot to
	// snapshot, never read by readers.
	adding map[string]*toolEntry
}

// toolsRef holds the current toolSet; Load returns it with its index built.
type toolsRef struct{ p atomic.Pointer[toolSet] }

// Load returns the current snapshot, byName ready.
func (r *toolsRef) Load() *toolSet {
	ts := r.p.Load()
	ts.built.Do(func() {
		if ts.byName == nil {
			ts.byName = make(map[string]*toolEntry, len(ts.list))
			for _, e := range ts.list {
				ts.byName[e.tool.Name] = e
			}
		}
	})
	return ts
}

// Store publishes ts.
func (r *toolsRef) Store(ts *toolSet) { r.p.Store(ts) }

// A toolEntry is a registered tool with its pre-serialised descriptions and lazily
// compiled schemas.
type toolEntry struct {
	tool       *Tool
	modernJSON []byte // the Tool object for 2026-07-28 clients
	legacyJSON []byte // the Tool object for 2025-11-25 clients
	argNames   []string
	input      lazySchema
	output     lazySchema

	fx *toolEffects // nil for a readonly tool (effects.go)

	hdrOnce sync.Once
	hdrs    []httpcheck.ParamHeader // x-mcp-header annotations of the input schema

	scopes    []scopeTemplate     // Tool.Scopes compiled (authorize.go)
	scopeAlts map[string][]string // per template, every scope it can require (enum fields), nil if open
	scopeList []string            // every concrete scope the tool can require
}

// paramHeaders returns the tool's x-mcp-header annotations, read from its input
// schema on first use.
func (e *toolEntry) paramHeaders() []httpcheck.ParamHeader {
	e.hdrOnce.Do(func() { e.hdrs = httpcheck.ParamHeaders(e.tool.InputSchema) })
	return e.hdrs
}

// A lazySchema is a tool's input or output schema: checked when the tool is
// registered, compiled on first use, once, for the built-in validator (internal/schemacheck) or,
// beyond it, for runtime/fullschema.
type lazySchema struct {
	name   string // for messages, e.g. "echo/input"
	raw    json.RawMessage
	full   bool // beyond the built-in validator: runtime/fullschema validates it
	once   sync.Once
	node   *schemacheck.Schema // built-in (nil is the schema true)
	fullV  fullhook.Validator
	closed bool // every object the schema admits is closed (built-in only)
	err    error
}

// get compiles the schema on the first call.
func (l *lazySchema) get() error {
	l.once.Do(func() {
		if l.full {
			if l.fullV, l.err = fullhook.Compile(l.raw); l.err != nil {
				l.err = fmt.Errorf("compile schema %s: %w", l.name, l.err)
			}
			return
		}
		if l.node, l.err = schemacheck.Compile(l.raw, true); l.err != nil {
			l.err = fmt.Errorf("compile schema %s: %w", l.name, l.err)
			return
		}
		l.closed = l.node.ClosedTree(map[*schemacheck.Schema]bool{})
	})
	return l.err
}

// failures validates a JSON value (valid JSON): nil when it is valid, else why not.
// A valid value costs no allocation with the built-in validator.
func (l *lazySchema) failures(v []byte) ([]schemaFailure, error) {
	if err := l.get(); err != nil {
		return nil, err
	}
	if !l.full {
		if l.node.Valid(v) {
			return nil, nil
		}
		if fails := l.node.Explain(v); len(fails) > 0 {
			return fails, nil
		}
		return nil, fmt.Errorf("schema %s: the validator refused a value without a reason", l.name)
	}
	if t := jsonwire.TrimSpace(v); len(t) == 0 || !schemacheck.WalkOK(t) { // repeated names, out-of-range numbers
		return schemacheck.Empty.Explain(v), nil
	}
	fails, err := l.fullV(v)
	if err != nil {
		return nil, fmt.Errorf("validate with schema %s: %w", l.name, err)
	}
	return fails, nil
}

// schemaFailure is one reason a value is invalid (shared with runtime/fullschema).
type schemaFailure = fullhook.Failure

// A SchemaUnsupportedError reports a keyword of a JSON Schema that the runtime's
// built-in validator does not implement. The runtime validates such a schema only
// when runtime/fullschema is imported (mcpgen adds that import to generated code
// whose schemas need it).
type SchemaUnsupportedError = schemacheck.UnsupportedError

// fullSchemaImport is the import that registers the full validator.
const fullSchemaImport = `import _ "github.com/mcpgen/mcpgen/runtime/fullschema"`

// CheckSchema reports whether the runtime's built-in validator decides every
// instance of the JSON Schema 2020-12 document schema exactly: nil when it does, a
// *SchemaUnsupportedError naming the first keyword beyond it (the schema then needs
// runtime/fullschema), or another error for a schema that is not valid JSON Schema.
// mcpgen calls it at generate time to decide whether the generated file imports
// runtime/fullschema; AddTool applies the same rule.
func CheckSchema(schema json.RawMessage) error {
	return schemacheck.Check(schema)
}

// schemaMode decides how a schema is validated at registration: by the built-in
// validator, or by runtime/fullschema when the schema is beyond it. Without
// runtime/fullschema such a schema is an error naming the keyword and the import; a
// schema that is not valid JSON Schema is an error either way.
func schemaMode(raw json.RawMessage) (full bool, err error) {
	err = CheckSchema(raw)
	var unsupported *SchemaUnsupportedError
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

// wireTool is the JSON shape of a Tool in tools/list.
type wireTool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

// AddTool registers t. It panics on a programmer error: an empty or duplicate name, a
// nil handler, an input schema that is not a JSON object with "type":"object" (or an
// output schema that is not a JSON object), a schema that is not valid JSON Schema,
// or one beyond the runtime's built-in validator when runtime/fullschema is not
// imported (see CheckSchema). Schemas are compiled on first use, not here, so
// start-up stays cheap.
func (s *Server) AddTool(t *Tool) {
	e, err := newToolEntry(t)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.tools.p.Load()
	idx := old.adding
	if idx == nil { // the first AddTool after NewServer, PutTool or RemoveTool
		idx = make(map[string]*toolEntry, len(old.list)+1)
		for _, x := range old.list {
			idx[x.tool.Name] = x
		}
	}
	if _, dup := idx[t.Name]; dup {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: duplicate tool name %q", t.Name))
	}
	idx[t.Name] = e
	old.adding = nil // handed on to the next snapshot
	s.tools.Store(&toolSet{list: append(old.list[:len(old.list):len(old.list)], e), adding: idx})
	s.listChanged(kindTools)
}

// newToolEntry checks t and pre-serialises its descriptions.
func newToolEntry(t *Tool) (*toolEntry, error) {
	switch {
	case t == nil:
		return nil, fmt.Errorf("nil tool")
	case t.Name == "":
		return nil, fmt.Errorf("tool without a name")
	case t.Handler == nil:
		return nil, fmt.Errorf("tool %q has no handler", t.Name)
	}
	if err := checkInputSchema(t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	for _, raw := range []json.RawMessage{t.OutputSchema, t.LegacyOutputSchema} {
		if raw != nil && (!json.Valid(raw) || !isObject(raw)) {
			return nil, fmt.Errorf("tool %q: output schema is not a JSON object", t.Name)
		}
	}
	e, err := buildToolEntry(t)
	if err != nil {
		return nil, err
	}
	if e.scopes, err = compileScopes(t.Scopes, t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	e.scopeAlts, e.scopeList = expandScopes(e.scopes, t.InputSchema)
	if e.fx, err = newToolEffects(t); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if e.input.full, err = schemaMode(t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if t.OutputSchema != nil {
		if e.output.full, err = schemaMode(t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %q: output schema: %w", t.Name, err)
		}
	}
	return e, nil
}

// checkInputSchema reports whether raw is a JSON object whose type is "object".
func checkInputSchema(raw json.RawMessage) error {
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

// buildToolEntry pre-serialises t for both eras.
func buildToolEntry(t *Tool) (*toolEntry, error) {
	w := wireTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
	modern, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("tool %q: encode: %w", t.Name, err)
	}
	legacy := modern // the same bytes unless the legacy output schema differs
	if t.LegacyOutputSchema != nil {
		w.OutputSchema = t.LegacyOutputSchema
		if legacy, err = json.Marshal(w); err != nil {
			return nil, fmt.Errorf("tool %q: encode: %w", t.Name, err)
		}
	}
	names, err := propertyNames(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	return &toolEntry{tool: t, modernJSON: modern, legacyJSON: legacy, argNames: names,
		input:  lazySchema{name: t.Name + "/input", raw: t.InputSchema},
		output: lazySchema{name: t.Name + "/output", raw: t.OutputSchema}}, nil
}

// propertyNames returns the keys of the schema's top-level "properties", in document
// order. The schema is a valid JSON object (checkInputSchema).
func propertyNames(schema json.RawMessage) ([]string, error) {
	var names []string
	props := false
	jsonwire.EachMember(schema[jsonwire.SkipWS(schema, 0):], func(key, val []byte) {
		if string(key) != "properties" || len(val) == 0 || val[0] != '{' {
			return
		}
		props, names = true, names[:0] // the last "properties" counts, as in encoding/json
		jsonwire.EachMember(val, func(k, _ []byte) { names = append(names, string(k)) })
	})
	if !props {
		return nil, nil
	}
	return names, nil
}

// pageStart returns the index of the first tool of the page cursor names. Cursors name
// the last tool already sent, so they stay valid while tools are added.
func (ts *toolSet) pageStart(cursor string) (int, bool) {
	name, ok := catalog.DecodeCursor(cursor)
	if !ok {
		return 0, false
	}
	e, ok := ts.byName[name]
	if !ok {
		return 0, false
	}
	for i, x := range ts.list {
		if x == e {
			return i + 1, true
		}
	}
	return 0, false
}
