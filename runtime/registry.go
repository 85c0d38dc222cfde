package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A toolSet is an immutable snapshot of the registered tools; AddTool replaces it.
type toolSet struct {
	list   []*toolEntry // registration order: the order of tools/list
	byName map[string]*toolEntry
}

// A toolEntry is a registered tool with its pre-serialised descriptions and lazily
// compiled schemas.
type toolEntry struct {
	tool       *Tool
	modernJSON []byte // the Tool object for 2026-07-28 clients
	legacyJSON []byte // the Tool object for 2025-11-25 clients
	argNames   []string
	input      lazySchema
	output     lazySchema

	hdrOnce sync.Once
	hdrs    []paramHeader // x-mcp-header annotations of the input schema
}

// paramHeaders returns the tool's x-mcp-header annotations, read from its input
// schema on first use.
func (e *toolEntry) paramHeaders() []paramHeader {
	e.hdrOnce.Do(func() { e.hdrs = paramHeaders(e.tool.InputSchema) })
	return e.hdrs
}

// A lazySchema compiles its schema on first use, once: for the full validator and,
// when the schema allows, for the allocation-free fast path (fastschema.go).
type lazySchema struct {
	name   string // for messages, e.g. "echo/input"
	raw    json.RawMessage
	once   sync.Once
	sch    *jsonschema.Schema
	fast   *fastSchema // nil: no fast path
	closed bool        // fast path exists and every object it admits is closed
	err    error
}

// get returns the compiled schema, compiling it on the first call.
func (l *lazySchema) get() (*jsonschema.Schema, error) {
	l.once.Do(func() {
		if l.sch, l.err = compileSchema(l.name, l.raw); l.err == nil {
			// An unsupported schema has no fast path: compileFast returns a partly
			// filled node with its error, which must never validate anything.
			if fast, err := compileFast(l.raw); err == nil {
				l.fast = fast
			}
			l.closed = l.fast != nil && l.fast.closedTree(map[*fastSchema]bool{})
		}
	})
	return l.sch, l.err
}

// fastValid reports whether the fast path proves the JSON value raw valid; false
// means "ask the full validator". raw must be valid JSON.
func (l *lazySchema) fastValid(raw []byte) bool {
	raw = trimSpace(raw)
	return l.fast != nil && len(raw) > 0 && l.fast.validate(raw, 0) == vValid
}

// compileSchema compiles a 2020-12 schema that may reference only itself: external
// $refs are never fetched.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("decode schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	url := "urn:mcpgen:schema:" + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("add schema %s: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	return sch, nil
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
// nil handler, or an input schema that is not a JSON object with "type":"object" (or
// an output schema that is not a JSON object). Schemas are compiled on first use, not
// here, so start-up stays cheap.
func (s *Server) AddTool(t *Tool) {
	e, err := newToolEntry(t)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.tools.Load()
	if _, dup := old.byName[t.Name]; dup {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: duplicate tool name %q", t.Name))
	}
	next := &toolSet{list: append(old.list[:len(old.list):len(old.list)], e), byName: make(map[string]*toolEntry, len(old.list)+1)}
	for _, x := range next.list {
		next.byName[x.tool.Name] = x
	}
	s.tools.Store(next)
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
	return buildToolEntry(t)
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
	if t.LegacyOutputSchema != nil {
		w.OutputSchema = t.LegacyOutputSchema
	}
	legacy, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("tool %q: encode: %w", t.Name, err)
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
// order.
func propertyNames(schema json.RawMessage) ([]string, error) {
	var root struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &root); err != nil || root.Properties == nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(root.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("properties: %w", err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
		names = append(names, fmt.Sprint(tok))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("properties: %w", err)
		}
	}
	return names, nil
}

// cursorPrefix marks cursors minted by this runtime.
const cursorPrefix = "after:"

// encodeCursor returns the opaque cursor for the page after the named tool.
func encodeCursor(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + name))
}

// pageStart returns the index of the first tool of the page cursor names. Cursors name
// the last tool already sent, so they stay valid while tools are added.
func (ts *toolSet) pageStart(cursor string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	name, ok := strings.CutPrefix(string(raw), cursorPrefix)
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
