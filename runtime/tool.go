package runtime

// tool.go: the tool types generated code and handlers use: Tool, ToolRequest,
// ToolResult.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// SupportPackageIsVersion1 is referenced by generated code. It fails to compile when
// the runtime is older or newer than the generated code expects.
const SupportPackageIsVersion1 = true

// A Tool describes one tool and the handler that runs it. InputSchema and OutputSchema
// are JSON Schema 2020-12 documents produced by the generator; the runtime never infers
// schemas by reflection.
type Tool struct {
	// Name is the tool's unique name, e.g. "search_notes".
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells the model what the tool does.
	Description string
	// Annotations are optional behaviour hints.
	Annotations *ToolAnnotations
	// InputSchema validates the arguments; its root must be {"type":"object",...}.
	InputSchema json.RawMessage
	// OutputSchema validates StructuredContent; nil means the tool has neither
	// outputSchema nor structuredContent.
	OutputSchema json.RawMessage
	// LegacyOutputSchema is the outputSchema 2025-11-25 clients see; nil means the same
	// as OutputSchema.
	LegacyOutputSchema json.RawMessage
	// LegacyWrap, when set, wraps structured output as {LegacyWrap: value} for
	// 2025-11-25 clients, whose structuredContent must be an object.
	LegacyWrap string
	// Scopes are the OAuth scopes a call needs, all of them (authorize.go). A
	// {field} in a scope is replaced by the call's value of that top-level string
	// argument: "incident:create:{severity}". The check runs after the arguments
	// are validated and before the handler; a broader granted scope implies the
	// narrower ones it prefixes (Options.ScopeImplies).
	Scopes []string
	// Confirm, when set, is the question the user must accept before the handler
	// runs (consent.go), {field} filled with the call's arguments.
	Confirm string
	// Meta is the Tool object's _meta in tools/list (e.g. MCP Apps'
	// "ui": {"resourceUri": ..., "visibility": [...]}); nil for none. It must
	// not change after AddTool (the Tool object is serialised once).
	Meta map[string]any
	// Task says whether the tool runs as a task (docs/tasks.md): "" never,
	// TaskOptional when the server decides, TaskRequired always. The tasks
	// extension (runtime/tasks) runs such tools; AddTool panics on a task
	// tool while it is not registered.
	Task TaskSupport
	// Handler runs the tool.
	Handler ToolHandler

	// IdempotencyKey is the name of the top-level string argument that carries
	// the caller's idempotency key (the generator sets it for the input field
	// tagged `mcp:"idempotency_key"`); "" when the tool takes none. Only tools
	// that are not readonly use it (effects.go).
	IdempotencyKey string
	// ExternalID is the name of the top-level member of the structured output
	// that holds the id of what a write created (the generator sets it for the
	// output field tagged `mcp:"external_id"`); it goes into the receipt.
	// ReportExternalID sets it from the handler instead.
	ExternalID string
	// Reconcile, when set, looks up the outcome of an earlier call with the
	// same idempotency key and arguments whose process died before it recorded
	// its result. It returns that call's result (a receipt is built for it), or
	// nil and no error when the earlier call had no effect (the handler then
	// runs), or an error when it cannot tell (the caller gets outcome_unknown).
	Reconcile ToolHandler

	// SchemasChecked is set by mcpgen-generated code, whose schemas the
	// generator checked when it wrote them (CheckSchema; an input schema of
	// type object). AddTool then trusts them: it neither checks nor compiles
	// them nor serialises the tool (each happens on first use), so a server of
	// thousands of tools starts in a fraction of the time. A schema that turns
	// out unusable fails that tool's calls with an internal error instead of
	// AddTool panicking. Hand-written tools leave it false.
	SchemasChecked bool
}

// ToolAnnotations are hints about a tool's behaviour. Unless Stated is set, each hint is
// sent only when true, and a client reads an absent hint as the specification's default
// (destructive, open world). annotations.go encodes them.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint bool   `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   bool   `json:"openWorldHint,omitempty"`
	// Stated sends all four hints, false ones included: the author decided each
	// one. mcpgen-generated tools set it (docs/annotations.md#annotation-hints).
	Stated bool `json:"-"`
}

// A ToolHandler runs a tool call. ctx is cancelled when the client cancels the call or
// the connection ends. A non-nil error becomes an isError result carrying the error's
// text; a panic becomes an isError result with a generic text.
type ToolHandler func(ctx context.Context, req *ToolRequest) (*ToolResult, error)

// A ToolRequest is one tool call.
type ToolRequest struct {
	// Name is the called tool's name.
	Name string
	// Arguments are the call's arguments, already validated against the InputSchema.
	Arguments json.RawMessage
	// Tool is the called tool's definition (with its Meta), for interceptors
	// (Extension.ToolCall); nil outside a server's tools/call.
	Tool *Tool

	closed bool // the InputSchema admits no unknown member at any depth (internal/schemacheck)
}

// Decode decodes the arguments into v, rejecting unknown fields. Absent or empty
// arguments decode as {}.
func (r *ToolRequest) Decode(v any) error {
	args := r.Arguments
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if r.closed { // validation already rejected unknown members: decode without a Decoder
		if err := json.Unmarshal(args, v); err != nil {
			return fmt.Errorf("decode arguments of %s: %w", r.Name, err)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode arguments of %s: %w", r.Name, err)
	}
	return nil
}

// A ToolResult is the outcome of a tool call.
type ToolResult struct {
	// Content is the unstructured result. When it is empty and StructuredContent is set,
	// the runtime adds a text block holding the structured JSON.
	Content []Content
	// StructuredContent is the structured result; it must match the tool's OutputSchema.
	StructuredContent json.RawMessage
	// IsError marks a tool execution error the model should see.
	IsError bool
	// Meta is the result's _meta.
	Meta map[string]any

	toolErr *ToolError       // set when the runtime built the result from a ToolError
	raw     *json.RawMessage // RawToolResult: sent as the call's result as is (a pointer: the struct stays in its size class)
}

// A TaskSupport says whether a tool runs as a task (Tool.Task).
type TaskSupport string

// The values of Tool.Task ("" is a plain tool).
const (
	// TaskOptional: the server decides per call (docs/tasks.md): a call that
	// has not finished within Options.TaskThreshold becomes a task.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: every call is a task; clients that do not support tasks
	// get -32021 (2026-07-28) or -32601 (2025-11-25).
	TaskRequired TaskSupport = "required"
)

// Structured returns a result whose StructuredContent is v encoded as JSON. The runtime
// validates it against the tool's OutputSchema before sending it.
func Structured(v any) (*ToolResult, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode structured result: %w", err)
	}
	return &ToolResult{StructuredContent: data}, nil
}
