package runtime

// pipeline.go: the tools/call pipeline, one chain of named stages in the
// order they run (DESIGN.md, "The call pipeline"):
//
//	validate → authorize → [extension interceptors] → replay check → consent
//	         → claim → handler → receipt                 (audit: conclude, dispatch.go)
//
// Each stage is reported to the extensions observing stages (Stage). The
// handler's own mechanics (deadline, panics) are tools.go's, the ledger's
// idempotency.go's, the receipt's effects.go's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
)

// runTool runs the pipeline of a tools/call whose tool is e: validate the
// arguments, authorize the caller, then the extensions' interceptors around
// the rest (afterAuthorize). Invalid arguments, refusals, handler errors and
// panics become isError results; a nil result is an internal error.
func (s *Server) runTool(ctx context.Context, c *call, e *toolEntry, args json.RawMessage) (*ToolResult, *rpcError) {
	// validate
	st := c.stage(ctx, StageValidate) // extension.go; nil without observers
	fails, err := e.input.Failures(args)
	if err != nil {
		st.end(err)
		s.logger.Error("input schema unusable", "tool", e.tool.Name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s has an unusable input schema", e.tool.Name)
	}
	if fails != nil {
		te := e.invalidArgumentsError(fails)
		st.end(te)
		return toolErrorResult(e, te), nil
	}
	st.end(nil)
	// authorize (scope)
	st = c.stage(ctx, StageAuthorize)
	if err := s.authorizeTool(ctx, e, args); err != nil { // authorize.go
		st.end(err)
		return gateFailed(e, err)
	}
	st.end(nil)
	// interceptors, around the rest
	c.toolReq = ToolRequest{Name: e.tool.Name, Arguments: args, Tool: e.tool, closed: e.input.Closed()}
	var res *ToolResult
	if x := s.exts.Load(); x != nil && len(x.toolCall) > 0 {
		res, err = s.intercepted(ctx, c, e, x) // extension.go
	} else {
		res, err = s.afterAuthorize(ctx, c, e, &c.toolReq)
	}
	return s.toolOutcome(c, e, res, err)
}

// toolOutcome maps what the rest of the pipeline returned to the call's
// result or JSON-RPC error.
func (s *Server) toolOutcome(c *call, e *toolEntry, res *ToolResult, err error) (*ToolResult, *rpcError) {
	switch {
	case err != nil && errors.As(err, new(*RPCError)): // an interceptor's (extension.go)
		return nil, extError(c, e.tool.Name, err)
	case errors.Is(err, errAbandoned):
		return nil, errAbandonedRPC
	case errors.Is(err, errPanic):
		return toolErrorResult(e, panicError(e)), nil
	case errors.Is(err, errCallTimeout):
		return s.timeoutResult(c, e), nil
	case errors.Is(err, ErrNilResult) || err == nil && res == nil:
		s.logger.Error("tool returned no result", "tool", e.tool.Name, "err", ErrNilResult)
		return nil, errorf(CodeInternalError, "internal error: tool %s returned no result", e.tool.Name)
	case err != nil:
		if d := c.deniedScope(); d != nil && errors.Is(err, d) {
			return nil, deniedRPC(d) // RequireScope over HTTP with runtime/auth: 403
		}
		return handlerErrorResult(e, err), nil
	}
	return res, nil
}

// afterAuthorize runs the stages after the scope check: the replay check and
// consent (consent.go), then the handler, through the idempotency ledger and
// with a receipt for a write (invokeWrite).
func (s *Server) afterAuthorize(ctx context.Context, c *call, e *toolEntry, req *ToolRequest) (*ToolResult, error) {
	if e.tool.Confirm != "" {
		// replay check: a replay is not a new action, so it is answered (and
		// a reused key refused) without asking the user again. Without a
		// question the claim finds replays itself.
		if res, err, answered := s.checkReplay(ctx, c, e, req); answered {
			return res, err
		}
		// consent
		st := c.stage(ctx, StageConsent)
		err := confirm(ctx, ask.FillConfirm(e.tool.Confirm, req.Arguments))
		st.end(err)
		if err != nil {
			return nil, err
		}
	}
	if e.fx != nil || c.fx != nil {
		return s.invokeWrite(ctx, c, e, req)
	}
	return s.invoke(ctx, c, e.tool, req)
}

// checkReplay answers a keyed write whose key is done with the same
// arguments (its recorded result) or was used with other arguments
// (idempotency_key_reused), before consent; answered is false for anything
// else (a new action, or one still running: the claim decides).
func (s *Server) checkReplay(ctx context.Context, c *call, e *toolEntry, req *ToolRequest) (*ToolResult, error, bool) {
	if e.fx == nil || e.fx.keyName == "" {
		return nil, nil, false
	}
	key := ledger.KeyArgument(req.Arguments, e.fx.keyName)
	if key == "" {
		return nil, nil, false
	}
	st := c.stage(ctx, StageReplay)
	fx := c.effects()
	fx.argsDigest = ledger.ArgsDigest(req.Arguments)
	subject := principalSubject(ctx)
	d := s.ledger.Peek(ctx, subject, e.tool.Name, key, fx.argsDigest)
	st.end(d.Err)
	if d.Outcome == 0 {
		return nil, nil, false
	}
	fx.receiptID = ledger.ActionID(e.tool.Name, subject, fx.argsDigest, key)
	fx.idempotency = d.Outcome.String()
	res, err := s.ledgerAnswer(c, e, d)
	return res, err, true
}

// invokeWrite runs a write's handler: through the idempotency ledger when the
// call carries a key, and adds the receipt to a successful result. It also runs
// readonly tools when the call is audited (for the handler's duration).
func (s *Server) invokeWrite(ctx context.Context, c *call, e *toolEntry, req *ToolRequest) (*ToolResult, error) {
	fx := c.effects()
	fx.argsDigest = ledger.ArgsDigest(req.Arguments)
	if e.fx == nil { // audited readonly call
		return s.timedInvoke(ctx, c, e.tool, req)
	}
	if e.fx.keyName != "" {
		if key := ledger.KeyArgument(req.Arguments, e.fx.keyName); key != "" {
			return s.invokeIdempotent(ctx, c, e, req, key)
		}
	}
	// handler
	res, err := s.timedInvoke(ctx, c, e.tool, req)
	if err == nil && res != nil && !res.IsError {
		// receipt
		st := c.stage(ctx, StageReceipt)
		res = s.withReceipt(ctx, c, e, res, "") // effects.go
		st.end(nil)
	}
	return res, err
}

// invokeIdempotent runs a write that carries idempotency key key: the claim
// (the ledger's decision: a fresh claim, a replay, a conflict, ...), then
// the handler under the claim (runClaimed).
func (s *Server) invokeIdempotent(ctx context.Context, c *call, e *toolEntry, req *ToolRequest, key string) (*ToolResult, error) {
	fx := c.fx
	subject := principalSubject(ctx)
	fx.receiptID = ledger.ActionID(e.tool.Name, subject, fx.argsDigest, key)
	// claim
	st := c.stage(ctx, StageClaim)
	d := s.ledger.Begin(ctx, subject, e.tool.Name, key, fx.argsDigest, fx.receiptID, e.tool.Reconcile != nil)
	fx.idempotency = d.Outcome.String()
	st.end(d.Err)
	switch d.Outcome {
	case ledger.Fresh:
		return s.runClaimed(ctx, c, e, req, key, d.Claim)
	case ledger.Reconcile:
		return s.reconcile(ctx, c, e, req, key, d.Claim) // idempotency.go
	}
	return s.ledgerAnswer(c, e, d)
}

// runClaimed runs the handler under claim cl and records its outcome with
// the receipt.
func (s *Server) runClaimed(ctx context.Context, c *call, e *toolEntry, req *ToolRequest, key string, cl *ledger.Claim) (*ToolResult, error) {
	// handler
	res, err := s.timedInvoke(ctx, c, e.tool, req)
	switch {
	case isAbandoned(err):
		cl.Abandon() // the handler may still act: let the claim lapse (outcome unknown)
		return res, err
	case err != nil || res == nil || res.IsError:
		cl.Release() // no effect to remember: the key may be tried again
		return res, err
	}
	// receipt
	st := c.stage(ctx, StageReceipt)
	res = s.recordDone(c, e, cl, s.withReceipt(ctx, c, e, res, key)) // idempotency.go
	st.end(nil)
	return res, nil
}

// ledgerAnswer is the answer of a ledger decision that runs no handler: a
// replay's recorded result, or the error of a conflict, a call still
// running, a lapsed one, or a store that failed.
func (s *Server) ledgerAnswer(c *call, e *toolEntry, d ledger.Decision) (*ToolResult, error) {
	switch d.Outcome {
	case ledger.Replayed:
		return storedResult(d.Result, c.fx, e.tool.Name) // idempotency.go
	case ledger.Conflict:
		return nil, &ToolError{Code: ErrCodeIdempotencyKeyReused, Message: fmt.Sprintf(
			"the idempotency key was already used with other arguments for %s; use a new key for a new action", e.tool.Name)}
	case ledger.InProgress:
		return nil, &ToolError{Code: ErrCodeInProgress, Retryable: true, Message: fmt.Sprintf(
			"a call of %s with this idempotency key is still running; retry later with the same key", e.tool.Name),
			Details: map[string]any{"action_id": d.Action}}
	case ledger.Unknown:
		return nil, outcomeUnknown(e, d.Action)
	}
	s.logger.Error("idempotency ledger unavailable", "tool", e.tool.Name, "err", d.Err)
	return nil, &ToolError{Code: ErrCodeUnavailable, Retryable: true,
		Message: "the idempotency ledger is unavailable; the tool did not run; retry later with the same key"}
}
