package runtime

// registry.go: registering tools: AddTool (its snapshots: internal/toolset), each
// tool's entry with its schemas compiled on first use, CheckSchema.

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
	"github.com/mcpgen/mcpgen/runtime/internal/schemacheck"
	"github.com/mcpgen/mcpgen/runtime/internal/scope"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/internal/toolset"
)

// toolsRef holds the current snapshot of the registered tools (internal/toolset).
type toolsRef = toolset.Ref[*toolEntry]

// A toolEntry is a registered tool with its serialised descriptions and its schemas
// compiled on first use. A tool the generator checked (Tool.SchemasChecked) is
// also serialised on first use; a hand-written one at AddTool, which reports
// what is wrong with it.
type toolEntry struct {
	tool      *Tool
	desc      toolset.Desc // the Tool object of each era, made once
	namesOnce sync.Once
	argNames  []string // the input schema's top-level property names
	input     lazySchema
	output    lazySchema

	fx *toolEffects // nil for a readonly tool (effects.go)

	hdrOnce sync.Once
	hdrs    []httpcheck.ParamHeader // x-mcp-header annotations of the input schema

	scopes    []scope.Template    // Tool.Scopes compiled (authorize.go)
	scopeAlts map[string][]string // per template, every scope it can require (enum fields), nil if open
	scopeList []string            // every concrete scope the tool can require
}

// Key returns the tool's name, its key in the registry (internal/toolset).
func (e *toolEntry) Key() string { return e.tool.Name }

// paramHeaders returns the tool's x-mcp-header annotations, read from its input
// schema on first use.
func (e *toolEntry) paramHeaders() []httpcheck.ParamHeader {
	e.hdrOnce.Do(func() { e.hdrs = httpcheck.ParamHeaders(e.tool.InputSchema) })
	return e.hdrs
}

// A lazySchema is a tool's input or output schema, compiled on first use
// (internal/toolschema).
type lazySchema = toolschema.Lazy

// schemaMode decides how a schema is validated at registration (internal/toolschema).
func schemaMode(raw json.RawMessage) (full bool, err error) { return toolschema.Mode(raw) }

// schemaFailure is one reason a value is invalid (shared with runtime/fullschema).
type schemaFailure = fullhook.Failure

// A SchemaUnsupportedError reports a keyword of a JSON Schema that the runtime's
// built-in validator does not implement. The runtime validates such a schema only
// when runtime/fullschema is imported (mcpgen adds that import to generated code
// whose schemas need it).
type SchemaUnsupportedError = schemacheck.UnsupportedError

// CheckSchema reports whether the runtime's built-in validator decides every
// instance of the JSON Schema 2020-12 document schema exactly: nil when it does, a
// *SchemaUnsupportedError naming the first keyword beyond it (the schema then needs
// runtime/fullschema), or another error for a schema that is not valid JSON Schema.
// mcpgen calls it at generate time to decide whether the generated file imports
// runtime/fullschema; AddTool applies the same rule.
func CheckSchema(schema json.RawMessage) error {
	return schemacheck.Check(schema)
}

// AddTool registers t. It panics on a programmer error: an empty or duplicate name, a
// nil handler, an input schema that is not a JSON object with "type":"object" (or an
// output schema that is not a JSON object), a schema that is not valid JSON Schema,
// or one beyond the runtime's built-in validator when runtime/fullschema is not
// imported (see CheckSchema), or a task tool (Tool.Task) while no tasks
// extension (runtime/tasks) is registered. Schemas are compiled on first use, not here, so
// start-up stays cheap. A tool with SchemasChecked (generated code) skips the
// schema checks and is serialised by the first tools/list page that lists it.
func (s *Server) AddTool(t *Tool) {
	e, err := newToolEntry(t)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: %v", err))
	}
	if err := s.checkTask(t); err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: %v", err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.tools.Add(e) {
		panic(fmt.Sprintf("mcpgen runtime: AddTool: duplicate tool name %q", t.Name))
	}
	s.listChanged(kindTools)
}

// extTasks is the ID of the tasks extension, which runs task tools.
const extTasks = "io.modelcontextprotocol/tasks"

