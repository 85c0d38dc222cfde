// Command mcpgen generates MCP tool registrations for annotated Go handlers.
//
// Usage:
//
//	mcpgen [flags] [packages]
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
//	-lint=LIST    check input schemas against provider profiles (openai,anthropic,gemini);
//	              each finding is an error at the Go field responsible
//	-strict=openai  emit input schemas in OpenAI's strict form (optional fields
//	              required and nullable); //mcp:tool strict=none opts a tool out
//	-tools-json FILE  also write the tool contracts (name, inputSchema, outputSchema) to FILE
//	-compat BASE  compare the tool contracts with BASE, a git revision or a -tools-json
//	              file; print every change and exit 1 on a breaking one (writes nothing)
//
// See docs/profiles.md for the profiles' rules and the compatibility rules.
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
