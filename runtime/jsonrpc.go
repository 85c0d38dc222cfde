package runtime

// jsonrpc.go: frame parse: ParseMessage turns one JSON-RPC message into a Message
// (kind, era, params, _meta); ErrorReply gives the -32700/-32600 owed.

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Protocol versions the runtime serves.
const (
	versionModern = jsonrpc.VersionModern
	versionLegacy = jsonrpc.VersionLegacy
)

// Reserved _meta keys of the 2026-07-28 revision.
const (
	metaProtocolVersion    = jsonrpc.MetaProtocolVersion
	metaClientCapabilities = jsonrpc.MetaClientCapabilities
	metaLogLevel           = jsonrpc.MetaLogLevel
	metaServerInfo         = jsonrpc.MetaServerInfo
)

// An Era is the protocol era a message is served under.
type Era int

const (
	// EraLegacy is 2025-11-25: the initialize handshake and sessions.
	EraLegacy Era = iota
	// EraModern is 2026-07-28: stateless requests described by their own params._meta.
	EraModern
)

// String returns "legacy" or "modern".
func (e Era) String() string {
	if e == EraModern {
		return "modern"
	}
	return "legacy"
}

// A Kind says what a JSON-RPC message is.
type Kind int

const (
	// KindRequest has a method and an id and expects a response.
	KindRequest Kind = jsonrpc.KindRequest
	// KindNotification has a method and no id and is never answered.
	KindNotification Kind = jsonrpc.KindNotification
	// KindResponse has an id and a result or an error; only legacy clients send them,
	// answering the server's own requests.
	KindResponse Kind = jsonrpc.KindResponse
)

// A Message is one decoded JSON-RPC message. ParseMessage fills it; a transport may
// read it (e.g. to check HTTP headers against the body) and may set Era to EraModern
// when its own signals say so (an MCP-Protocol-Version header naming a modern
// version) before handing it to Server.Handle.
type Message struct {
	// Kind is request, notification or response.
	Kind Kind
	// ID is the raw id token of requests and responses, echoed unchanged; nil for
	// notifications.
	ID json.RawMessage
	// Method is the method of requests and notifications.
	Method string
	// Params is the raw params object, nil when absent.
	Params json.RawMessage
	// Result and Error are the raw members of a response.
	Result, Error json.RawMessage
	// Era is EraModern when params._meta carries io.modelcontextprotocol/protocolVersion
	// or io.modelcontextprotocol/clientCapabilities.
	Era Era
	// ProtocolVersion is params._meta["io.modelcontextprotocol/protocolVersion"] when it
	// is a string, else "".
	ProtocolVersion string
	// Name is params.name (tools/call, prompts/get) or params.uri (resources/read): the
	// value an Mcp-Name header must match.
	Name string

	params    params
	paramsErr error
}

// params is the union of the params members the runtime reads, decoded once
// (internal/jsonrpc); requestMeta is its _meta.
type (
	params      = jsonrpc.Params
	requestMeta = jsonrpc.Meta
)

// messageError is a message ParseMessage rejected, with what is needed to answer it.
type messageError = jsonrpc.Refusal

// ParseMessage decodes one JSON-RPC message and classifies its era. A failure wraps
// ErrParse or ErrInvalidRequest; ErrorReply turns it into the reply owed, if any.
// The Message refers to raw, which must not change afterwards. ParseMessage is safe
// for concurrent use.
func ParseMessage(raw []byte) (*Message, error) {
	var env jsonrpc.Frame
	kind, method, refusal := jsonrpc.Read(jsonwire.TrimSpace(raw), &env)
	if refusal != nil {
		return nil, refusal
	}
	m := &Message{Kind: Kind(kind), ID: env.ID, Method: method, Params: env.Params}
	if m.Kind == KindResponse {
		m.Params, m.Result, m.Error = nil, env.Result, env.Error
	}
	h := jsonrpc.Classify(&m.params, m.Params)
	if h.Repeated != nil {
		return nil, &messageError{Err: h.Repeated, ID: m.ID, Answer: m.Kind != KindNotification}
	}
	m.ProtocolVersion, m.Name, m.paramsErr = h.ProtocolVersion, h.Name, h.Err
	if h.Modern {
		m.Era = EraModern
	}
	return m, nil
}

// rawString decodes a raw JSON string, reporting whether it was one
// (jsonrpc.String: the served versions without allocating).
func rawString(raw []byte) (string, bool) { return jsonrpc.String(raw) }

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// ErrorReply returns the reply owed for an error from ParseMessage: an error response
// with code -32700 or -32600 (with the id when it could be read), or no body for a
// malformed notification.
func ErrorReply(err error) Reply {
	var me *messageError
	if !errors.As(err, &me) {
		return errorReply(nil, CodeInternalError, err.Error(), nil)
	}
	body, code := me.Reply()
	return Reply{Body: body, Code: code}
}

// errorReply builds an error response.
func errorReply(id json.RawMessage, code int, msg string, data any) Reply {
	return Reply{Body: ErrorResponse(id, code, msg, data), Code: code}
}

// ErrorResponse encodes a JSON-RPC error response. A nil id is omitted (the request's
// id could not be read); data is omitted when nil.
func ErrorResponse(id json.RawMessage, code int, message string, data any) []byte {
	return jsonrpc.ErrorResponse(id, code, message, data)
}
