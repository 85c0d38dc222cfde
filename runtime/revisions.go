package runtime

// revisions.go: the call-level seam to the revisions older than 2025-11-25
// (runtime/internal/revision does the shaping): which revision a call's
// messages take, and the sink that shapes what a call sends on its own.

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/revision"
)

// olderRevision reports whether v is a negotiated handshake revision before 2025-11-25.
func olderRevision(v string) bool { return revision.Older(v) }

// shapeResponse reshapes the result of a response to method for an older revision.
func shapeResponse(version, method string, id json.RawMessage, body []byte) []byte {
	return revision.ShapeResponse(version, method, id, body)
}

// revision returns the handshake revision whose shape the call's messages must
// take when it is older than 2025-11-25, else "". initialize learns it only as
// it answers.
func (c *call) revision() string {
	if c.info.Modern {
		return ""
	}
	v := c.info.ProtocolVersion
	if v == "" && c.sess != nil && c.msg.Method == "initialize" {
		v = c.sess.ProtocolVersion()
	}
	if olderRevision(v) {
		return v
	}
	return ""
}

// A revisionSink shapes the request-scoped messages of an older revision's call.
type revisionSink struct {
	out     Sink
	version string
}

// Send shapes msg and passes it on.
func (r revisionSink) Send(ctx context.Context, msg []byte) error {
	return r.out.Send(ctx, revision.ShapeOutgoing(r.version, msg))
}
