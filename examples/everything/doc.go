// Package everything is the server the official MCP conformance suite tests:
// every tool of ../shared/conformance/EVERYTHING.md that the runtime can
// express, written as ordinary annotated Go functions. mcpgen writes
// mcp_gen.go (schemas and registration) and cmd/everything-server/main.go.
//
// Serve it over Streamable HTTP with both protocol eras on one endpoint:
//
//	go run ./examples/everything/cmd/everything-server -http 127.0.0.1:8080
package everything

//go:generate go run ../../cmd/mcpgen -server cmd/everything-server -with redis .
