// Package model is the plain-data description of what mcpgen generates.
//
// The analyzer in package gen builds a Program from go/types; package gen/emit
// turns it into Go source without looking at go/types again. Every name in the
// model is spelled the way the generated code spells it: import paths, Go
// identifiers, JSON schemas as bytes. Every node carries the token.Position of
// the declaration it came from, so that a -debug=model dump can be traced back
// to the source.
package model

import (
	"encoding/json"
	"go/token"
)

// RuntimePath is the import path of the runtime package that generated code
// calls. Generated files import it under the name RuntimeAlias.
const RuntimePath = "github.com/mcpgen/mcpgen/runtime"

// FullSchemaPath is the package generated code imports (blank) when a schema is
// beyond the runtime's built-in validator: it registers the full JSON Schema
// validator.
const FullSchemaPath = RuntimePath + "/fullschema"

// AuthPath is the package a generated server main imports (blank) for its OAuth
// flags: -auth-issuer, -auth-audience, -auth-introspection (runtime/auth).
const AuthPath = RuntimePath + "/auth"

// RedisStorePath is the package a generated server main imports (blank) for
// serve.Main's -store redis://... (runtime/store/redisstore).
const RedisStorePath = RuntimePath + "/store/redisstore"

// ServePath is the package whose Main a generated server main runs the server
// with: the command line (-stdio, -http ADDR, ...), signals, exit codes
// (runtime/serve).
const ServePath = RuntimePath + "/serve"

// ServerCardPath is the package generated RegisterMCP registers the Server
// Card of a //mcp:server package with (servercard.Use; runtime/servercard).
const ServerCardPath = RuntimePath + "/servercard"

// OtelPath is the package a generated server main registers (otel.Use) for
// OpenTelemetry: spans, metrics and the audit record's trace id, configured
// by the OTEL_* environment variables (runtime/otel).
const OtelPath = RuntimePath + "/otel"

// TasksPath is the package generated code imports (as TasksAlias) to register
// the tasks extension when a tool runs as a task (task=...).
const TasksPath = RuntimePath + "/tasks"

// TasksAlias is the local name of TasksPath in generated code.
const TasksAlias = "mcptasks"

// RuntimeAlias is the local name under which generated code imports RuntimePath,
// so that it never shadows the standard library's runtime package.
const RuntimeAlias = "mcpruntime"

// A Program is everything one mcpgen run generates.
//
// Invariant: tool names are unique across Packages (the validator reports
// duplicates before a Program reaches the emitter).
type Program struct {
	// Packages holds the packages with at least one tool, sorted by Path.
	Packages []*Package
	// Server is non-nil when a server main was requested (-server DIR).
	Server *Server
	// Obsolete are files mcpgen generated earlier in packages that no longer
	// declare tools (absolute paths, sorted); they are removed after the
	// new files are written.
	Obsolete []string
	// Foreign are the struct fields whose tags were read in another
	// library's convention, sorted: what mcpgen -fix rewrites.
	Foreign []token.Position `json:",omitempty"`
}

// A Package is one Go package with annotated handlers, and the file
// mcpgen writes into its directory.
type Package struct {
	Name   string // package clause name, e.g. "notes"
	Path   string // import path
	Dir    string // absolute directory of the package
	Output string // absolute path of the generated file
	// Sources are the base names of the files declaring the tools, sorted.
	Sources []string
	// Tools are the annotated handlers, in source order.
	Tools []*Tool
	// Resources are the //mcp:resource handlers (direct resources and
	// templates), in source order.
	Resources []*Resource `json:",omitempty"`
	// Prompts are the //mcp:prompt handlers, in source order.
	Prompts []*Prompt `json:",omitempty"`
	// Views are the MCP Apps views embedded from the package's HTML files,
	// in order of first use.
	Views []*View `json:",omitempty"`
	// Forms are the struct types passed to mcpruntime.Elicit, in order of first use.
	Forms []*Form `json:",omitempty"`
	// FullSchema reports that a tool or form schema is beyond the runtime's built-in
	// validator (mcpruntime.CheckSchema): the generated file imports FullSchemaPath.
	FullSchema bool `json:",omitempty"`
	// Receivers are the receiver types of method handlers, sorted by TypeName.
	// RegisterMCP takes one parameter per receiver, in this order.
	Receivers []*Receiver
	// Taken are package-level identifiers of the package that equal the
	// name of a package the generated file imports; the file imports such a
	// package under another name.
	Taken []string `json:",omitempty"`
	// Registry is what //mcp:server in the package comment says, nil without one:
	// the package's server.json and the Server Card RegisterMCP hands the runtime.
	Registry *Registry `json:",omitempty"`
	Pos      token.Position
}

