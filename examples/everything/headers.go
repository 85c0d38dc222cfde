package everything

import (
	"context"
	"fmt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// HeaderIn is the input of test_custom_header.
type HeaderIn struct {
	// Region is mirrored into the Mcp-Param-Region header by Streamable HTTP
	// clients (2026-07-28); the server rejects a call whose header is missing
	// or disagrees with this argument.
	Region string `json:"region" mcp:"header=Region"`
	// Query is not mirrored.
	Query string `json:"query,omitempty"`
}

// CustomHeader echoes its region argument. Its region parameter carries
// x-mcp-header, so Streamable HTTP clients send it as Mcp-Param-Region.
//
//mcp:tool name=test_custom_header readonly openworld=false
func CustomHeader(ctx context.Context, in HeaderIn) ([]mcpruntime.Content, error) {
	return []mcpruntime.Content{mcpruntime.Text(fmt.Sprintf("region: %s", in.Region))}, nil
}
