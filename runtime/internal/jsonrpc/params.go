package jsonrpc

// params.go: the params of a request, decoded once into the union of the members
// the runtime reads.

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Reserved _meta keys of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Params is the union of the params members the runtime reads, decoded once.
type Params struct {
	Meta            *Meta           `json:"_meta"`
	Name            string          `json:"name"`
	URI             string          `json:"uri"`
	Arguments       json.RawMessage `json:"arguments"`
	Cursor          *string         `json:"cursor"`
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
	Level           string          `json:"level"`
	RequestID       json.RawMessage `json:"requestId"`

	metaStore Meta // Meta points here: no allocation of its own
}

// Meta is params._meta; members stay raw so that presence and type are checked
// apart.
type Meta struct {
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	ClientInfo         json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
	LogLevel           json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
}

// A Problem is what Decode found wrong with params, besides their members'
// values: Err, the first problem with the members' types (params not an
// object, a member of the wrong type; the other members are still read), and
// Repeated, the first member name repeated in params or params._meta, with In
// where ("params" or "params._meta").
type Problem struct {
	Err      error
	Repeated []byte
	In       string
}

// Decode decodes raw params (valid JSON, or nil) into p. Like encoding/json,
// null members leave fields unset and a member of the wrong type is recorded in
// the Problem without stopping the others. str decodes a JSON string (the
// caller's, which may avoid allocating for known values).
func (p *Params) Decode(raw json.RawMessage, str func([]byte) (string, bool)) Problem {
	var pr Problem
	if len(raw) == 0 || string(raw) == "null" {
		return pr
	}
	if raw[0] != '{' {
		pr.Err = errors.New("params must be an object")
		return pr
	}
	var keys jsonwire.KeySet
	jsonwire.EachMember(raw, func(key, val []byte) {
		if keys.Add(key) && pr.Repeated == nil {
			pr.Repeated, pr.In = key, "params"
		}
		p.set(&pr, key, val, str)
	})
	return pr
}

// set stores one member of params.
func (p *Params) set(pr *Problem, key, val []byte, str func([]byte) (string, bool)) {
	switch string(key) {
	case "_meta":
		p.decodeMeta(pr, val)
	case "name":
		pr.setString(&p.Name, key, val, str)
	case "uri":
		pr.setString(&p.URI, key, val, str)
	case "protocolVersion":
		pr.setString(&p.ProtocolVersion, key, val, str)
	case "level":
		pr.setString(&p.Level, key, val, str)
	case "cursor":
		if string(val) == "null" {
			p.Cursor = nil
			return
		}
		s, ok := str(val)
		if !ok {
			pr.typeError("cursor")
			return
		}
		p.Cursor = &s
	case "arguments":
		p.Arguments = val
	case "capabilities":
		p.Capabilities = val
	case "clientInfo":
		p.ClientInfo = val
	case "requestId":
		p.RequestID = val
	}
}

// setString stores a string member; null leaves it unset, another type is an error.
func (pr *Problem) setString(dst *string, key, val []byte, str func([]byte) (string, bool)) {
	if string(val) == "null" {
		return
	}
	s, ok := str(val)
	if !ok {
		pr.typeError(string(key))
		return
	}
	*dst = s
}

// decodeMeta decodes params._meta; null clears it.
func (p *Params) decodeMeta(pr *Problem, val []byte) {
	if string(val) == "null" {
		p.Meta = nil
		return
	}
	if p.Meta == nil {
		p.Meta = &p.metaStore
	}
	if val[0] != '{' {
		pr.typeError("_meta")
		return
	}
	meta := p.Meta
	var keys jsonwire.KeySet
	jsonwire.EachMember(val, func(key, val []byte) {
		if keys.Add(key) && pr.Repeated == nil {
			pr.Repeated, pr.In = key, "params._meta"
		}
		switch string(key) {
		case MetaProtocolVersion:
			meta.ProtocolVersion = val
		case MetaClientCapabilities:
			meta.ClientCapabilities = val
		case MetaClientInfo:
			meta.ClientInfo = val
		case MetaLogLevel:
			meta.LogLevel = val
		case "progressToken":
			meta.ProgressToken = val
		}
	})
}

// typeError records the first params member of the wrong type.
func (pr *Problem) typeError(key string) {
	if pr.Err == nil {
		pr.Err = fmt.Errorf("params.%s has the wrong type", key)
	}
}
