// Package gosdk020 holds the interop test of mcpgen servers against the official
// Go SDK v0.2.0 client over Streamable HTTP: a release still in use that reads a
// POST's response only as an event stream. It needs a module of its own (the
// other older Go clients use the SDK's v1.1.0). It has no non-test code.
package gosdk020
