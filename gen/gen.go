// Package gen is the mcpgen generator: it loads Go packages, finds the handler
// functions annotated with //mcp:tool, and returns the Go files that register
// them with the MCP runtime (package github.com/mcpgen/mcpgen/runtime).
//
// # Annotations
//
// A tool is a function or method whose doc comment holds the directive
//
//	//mcp:tool [NAME] [title="..."] [readonly] [destructive] [idempotent] [openworld] [strict=openai|none] [input=FILE.json]
//
// NAME defaults to the function's name in snake_case and must be 1-128
// characters of A-Z a-z 0-9 _ - . (also accepted as name=NAME). The rest of
// the doc comment is the tool's description; it must not be empty. The flags
// become the tool's annotations (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint). strict=openai emits the tool's input schema
// in OpenAI's strict form and strict=none keeps the precise one, whatever
// Config.Strict says (see package gen/profile and docs/profiles.md).
// input=FILE.json takes the tool's input schema from that file, relative to
// the package directory, instead of deriving it from In: the file must be
// valid JSON, compile as a JSON Schema 2020-12, have "type": "object" at the
// root and use only local $refs (#...); it is emitted verbatim (key order
// kept, re-indented), and In must be json.RawMessage or map[string]any.
//
// A handler has one of the shapes
//
//	func(ctx context.Context, in In) (Out, error)
//	func(ctx context.Context, in In) error
//	func(ctx context.Context) (Out, error)
//	func(ctx context.Context) error
//
// as a package function or a method. In is a named struct type or a pointer to
// one. Out is any JSON-marshalable type, *mcpruntime.ToolResult (passed
// through) or []mcpruntime.Content; the last two have no outputSchema.
//
// A package function marked //mcp:constructor, taking no parameters and
// returning *T or T (optionally followed by an error), supplies the receiver of
// type T to a generated server main; without one the main uses the zero value.
//
// Resources, resource templates and prompts are functions or methods:
//
//	//mcp:resource URI [name=NAME] [title="..."] [mime=TYPE]
//	func(ctx context.Context, <one parameter per URI variable>) (T, error)
//	//mcp:prompt [NAME] [title="..."]
//	func(ctx context.Context[, in Args]) (T, error)
//
// A URI with RFC 6570 expressions ({name}, {+path}, {/segs*}, {?q,limit}, ...)
// is a template: each variable is the parameter of the same name, of a string
// or integer type (an enum type restricts and completes it), a pointer to one
// for an optional variable, or []string for {+path} and {/segs*}. A resource returns string, []byte,
// mcpruntime.ResourceContents, []mcpruntime.ResourceContents or
// *mcpruntime.ResourceResult. A prompt's Args struct has string-kinded fields,
// its arguments; it returns []mcpruntime.PromptMessage, *mcpruntime.PromptResult
// or string. //mcp:complete ARG FUNC, beside either, names a
// func(context.Context, string) ([]string, error) suggesting values for ARG.
//
// # Output
//
// Generate returns one file per package (default name mcp_gen.go) declaring
//
//	func RegisterMCP(s *mcpruntime.Server, <receivers>)
//
// which registers every tool of the package with s. Handlers that are methods
// take their receivers as extra parameters, one per receiver type, in the order
// of the type names. With Config.ServerDir it also returns DIR/main.go, a
// runnable server for all tools of the loaded packages.
package gen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/emit"
	"github.com/mcpgen/mcpgen/gen/model"
)

// DefaultOutput is the default name of the generated file.
const DefaultOutput = "mcp_gen.go"

// ErrInternal marks mcpgen's own bugs, as opposed to problems in the user's code.
var ErrInternal = errors.New("internal error")

// A Config says what to generate.
type Config struct {
	// Dir is the directory in which patterns are resolved; empty means the
	// current directory.
	Dir string
	// Patterns are go/packages patterns; empty means ".".
	Patterns []string
	// Output is the base name of the generated file; empty means DefaultOutput.
	Output string
	// ServerDir, when set, asks for a server main in that directory (relative
	// to Dir unless absolute).
	ServerDir string
	// Env is the environment of the go command; nil means os.Environ().
	Env []string
	// Strict names the provider form of every input schema: "" or "none" for
	// the precise 2020-12 schema, "openai" for OpenAI's strict form (see
	// package gen/profile). A tool's //mcp:tool strict=... overrides it.
	Strict string
	// Lint names provider profiles (gen/profile.Names) every input schema is
	// checked against; each finding is a Diagnostic at the Go field responsible.
	Lint []string
	// Tags names the struct tag convention to read: "" for mcpgen's own,
	// "gosdk" for the official Go SDK's, "mcpgo" for mcp-go's (see
	// gen/schema.Dialect). In mcpgen's own, a field tagged in another
	// library's convention gets one diagnostic naming the fix.
	Tags string
	// Fix asks for Result.Fixed: the source files whose struct tags follow
	// another library's convention, rewritten into mcpgen's (fix.go).
	Fix bool
	// VerbatimDocs keeps doc comments as written in descriptions; by default
	// a leading Go identifier followed by a verb is dropped ("Search finds
	// notes." is "Finds notes.", gen/doctext.go).
	VerbatimDocs bool
	// With names optional components the server main links (see Components):
	// "auth" (runtime/auth: Main's -auth-issuer, -auth-audience,
	// -auth-introspection; linked anyway when something declares scope="...")
	// "redis" (runtime/store/redisstore: Main's -store redis://...) and "otel"
	// (runtime/otel: OpenTelemetry spans and metrics, OTEL_* variables).
	With []string
}

