// Package audit writes the audit trail's records: one per answered request, with
// ids, digests, outcome and durations, and never arguments, results, error
// messages or tokens.
package audit

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// A Record is what the audit keeps of one answered (or aborted) request.
type Record struct {
	RequestID, Era, Revision, Method string
	Tool, ArgsDigest                 string // tools/call only; ArgsDigest hex SHA-256
	Principal                        string // the caller's subject, when HasPrincipal
	HasPrincipal                     bool
	Aborted                          bool        // cancelled by the client: no reply
	Extra                            []slog.Attr // added by extensions (e.g. a trace id), last
	RPCCode                          int         // the JSON-RPC error code of the reply, 0 for a result
	ErrCode                          string      // the isError result's code ("error" for a plain error)
	ReceiptID, Idempotency           string
	Admitted, HandlerFrom            time.Time // HandlerFrom zero: the handler never ran
	HandlerTook                      time.Duration
	// TaskID and TaskStatus are set on the record of a task whose handler
	// ended (the request that created it has its own record, answered then).
	TaskID, TaskStatus string
}

// Outcome names how the request (or its task) ended: ok, tool_error:CODE,
// rpc_error:CODE, aborted, cancelled (a task).
func (r *Record) Outcome() string {
	switch {
	case r.Aborted:
		return "aborted"
	case r.TaskStatus == "cancelled":
		return "cancelled"
	case r.RPCCode != 0:
		return "rpc_error:" + strconv.Itoa(r.RPCCode)
	case r.ErrCode != "":
		return "tool_error:" + r.ErrCode
	}
	return "ok"
}

// Log writes the record to l, its total time ending at now.
func (r *Record) Log(l *slog.Logger, now time.Time) {
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String("request_id", r.RequestID),
		slog.String("era", r.Era),
		slog.String("revision", r.Revision),
		slog.String("method", r.Method))
	if r.Method == "tools/call" {
		attrs = append(attrs, slog.String("tool", r.Tool))
		if r.ArgsDigest != "" {
			attrs = append(attrs, slog.String("args_digest", "sha256:"+r.ArgsDigest))
		}
	}
	if r.HasPrincipal {
		attrs = append(attrs, slog.String("principal", r.Principal))
	}
	if r.TaskID != "" {
		attrs = append(attrs, slog.String("task_id", r.TaskID), slog.String("task_status", r.TaskStatus))
	}
	attrs = append(attrs, slog.String("outcome", r.Outcome()))
	if r.ReceiptID != "" && r.ErrCode == "" && r.RPCCode == 0 {
		attrs = append(attrs, slog.String("receipt_action_id", r.ReceiptID))
	}
	if r.Idempotency != "" {
		attrs = append(attrs, slog.String("idempotency", r.Idempotency))
	}
	if !r.HandlerFrom.IsZero() {
		attrs = append(attrs,
			slog.Float64("queue_ms", ms(r.HandlerFrom.Sub(r.Admitted))),
			slog.Float64("handler_ms", ms(r.HandlerTook)))
	}
	attrs = append(attrs, slog.Float64("total_ms", ms(now.Sub(r.Admitted))))
	attrs = append(attrs, r.Extra...)
	l.LogAttrs(context.Background(), slog.LevelInfo, "audit", attrs...)
}

// Rejected writes the record of a request refused with code before it was admitted.
func Rejected(l *slog.Logger, requestID, era, method string, code int) {
	l.LogAttrs(context.Background(), slog.LevelInfo, "audit",
		slog.String("request_id", requestID),
		slog.String("era", era),
		slog.String("method", method),
		slog.String("outcome", "rpc_error:"+strconv.Itoa(code)))
}

// Era names an era for the audit.
func Era(modern bool) string {
	if modern {
		return "modern"
	}
	return "legacy"
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
