package runtime

// audit.go: the audit trail's hooks. With Options.Audit set (Main: -audit), every
// request gets one record when it is answered (internal/audit writes it).

import (
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/audit"
)

// auditStart prepares an admitted call for its audit record.
func (s *Server) auditStart(c *call) {
	if s.audit != nil {
		c.effects().admitted = time.Now()
	}
}

// noteResult records the isError code of a tools/call result for the audit.
func (fx *callEffects) noteResult(res *ToolResult) {
	switch {
	case res == nil || !res.IsError:
	case res.toolErr != nil:
		fx.errCode = res.toolErr.Code
	default:
		fx.errCode = "error"
	}
}

// auditCall writes the record of an answered (or aborted) call.
func (s *Server) auditCall(c *call, r Reply, aborted bool) {
	fx := c.effects()
	rec := audit.Record{RequestID: string(c.msg.ID), Era: audit.Era(c.msg.Era == EraModern),
		Revision: c.info.ProtocolVersion, Method: c.msg.Method, Tool: c.msg.params.Name, ArgsDigest: fx.argsDigest,
		Aborted: aborted, RPCCode: r.Code, ErrCode: fx.errCode, ReceiptID: fx.receiptID, Idempotency: fx.idempotency,
		Admitted: fx.admitted, HandlerFrom: fx.handlerFrom, HandlerTook: fx.handlerTook}
	if p := PrincipalFrom(&c.ctx); p != nil {
		rec.Principal, rec.HasPrincipal = p.Subject, true
	}
	rec.Extra = s.auditAttrs(&c.ctx) // extension.go
	rec.Log(s.audit, time.Now())
}

// auditRejected writes the record of a request refused before it was admitted.
func (s *Server) auditRejected(m *Message, rerr *rpcError) {
	audit.Rejected(s.audit, string(m.ID), audit.Era(m.Era == EraModern), m.Method, rerr.code)
}