// checkTask refuses a task tool while no extension with the tasks
// extension's ID is registered: without it the tool would silently run as a
// plain one.
func (s *Server) checkTask(t *Tool) error {
	if t == nil || t.Task == "" {
		return nil
	}
	if x := s.exts.Load(); x != nil {
		for _, e := range x.list {
			if e.ID == extTasks {
				return nil
			}
		}
	}
	return fmt.Errorf("tool %q runs as a task (Task %q) but the tasks extension (%s) is not registered: call tasks.Use(s) of runtime/tasks first (generated RegisterMCP does)", t.Name, t.Task, extTasks)
}

// newToolEntry checks t and, unless the generator checked it, its schemas and
// descriptions.
func newToolEntry(t *Tool) (*toolEntry, error) {
	switch {
	case t == nil:
		return nil, fmt.Errorf("nil tool")
	case t.Name == "":
		return nil, fmt.Errorf("tool without a name")
	case t.Handler == nil:
		return nil, fmt.Errorf("tool %q has no handler", t.Name)
	}
	e := &toolEntry{tool: t,
		input:  lazySchema{Name: t.Name + "/input", Raw: t.InputSchema, Auto: t.SchemasChecked},
		output: lazySchema{Name: t.Name + "/output", Raw: t.OutputSchema, Auto: t.SchemasChecked}}
	if !t.SchemasChecked {
		if err := checkToolSchemas(t, e); err != nil {
			return nil, err
		}
	}
	var err error
	if e.scopes, err = scope.Compile(t.Scopes, t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	if len(e.scopes) > 0 {
		e.scopeAlts, e.scopeList = scope.Expand(e.scopes, t.InputSchema)
	}
	if e.fx, err = newToolEffects(t); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	return e, nil
}

// checkToolSchemas checks a hand-written tool's schemas (the generator checked
// its own when it wrote them), decides how each is validated, and serialises
// the tool's descriptions.
func checkToolSchemas(t *Tool, e *toolEntry) error {
	if err := toolschema.CheckInput(t.InputSchema); err != nil {
		return fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	for _, raw := range []json.RawMessage{t.OutputSchema, t.LegacyOutputSchema} {
		if raw != nil && (!json.Valid(raw) || !isObject(raw)) {
			return fmt.Errorf("tool %q: output schema is not a JSON object", t.Name)
		}
	}
	if err := e.desc.Wire(e.Wire()); err != nil {
		return err
	}
	var err error
	e.namesOnce.Do(func() { e.argNames, err = toolschema.PropertyNames(t.InputSchema) })
	if err != nil {
		return fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if e.input.Full, err = schemaMode(t.InputSchema); err != nil {
		return fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if t.OutputSchema != nil {
		if e.output.Full, err = schemaMode(t.OutputSchema); err != nil {
			return fmt.Errorf("tool %q: output schema: %w", t.Name, err)
		}
	}
	return nil
}

// names returns the input schema's top-level property names (for the message
// of invalid arguments).
func (e *toolEntry) names() []string {
	e.namesOnce.Do(func() { e.argNames, _ = toolschema.PropertyNames(e.tool.InputSchema) })
	return e.argNames
}

// Desc returns the tool's serialised Tool objects (internal/toolset).
func (e *toolEntry) Desc() *toolset.Desc { return &e.desc }

// Wire returns what tools/list says of the tool (internal/toolset encodes it).
func (e *toolEntry) Wire() toolset.Tool { return wireTool(e.tool) }

// wireTool returns what tools/list says of t.
func wireTool(t *Tool) toolset.Tool {
	w := toolset.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
		OutputSchema: t.OutputSchema, LegacyOutputSchema: t.LegacyOutputSchema, Task: string(t.Task)}
	if t.Annotations != nil {
		w.Annotations = t.Annotations
	}
	if len(t.Meta) > 0 {
		w.Meta = t.Meta
	}
	return w
}

// Tool returns a copy of the registered tool called name, or nil. With
// PutTool, a host can wrap a tool's handler (metrics, a test's run count).
func (s *Server) Tool(name string) *Tool {
	e := s.tools.Load().Get(name)
	if e == nil {
		return nil
	}
	cp := *e.tool
	return &cp
}

// Tools returns copies of the registered tools in registration order (the
// order of tools/list).
func (s *Server) Tools() []*Tool {
	list := s.tools.Load().List()
	out := make([]*Tool, len(list))
	for i, e := range list {
		cp := *e.tool
		out[i] = &cp
	}
	return out
}
