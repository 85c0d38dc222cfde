package runtime

// audit.go: the audit trail's hooks. With Options.Audit set (Main: -audit), every
// request gets one record when it is answered (internal/audit writes it).

import (
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/audit"
	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
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

// auditTask writes the record of a task whose handler ended, under the id of
// the request that created it (audited when it was answered, with the task
// as its result): the task's own outcome (failed: rpc_error, completed with
// isError: tool_error, cancelled), its receipt and the handler's time.
func (s *Server) auditTask(t *taskRun, rec *tasks.Record) {
	hc, fx := t.c, t.c.effects()
	ar := audit.Record{RequestID: string(hc.msg.ID), Era: audit.Era(hc.msg.Era == EraModern),
		Revision: hc.info.ProtocolVersion, Method: hc.msg.Method, Tool: hc.msg.params.Name, ArgsDigest: fx.argsDigest,
		ReceiptID: fx.receiptID, Idempotency: fx.idempotency, Admitted: fx.admitted,
		HandlerFrom: fx.handlerFrom, HandlerTook: fx.handlerTook, TaskID: rec.ID, TaskStatus: string(rec.Status)}
	switch rec.Status {
	case tasks.Failed:
		var e struct{ Code int }
		if json.Unmarshal(rec.Error, &e) != nil || e.Code == 0 {
			e.Code = CodeInternalError
		}
		ar.RPCCode = e.Code
	case tasks.Completed:
		if res := t.res; res != nil && res.IsError {
			ar.ErrCode = "error"
			if res.toolErr != nil {
				ar.ErrCode = res.toolErr.Code
			}
		}
	}
	if p := PrincipalFrom(&hc.ctx); p != nil {
		ar.Principal, ar.HasPrincipal = p.Subject, true
	}
	ar.Extra = s.auditAttrs(&hc.ctx)
	ar.Log(s.audit, time.Now())
}

// auditRejected writes the record of a request refused before it was admitted.
func (s *Server) auditRejected(m *Message, rerr *rpcError) {
	audit.Rejected(s.audit, string(m.ID), audit.Era(m.Era == EraModern), m.Method, rerr.code)
}
