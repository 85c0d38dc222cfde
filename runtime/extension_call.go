package runtime

// extension_call.go: the extension API for running a call another way
// (docs/extensions.md, "Running a call another way"): the rest of a call
// detached from its request (Detach), answering a tools/call with another
// result type (RawToolResult), what the core would answer (AnswerTool), one
// more audit record (Audit), notifications to listen streams
// (NotifyListeners), and what such an extension reads of the request and the
// server. The tasks extension (runtime/tasks) is built on it.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/audit"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// Detach returns a context under which the rest of the request ctx belongs
// to can run after the request was answered: a ToolInterceptor calls next
// with it on a goroutine of its own and answers the request meanwhile. It
// keeps ctx's values (PrincipalFrom, RequestFrom, ClientExtension), the
// request's 2025-11-25 session, its progress token and its round of
// questions (the answers the request brought; a question asked before the
// request is answered belongs to its answer, as in the request itself), but
// neither ctx's cancellation nor the CallTimeout deadline: bound it yourself
// (context.WithTimeout). The stages next runs are recorded for Audit. Outside
// a request it returns context.WithoutCancel(ctx).
func Detach(ctx context.Context) context.Context {
	c := callFrom(ctx)
	if c == nil {
		return context.WithoutCancel(ctx)
	}
	hc := &call{srv: c.srv, msg: c.msg, sess: c.sess, out: c.out, info: c.info, handle: c.handle,
		tool: c.tool, progressToken: c.progressToken, logLevel: c.logLevel, clientInfo: c.clientInfo}
	if c.fx != nil { // audited: its record counts from the request's admission
		hc.fx = &callEffects{admitted: c.fx.admitted}
	}
	// hc's own round stays closed: Ask finds the request's (callCtx.Value).
	hc.ctx = callCtx{context.WithoutCancel(ctx), hc}
	return &hc.ctx
}

// RawToolResult returns a result that answers a tools/call with raw, a JSON
// object of another result type than CallToolResult (the tasks extension's
// CreateTaskResult), for an interceptor to return. It is sent as is; in
// 2026-07-28 the runtime adds resultType "complete" and the server's
// identity in _meta unless raw has them (as for Method results). It is not
// checked against the tool's output schema; raw that is not a JSON object
// answers -32603.
func RawToolResult(raw json.RawMessage) *ToolResult { return &ToolResult{raw: &raw} }

// A ToolAnswer is what a tools/call is answered with (AnswerTool): the
// era's CallToolResult or a JSON-RPC error.
type ToolAnswer struct {
	// Result is the CallToolResult object as the request's era encodes it;
	// nil with Error.
	Result json.RawMessage
	// IsError reports an isError result; ToolError is the *ToolError it was
	// made from (a handler's; a panic's has code ErrCodeInternal), nil for a
	// plain handler error.
	IsError   bool
	ToolError *ToolError
	// Error is the JSON-RPC error the call is answered with instead.
	Error *RPCError
}

// AnswerTool returns what the core answers a tools/call with, given what
// its handler chain returned (next in a ToolInterceptor, run under ctx or
// Detach(ctx)): a protocol error found while asking the client (-32021)
// first, an *RPCError as that error, a handler's error or panic as an
// isError result, a nil result as -32603, and a result encoded as the
// request's era encodes it (structured content checked against the output
// schema). An extension that answers the call otherwise (in a task) stores
// it. Outside a tools/call, Error says so.
func AnswerTool(ctx context.Context, res *ToolResult, err error) ToolAnswer {
	c := callFrom(ctx)
	if c == nil || c.tool == nil {
		return ToolAnswer{Error: &RPCError{Code: CodeInternalError, Message: "internal error: AnswerTool outside a tools/call"}}
	}
	s, e := c.srv, c.tool
	out, rerr := s.toolOutcome(c, e, res, err)
	if r := roundFrom(ctx); r != nil && r.Failure() != nil {
		rerr = failed(r.Failure())
	}
	if rerr == nil {
		enc := &call{srv: s, msg: &Message{ID: json.RawMessage("0")}, info: c.info}
		var b []byte
		if b, rerr = s.encodeToolResult(enc, e, out); rerr == nil {
			return ToolAnswer{Result: b[len(`{"jsonrpc":"2.0","id":0,"result":`):], IsError: out.IsError, ToolError: out.toolErr}
		}
	}
	return ToolAnswer{Error: &RPCError{Code: rerr.code, Message: rerr.msg, Data: rerr.data}}
}

