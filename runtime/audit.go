package runtime

// audit.go: the audit trail. With Options.Audit set (Main: -audit), every request
// gets one record when it is answered: ids, digests, outcome and durations; never
// arguments, results, error messages or tokens.

import (
	"context"
	"log/slog"
	"strconv"
	"time"
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
	now := time.Now()
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs,
		slog.String("request_id", string(c.msg.ID)),
		slog.String("era", eraName(c.msg.Era)),
		slog.String("revision", c.info.ProtocolVersion),
		slog.String("method", c.msg.Method))
	if c.msg.Method == "tools/call" {
		attrs = append(attrs, slog.String("tool", c.msg.params.Name))
		if fx.argsDigest != "" {
			attrs = append(attrs, slog.String("args_digest", "sha256:"+fx.argsDigest))
		}
	}
	if p := PrincipalFrom(&c.ctx); p != nil {
		attrs = append(attrs, slog.String("principal", p.Subject))
	}
	attrs = append(attrs, slog.String("outcome", outcome(r, fx, aborted)))
	if fx.receiptID != "" && fx.errCode == "" && r.Code == 0 {
		attrs = append(attrs, slog.String("receipt_action_id", fx.receiptID))
	}
	if fx.idempotency != "" {
		attrs = append(attrs, slog.String("idempotency", fx.idempotency))
	}
	if !fx.handlerFrom.IsZero() {
		attrs = append(attrs,
			slog.Float64("queue_ms", ms(fx.handlerFrom.Sub(fx.admitted))),
			slog.Float64("handler_ms", ms(fx.handlerTook)))
	}
	attrs = append(attrs, slog.Float64("total_ms", ms(now.Sub(fx.admitted))))
	s.audit.LogAttrs(context.Background(), slog.LevelInfo, "audit", attrs...)
}

// auditRejected writes the record of a request refused before it was admitted.
func (s *Server) auditRejected(m *Message, rerr *rpcError) {
	s.audit.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("request_id", string(m.ID)),
		slog.String("era", eraName(m.Era)),
		slog.String("method", m.Method),
		slog.String("outcome", "rpc_error:"+strconv.Itoa(rerr.code)))
}

// outcome names how a call ended: ok, tool_error:CODE, rpc_error:CODE, aborted.
func outcome(r Reply, fx *callEffects, aborted bool) string {
	switch {
	case aborted:
		return "aborted"
	case r.Code != 0:
		return "rpc_error:" + strconv.Itoa(r.Code)
	case fx.errCode != "":
		return "tool_error:" + fx.errCode
	}
	return "ok"
}

// eraName names an era for the audit.
func eraName(e Era) string {
	if e == EraModern {
		return "modern"
	}
	return "legacy"
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
