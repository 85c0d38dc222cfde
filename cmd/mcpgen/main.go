// Command mcpgen generates MCP tool registrations for annotated Go handlers.
//
// Usage:
//
//	mcpgen [flags] [packages]
//	mcpgen init [dir]
//	mcpgen install [-dry-run] [-scope user|project] [-name NAME] CLIENT TARGET
//
// It loads the named packages (default "."), finds the functions and methods
// whose doc comment holds a //mcp:tool directive, and writes next to them one
// file, mcp_gen.go, declaring RegisterMCP(s *mcpruntime.Server, ...), which
// registers every tool with the runtime. Run it from go:generate:
//
//	//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen
//
// The flags are:
//
//	-o NAME       name of the generated file in each package (default mcp_gen.go)
//	-check        write nothing; exit 1 listing every stale or missing file
//	-server DIR   also write DIR/main.go, a runnable server for all tools
//	-debug=model  print the analyzed model as JSON on stdout
//	-lint=LIST    check input schemas against provider profiles (openai,anthropic,gemini),
//	              and tool annotations against marketplace; each finding is an error
//	              at the Go field or directive responsible
//	-strict=openai  emit input schemas in OpenAI's strict form (optional fields
//	              required and nullable); //mcp:tool strict=none opts a tool out
//	-tools-json FILE  also write the tool contracts (name, inputSchema, outputSchema) to FILE
//	-compat BASE  compare the tool contracts with BASE, a git revision or a -tools-json
//	              file; print every change and exit 1 on a breaking one (writes nothing)
//	-docs FILE    also write a Markdown catalog of the tools, resources and prompts
//	              (- for stdout)
//	-client-config CLIENT  deprecated: with -server DIR, print what
//	              mcpgen install -dry-run CLIENT DIR prints
//	-tags=gosdk|mcpgo  read struct tags as the official Go SDK (the whole jsonschema
//	              tag is the description) or mcp-go (jsonschema_description, text and
//	              enum= in jsonschema) reads them
//	-verbatim-docs  keep doc comments as written in descriptions (by default a
//	              leading Go identifier is dropped: "Search finds notes." is "Finds notes.")
//	-fix          rewrite struct tags written for the official Go SDK or mcp-go into
//	              mcpgen's form (descriptions become doc comments), then generate
//
// mcpgen init [dir] writes a new handler package in dir (default .), inside an
// existing module: one documented tool, its go:generate line, a golden test and
// testdata, then generates mcp_gen.go and cmd/NAME-server/main.go. It never
// overwrites a file.
//
// mcpgen issuer [-addr host:port] serves a test OAuth authorization server on a
// loopback address (package runtime/auth/authtest), so that a server's
// -auth-issuer can be tried without a real one; mcpgen issuer token prints an
// access token from it. See docs/auth.md, "Try it locally".
//
// mcpgen install CLIENT TARGET adds a server to the configuration file of an
// MCP client (claude-desktop, claude-code, cursor, vscode, gemini, goose),
// keeping its other entries and backing the previous file up as FILE.bak; a
// second run changes nothing. TARGET is a server main's directory (started
// with go run), a built binary, or an http(s) URL (with -name). -dry-run
// prints the entry instead; -scope project writes the client's project file
// in the current directory. See docs/annotations.md.
//
// See docs/migrating.md for -tags and -fix, docs/profiles.md for the profiles'
// rules and the compatibility rules, and docs/annotations.md and
// docs/troubleshooting.md for the directives and every diagnostic.
//
// Problems in the handlers are printed one per line as file:line:col: message,
// all of them, sorted; nothing is written and the exit status is 1. Usage
// errors exit with status 2. See package github.com/mcpgen/mcpgen/gen for the
// annotation reference.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
