// Package servers pins the modules of the curve servers (scripts/curves):
// scripts/curves copies this go.mod and go.sum into the module it generates
// the servers in, with the replace pointing at this checkout.
package servers

import (
	_ "github.com/mark3labs/mcp-go/server"
	_ "github.com/mcpgen/mcpgen/runtime"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
)