// A File is one generated file.
type File struct {
	Path    string // absolute path
	Content []byte
}

// A Diagnostic is one problem in the user's code.
type Diagnostic struct {
	Pos token.Position
	Msg string
}

// String formats d as file:line:col: message.
func (d Diagnostic) String() string {
	if !d.Pos.IsValid() {
		if d.Pos.Filename != "" {
			return d.Pos.Filename + ": " + d.Msg
		}
		return d.Msg
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Msg)
}

// A Result is what Generate produced. When Diagnostics is not empty, Files
// and Remove are nil: nothing may be written or removed.
type Result struct {
	Files []File
	// Remove lists files mcpgen generated earlier for packages that no longer
	// declare tools; delete them after writing Files.
	Remove      []string
	Diagnostics []Diagnostic
	// Warnings are problems that do not stop generation, such as a resource
	// template no URI can reach; mcpgen prints them and writes the files.
	Warnings []Diagnostic
	// Model is the analyzed program, for -debug=model; nil when loading failed.
	Model *model.Program
	// Fixed are the user's source files with their foreign struct tags
	// rewritten, with Config.Fix (even when there are Diagnostics: those
	// are what the rewrite cannot settle); Files is then nil.
	Fixed []File
}

// An Outdated is a generated file that is not up to date on disk.
type Outdated struct {
	Path string
	What string // "obsolete", "missing" or "stale"; "" when reading failed (Err)
	Err  error
}

// Outdated compares r with the files on disk, as mcpgen -check does: the obsolete
// files (r.Remove), then each of r.Files that is missing, unreadable or stale. It
// reads and writes nothing else.
func (r *Result) Outdated() []Outdated {
	var out []Outdated
	for _, path := range r.Remove {
		out = append(out, Outdated{Path: path, What: "obsolete"})
	}
	for _, f := range r.Files {
		old, err := os.ReadFile(f.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, Outdated{Path: f.Path, What: "missing"})
		case err != nil:
			out = append(out, Outdated{Path: f.Path, Err: err})
		case !bytes.Equal(old, f.Content):
			out = append(out, Outdated{Path: f.Path, What: "stale"})
		}
	}
	return out
}

// Generate loads the packages named by cfg, analyzes their annotated handlers
// and returns the files to write. It writes nothing. A non-nil error means
// mcpgen could not run (or has a bug, wrapping ErrInternal); problems in the
// user's code are reported as Diagnostics.
func Generate(ctx context.Context, cfg Config) (*Result, error) {
	cfg = cfg.withDefaults()
	pkgs, fset, diags, err := load(ctx, cfg)
	if err != nil || len(diags) > 0 {
		return &Result{Diagnostics: sortDiagnostics(diags)}, err
	}
	prog, diags := analyze(cfg, fset, pkgs)
	if cfg.Fix {
		fixed, fdiags := fixFiles(prog.Foreign, cfg.Tags)
		return &Result{Model: prog, Fixed: fixed, Diagnostics: sortDiagnostics(append(diags, fdiags...))}, nil
	}
	diags = append(diags, validate(prog)...)
	res := &Result{Model: prog, Diagnostics: sortDiagnostics(diags), Warnings: templateWarnings(prog)}
	if len(res.Diagnostics) > 0 {
		return res, nil
	}
	res.Files, err = emitFiles(prog)
	res.Remove = prog.Obsolete
	return res, err
}

// withDefaults fills in the empty fields of cfg.
func (cfg Config) withDefaults() Config {
	if len(cfg.Patterns) == 0 {
		cfg.Patterns = []string{"."}
	}
	if cfg.Output == "" {
		cfg.Output = DefaultOutput
	}
	if cfg.Dir == "" {
		cfg.Dir = "."
	}
	if abs, err := filepath.Abs(cfg.Dir); err == nil {
		cfg.Dir = abs
	}
	if cfg.ServerDir != "" && !filepath.IsAbs(cfg.ServerDir) {
		cfg.ServerDir = filepath.Join(cfg.Dir, cfg.ServerDir)
	}
	return cfg
}

// emitFiles renders every file of prog.
func emitFiles(prog *model.Program) ([]File, error) {
	var files []File
	for _, p := range prog.Packages {
		src, err := emit.Package(p)
		if err != nil {
			return nil, fmt.Errorf("%w: emit %s: %w", ErrInternal, p.Path, err)
		}
		files = append(files, File{Path: p.Output, Content: src})
	}
	if prog.Server != nil {
		src, err := emit.Server(prog.Server)
		if err != nil {
			return nil, fmt.Errorf("%w: emit server: %w", ErrInternal, err)
		}
		files = append(files, File{Path: prog.Server.Output, Content: src})
	}
	for _, p := range prog.Packages { // after the Go files: Files[i] is Packages[i]'s
		if p.Registry != nil {
			files = append(files, File{Path: p.Registry.ServerJSONPath, Content: p.Registry.ServerJSON})
		}
	}
	return files, nil
}

// sortDiagnostics sorts ds by position, then message, and drops duplicates.
func sortDiagnostics(ds []Diagnostic) []Diagnostic {
	slices.SortFunc(ds, func(a, b Diagnostic) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column - b.Pos.Column
		}
		return strings.Compare(a.Msg, b.Msg)
	})
	return slices.CompactFunc(ds, func(a, b Diagnostic) bool { return a == b })
}
