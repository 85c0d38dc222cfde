package jsonrpc

// classify.go: what a message's params say about how to serve it (its era, its
// protocol version, the name an Mcp-Name header must match), and the reply owed
// for a refused message.

import (
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// The protocol versions the runtime serves without a handshake revision of
// their own: String returns them without allocating.
const (
	VersionModern = "2026-07-28"
	VersionLegacy = "2025-11-25"
)

// JSON-RPC error codes of refused messages.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// String decodes a raw JSON string, reporting whether it was one; the protocol
// versions above come back without allocating.
func String(raw []byte) (string, bool) {
	switch string(raw) {
	case `"` + VersionModern + `"`:
		return VersionModern, true
	case `"` + VersionLegacy + `"`:
		return VersionLegacy, true
	}
	return jsonwire.String(raw)
}

// A Head is what Classify found in a message's params.
type Head struct {
	// Modern is set when params._meta carries the protocol version or the client
	// capabilities (2026-07-28).
	Modern bool
	// ProtocolVersion is params._meta's protocol version when it is a string.
	ProtocolVersion string
	// Name is params.name, or else params.uri.
	Name string
	// Err is the first problem with the members' types (Problem.Err).
	Err error
	// Repeated refuses a member name repeated in params or params._meta.
	Repeated error
}

// Classify decodes raw params into p and reads its Head.
func Classify(p *Params, raw json.RawMessage) Head {
	pr := p.Decode(raw, String)
	h := Head{Err: pr.Err, Name: p.Name}
	if pr.Repeated != nil {
		h.Repeated = RepeatedMember(pr.Repeated, pr.In)
	}
	if meta := p.Meta; meta != nil {
		h.Modern = meta.ProtocolVersion != nil || meta.ClientCapabilities != nil
		h.ProtocolVersion, _ = String(meta.ProtocolVersion)
	}
	if h.Name == "" {
		h.Name = p.URI
	}
	return h
}

// Reply returns the error response owed for a refused message (-32700 or
// -32600, with the id when it could be read), or nil for a malformed
// notification, with its code.
func (e *Refusal) Reply() ([]byte, int) {
	if !e.Answer {
		return nil, 0
	}
	code := CodeInvalidRequest
	if errors.Is(e.Err, ErrParse) {
		code = CodeParseError
	}
	return ErrorResponse(e.ID, code, e.Err.Error(), nil), code
}

// ClientInfo reads initialize's clientInfo: an object whose name and version
// are strings (title optional).
func ClientInfo(raw json.RawMessage) (name, title, version string, ok bool) {
	var info struct {
		Name    *string `json:"name"`
		Title   string  `json:"title"`
		Version *string `json:"version"`
	}
	raw = jsonwire.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &info) != nil || info.Name == nil || info.Version == nil {
		return "", "", "", false
	}
	return *info.Name, info.Title, *info.Version, true
}