// Registry is a server's registry metadata (//mcp:server) and the documents
// built from it (gen/serverjson.go).
type Registry struct {
	ServerJSONPath string // absolute path of server.json, beside the package's files
	ServerJSON     []byte // server.json (MCP registry schema 2025-12-11)
	Card           []byte // the Server Card (SEP-2127), compact JSON
}

// A Receiver is a type whose methods are tool handlers.
type Receiver struct {
	TypeName string // Go identifier of the named type, in Package
	// Pointer reports whether RegisterMCP takes *TypeName (true when any handler
	// method has a pointer receiver) rather than TypeName.
	Pointer bool
	// Param is the Go identifier of the RegisterMCP parameter; it collides with
	// no other identifier used by the generated code.
	Param string
	// Constructor is the //mcp:constructor function for the type, or nil when
	// the server main uses the zero value.
	Constructor *Constructor
	Pos         token.Position
}

// A Constructor is a package function marked //mcp:constructor: it takes no
// parameters and returns *T or T, optionally followed by an error.
type Constructor struct {
	Func    string // Go identifier of the function
	Pointer bool   // the function returns *T
	Err     bool   // the function also returns an error
	Pos     token.Position
}

// OutKind says how a handler's result becomes a tool result.
type OutKind int

const (
	// OutNone: the handler returns only an error; the result is empty.
	OutNone OutKind = iota
	// OutStructured: the result is marshaled as structuredContent and described
	// by an outputSchema.
	OutStructured
	// OutToolResult: the handler returns *mcpruntime.ToolResult, passed through.
	OutToolResult
	// OutContent: the handler returns []mcpruntime.Content.
	OutContent
)

// String returns the Go name of k.
func (k OutKind) String() string {
	switch k {
	case OutNone:
		return "OutNone"
	case OutStructured:
		return "OutStructured"
	case OutToolResult:
		return "OutToolResult"
	case OutContent:
		return "OutContent"
	}
	return "OutKind(?)"
}

