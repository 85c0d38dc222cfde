// Package older holds interop tests of mcpgen servers against older releases of the
// Go MCP clients (the official Go SDK v1.1.0 and mcp-go v0.32.0), which cannot share
// a module with the current ones. It has no non-test code.
package older
