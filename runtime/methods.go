package runtime

// methods.go: the protocol's own methods: initialize, ping, logging/setLevel,
// server/discover.

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/revision"
)

// emptyObject is the result of ping and logging/setLevel in 2025-11-25: exactly {}.
const emptyObject = "{}"

// initializeResult is the body of an initialize result (2025-11-25 only).
type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      Implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// initialize answers the handshake: a client asking for a handshake revision the
// server serves (2024-11-05 through 2025-11-25) gets it, any other version (a newer
// one included) is offered 2025-11-25 (revision.Negotiate).
func (s *Server) initialize(_ context.Context, c *call) ([]byte, *rpcError) {
	p := &c.msg.params
	if p.ProtocolVersion == "" {
		return nil, errorf(CodeInvalidParams, "initialize: missing protocolVersion")
	}
	if c.sess == nil {
		return nil, errorf(CodeInvalidRequest, "initialize needs a session")
	}
	// InitializeRequestParams requires capabilities (an object) and clientInfo (an
	// Implementation: string name and version).
	if !isObject(p.Capabilities) {
		return nil, errorf(CodeInvalidParams, "initialize: capabilities must be an object")
	}
	name, title, ver, ok := jsonrpc.ClientInfo(p.ClientInfo)
	if !ok {
		return nil, errorf(CodeInvalidParams, "initialize: clientInfo must be an object with a string name and version")
	}
	version := revision.Negotiate(p.ProtocolVersion)
	info := Implementation{Name: name, Title: title, Version: ver}
	if !c.sess.initialize(version, info, revision.ClientCaps(version, p.Capabilities)) {
		return nil, errorf(CodeInvalidRequest, "initialize: the session is already initialized")
	}
	s.prims.hub.AddSession(hubConn{c.sess}, principalID(c.caller())) // list changes and resource updates reach it
	return mustMarshal(initializeResult{
		ProtocolVersion: version,
		Capabilities:    s.advertised(version),
		ServerInfo:      s.info,
		Instructions:    s.opts.Instructions,
	}), nil
}

// ping answers a 2025-11-25 ping with exactly {}.
func (s *Server) ping(context.Context, *call) ([]byte, *rpcError) {
	return []byte(emptyObject), nil
}

// setLevel handles logging/setLevel (2025-11-25): the session's minimum level for
// notifications/message.
func (s *Server) setLevel(_ context.Context, c *call) ([]byte, *rpcError) {
	level := jsonrpc.LogLevel(c.msg.params.Level)
	if level < 0 {
		return nil, errorf(CodeInvalidParams, "invalid log level %q", c.msg.params.Level)
	}
	c.sess.setLogLevel(level)
	return []byte(emptyObject), nil
}

// discover answers server/discover (2026-07-28).
func (s *Server) discover(context.Context, *call) ([]byte, *rpcError) {
	return s.buildDiscover(), nil
}