// An AuditEnd says how work that outlived its request ended, for the record
// Audit writes.
type AuditEnd struct {
	// Code is the JSON-RPC error code it ended with; 0 for none.
	Code int
	// ToolError is the code of the isError result it ended with ("error"
	// for a plain handler error); "" for none.
	ToolError string
	// TaskID and TaskStatus name the task it ran as: the record's task_id
	// and task_status (status "cancelled" makes the outcome "cancelled").
	TaskID, TaskStatus string
}

// Audit writes one more audit record (Options.Audit) for the request ctx
// belongs to, under its id: for work an extension ran under Detach(ctx)
// after the request was answered (the request's own record was written
// then). It has the request's fields, what the stages run under ctx recorded
// (the arguments' digest, the receipt, the idempotency outcome, the
// handler's time), the extensions' AuditAttrs and end's outcome. Without
// Options.Audit, or outside a request, it does nothing.
func Audit(ctx context.Context, end AuditEnd) {
	c := callFrom(ctx)
	if c == nil || c.srv.audit == nil {
		return
	}
	fx := c.effects()
	rec := audit.Record{RequestID: string(c.msg.ID), Era: audit.Era(c.msg.Era == EraModern),
		Revision: c.info.ProtocolVersion, Method: c.msg.Method, Tool: c.msg.params.Name, ArgsDigest: fx.argsDigest,
		ReceiptID: fx.receiptID, Idempotency: fx.idempotency, Admitted: fx.admitted,
		HandlerFrom: fx.handlerFrom, HandlerTook: fx.handlerTook, RPCCode: end.Code, ErrCode: end.ToolError,
		TaskID: end.TaskID, TaskStatus: end.TaskStatus}
	if p := PrincipalFrom(&c.ctx); p != nil {
		rec.Principal, rec.HasPrincipal = p.Subject, true
	}
	rec.Extra = c.srv.auditAttrs(&c.ctx)
	rec.Log(c.srv.audit, time.Now())
}

// Listeners selects the 2026-07-28 subscriptions/listen streams a
// notification goes to (NotifyListeners).
type Listeners struct {
	// TaskID selects the streams whose filter's taskIds (ListenFilter) name
	// it; "" selects none.
	TaskID string
	// Caller, when set, keeps only the streams of that caller (CallerID).
	Caller string
}

// NotifyListeners sends the notification method with params (a JSON object)
// to the listen streams to selects, on this replica at once and, when the
// server's store is shared (Options.Store implementing store.PubSub), on the
// replicas sharing it. Sending is best effort.
func (s *Server) NotifyListeners(method string, params json.RawMessage, to Listeners) {
	if to.TaskID == "" {
		return
	}
	s.announce(notice{Method: method, Params: params, To: audience{TaskID: to.TaskID, Principal: to.Caller}})
}

// CallerID identifies the caller p (its subject and client) as the runtime
// binds sessions, requestState and listen streams to their caller: bind what
// an extension keeps for a caller by it. "" for nil.
func CallerID(p *Principal) string { return principalID(p) }

// SessionFrom returns the 2025-11-25 session the request ctx belongs to came
// on, or nil (2026-07-28 requests have none).
func SessionFrom(ctx context.Context) *Session {
	if c := callFrom(ctx); c != nil {
		return c.sess
	}
	return nil
}

// RequestParams returns the raw params of the request ctx belongs to (with
// _meta, and members the core does not read, such as 2025-11-25
// tools/call's task), nil outside a request.
func RequestParams(ctx context.Context) json.RawMessage {
	if c := callFrom(ctx); c != nil {
		return c.msg.Params
	}
	return nil
}

// Store returns the server's store: Options.Store, SetStore's, or the
// in-memory one NewServer made. An extension keeping state replicas share
// keeps it there; call it once serving starts (SetStore may replace it
// before).
func (s *Server) Store() store.Store { return s.store }

// Options returns the server's options with their defaults filled in.
func (s *Server) Options() Options { return s.opts }