// MarshalText implements encoding.TextMarshaler for readable model dumps.
func (k OutKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// A Tool is one annotated handler.
type Tool struct {
	Name        string // MCP tool name
	Title       string // optional display title
	Description string // doc comment with directives removed
	ReadOnly    bool   // readonly: annotations.readOnlyHint
	Destructive bool   // destructive: annotations.destructiveHint
	Idempotent  bool   // idempotent: annotations.idempotentHint
	OpenWorld   bool   // openworld: annotations.openWorldHint
	// UI is the ui:// URI of the tool's MCP Apps view (ui=...), empty for none.
	UI string `json:",omitempty"`
	// Visibility is visibility=...: "model", "app" or both; empty for the
	// default (both).
	Visibility []string `json:",omitempty"`

	// Func is the Go identifier of the handler function or method.
	Func string
	// Receiver is the receiver type of a method handler, nil for a function.
	Receiver *Receiver
	// PointerRecv reports whether the method is declared on *Receiver.TypeName.
	PointerRecv bool

	// In is the input parameter type, nil when the handler has none.
	In *Type
	// Out is the result type besides error, nil when the handler returns only error.
	Out     *Type
	OutKind OutKind

	// VarPrefix is the prefix of the package-level variables holding the
	// schemas, e.g. "mcpSearchNotes" for mcpSearchNotesInputSchema.
	VarPrefix string
	// InputSchema is the indented JSON input schema (never nil).
	InputSchema json.RawMessage
	// OutputSchema is the indented JSON output schema; nil unless OutKind is OutStructured.
	OutputSchema json.RawMessage
	// LegacyOutputSchema is the schema sent to 2025-11-25 clients when the
	// output root is not an object; nil otherwise.
	LegacyOutputSchema json.RawMessage
	// LegacyWrap is the property that wraps the result for 2025-11-25 clients
	// ("result"), empty when OutputSchema's root already is an object.
	LegacyWrap string
	// Defaults are applied to the input before decoding the arguments.
	Defaults []Default
	// Strict is "openai" when InputSchema is in OpenAI's strict form (every
	// property required, optional ones nullable: null decodes as absent),
	// empty for the precise schema.
	Strict string `json:",omitempty"`
	// Scopes are the scope templates of scope="...", all required; a {field}
	// is replaced by the call's value of that top-level input field.
	Scopes []string `json:",omitempty"`
	// ScopeList is every scope Scopes can require, enum fields expanded
	// (sorted); a {field} of a free string stays a template.
	ScopeList []string `json:",omitempty"`
	// Task is "optional" or "required" (task=...): the tool may run, or always
	// runs, as a task (docs/tasks.md); empty for a plain tool.
	Task string `json:",omitempty"`
	// Confirm is the consent question of confirm="...": the runtime asks the
	// user before the handler runs, {field} filled with the arguments.
	Confirm string `json:",omitempty"`
	// IdempotencyKey is the JSON name of the top-level input field tagged
	// `mcp:"idempotency_key"`; empty when none.
	IdempotencyKey string `json:",omitempty"`
	// ExternalID is the JSON name of the top-level output field tagged
	// `mcp:"external_id"` (the receipt's external id); empty when none.
	ExternalID string `json:",omitempty"`
	// Reconcile is the function named by reconcile=NAME (a method of the
	// handler's receiver when the handler is a method): it looks up the
	// outcome of an earlier call with the same idempotency key whose process
	// died before recording it. Empty when none.
	Reconcile string `json:",omitempty"`
	// ReconcilePointerRecv reports whether the Reconcile method is declared on
	// *Receiver.TypeName.
	ReconcilePointerRecv bool `json:",omitempty"`

	Pos token.Position
}

// A Default sets one input field before the arguments are decoded, so that an
// absent field keeps its declared default.
type Default struct {
	// Path are the Go field names from the input struct down to the field;
	// every step but the last is a non-pointer struct.
	Path []string
	// GoLit is the Go source of an untyped constant assignable to the field
	// (e.g. `10`, `"en"`, `true`); empty when JSON must be used instead.
	GoLit string
	// JSON is the default as JSON, decoded into the field when GoLit is empty.
	JSON json.RawMessage
}

// TypeKind classifies a Type.
type TypeKind int

const (
	Basic     TypeKind = iota // predeclared type: Name ("int", "error", ...)
	Named                     // defined type: Path, PkgName, Name, Args
	Pointer                   // *Elem
	Slice                     // []Elem
	Array                     // [Len]Elem
	Map                       // map[Key]Elem
	Interface                 // interface{} (any)
)

// String returns the Go name of k.
func (k TypeKind) String() string {
	names := [...]string{"Basic", "Named", "Pointer", "Slice", "Array", "Map", "Interface"}
	if int(k) < len(names) {
		return names[k]
	}
	return "TypeKind(?)"
}

// MarshalText implements encoding.TextMarshaler for readable model dumps.
func (k TypeKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// A Type is a Go type expression as the generated code writes it.
type Type struct {
	Kind    TypeKind
	Name    string  `json:",omitempty"` // Basic, Named
	Path    string  `json:",omitempty"` // Named: import path of the declaring package
	PkgName string  `json:",omitempty"` // Named: package clause name of Path
	Args    []*Type `json:",omitempty"` // Named: type arguments of a generic instantiation
	Key     *Type   `json:",omitempty"` // Map
	Elem    *Type   `json:",omitempty"` // Pointer, Slice, Array, Map
	Len     int64   `json:",omitempty"` // Array
}

// A Server is the main package written by -server DIR.
type Server struct {
	Name    string // implementation name reported to clients
	Command string // the command's name: the base name of Dir
	Dir     string // absolute directory
	Output  string // absolute path of main.go
	// Packages are the packages whose RegisterMCP the main calls, sorted by Path.
	Packages []*Package
	// Auth links runtime/auth (AuthPath) into the main, for Main's -auth-issuer,
	// -auth-audience and -auth-introspection: set when a tool, resource or prompt
	// declares scope="...", or when asked for (mcpgen -with auth).
	Auth bool `json:",omitempty"`
	// Redis links runtime/store/redisstore (RedisStorePath), for Main's
	// -store redis://...: only when asked for (mcpgen -with redis).
	Redis bool `json:",omitempty"`
	// Otel registers runtime/otel (OtelPath) on the server: OpenTelemetry
	// configured by the OTEL_* variables, only when asked for (mcpgen -with otel).
	Otel bool `json:",omitempty"`
}
