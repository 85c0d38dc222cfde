package runtime

// errors.go: the JSON-RPC error codes and the sentinel errors of the runtime.

import (
	"errors"

	"github.com/mcpgen/mcpgen/runtime/internal/httpstream"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/peer"
)

// JSON-RPC and MCP error codes the runtime emits. HTTP transports map them to statuses.
const (
	CodeParseError              = -32700 // the message is not valid JSON
	CodeInvalidRequest          = -32600 // valid JSON, but not a JSON-RPC request
	CodeMethodNotFound          = -32601 // unknown method, or one the era does not have
	CodeInvalidParams           = -32602 // bad params, missing _meta fields, unknown tool, bad cursor
	CodeInternalError           = -32603 // a server bug, e.g. output that breaks the outputSchema
	CodeHeaderMismatch          = -32020 // 2026-07-28: HTTP header disagrees with the body
	CodeMissingClientCapability = -32021 // 2026-07-28: the request needs an undeclared client capability
	CodeUnsupportedVersion      = -32022 // 2026-07-28: protocolVersion not supported
)

var (
	// ErrNilResult reports that a tool handler returned a nil *ToolResult with a nil
	// error. Generated adapters return it when a pointer output is nil; the runtime
	// answers such a call with an internal error.
	ErrNilResult = errors.New("tool handler returned a nil result")

	// ErrParse reports a message that is not valid JSON.
	ErrParse = jsonrpc.ErrParse

	// ErrInvalidRequest reports a JSON value that is not a valid JSON-RPC message
	// (wrong jsonrpc version, null or fractional id, batch array, ...).
	ErrInvalidRequest = jsonrpc.ErrInvalidRequest

	// ErrMessageTooLarge reports a stdio line longer than the transport's limit.
	ErrMessageTooLarge = errors.New("message too large")

	// ErrNoProgress reports a progress value that does not increase, which the
	// protocol forbids.
	ErrNoProgress = errors.New("progress must increase")

	// ErrRequestDone reports a notification sent for a request that has already
	// completed or been cancelled.
	ErrRequestDone = httpstream.ErrDone

	// ErrInvalidLogLevel reports a log level that is not one of the syslog names the
	// protocol defines.
	ErrInvalidLogLevel = errors.New("invalid log level")

	// ErrSessionClosed reports a server-to-client request on a closed session.
	ErrSessionClosed = peer.ErrClosed
)
