package runtime

// idempotency.go: a write that carries an idempotency key runs through the
// ledger (runtime/internal/ledger: records, the claim/replay/conflict state
// machine, the lease sweep); the pipeline's replay check and claim are in
// pipeline.go; this file reconciles a lapsed claim and encodes a successful
// result into its done record and back.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
)

// outcomeUnknown is the error of a key whose first run died before recording
// its outcome.
func outcomeUnknown(e *toolEntry, action string) *ToolError {
	return &ToolError{Code: ErrCodeOutcomeUnknown, Details: map[string]any{"action_id": action}, Message: fmt.Sprintf(
		"an earlier call of %s with this idempotency key may or may not have taken effect (its server stopped before recording the outcome); check before acting again", e.tool.Name)}
}

// reconcile asks the tool's Reconcile function for the outcome of the run whose
// claim lapsed, under claim cl (taken over from it).
func (s *Server) reconcile(ctx context.Context, c *call, e *toolEntry, req *ToolRequest, key string, cl *ledger.Claim) (*ToolResult, error) {
	res, err := s.callReconcile(ctx, e, req)
	if err == nil && res == nil { // the earlier run had no effect: run the handler
		c.fx.idempotency = ledger.Fresh.String()
		return s.runClaimed(ctx, c, e, req, key, cl)
	}
	if err != nil || res.IsError {
		s.logger.Warn("reconcile could not tell the outcome", "tool", e.tool.Name, "err", err)
		cl.Abandon() // the claim lapses: ask again later
		c.fx.idempotency = ledger.Unknown.String()
		return nil, outcomeUnknown(e, c.fx.receiptID)
	}
	return s.recordDone(c, e, cl, s.withReceipt(ctx, c, e, res, key)), nil
}

// isAbandoned reports a handler cut off at its deadline, which may still act.
func isAbandoned(err error) bool {
	return errors.Is(err, errCallTimeout) || errors.Is(err, errAbandoned)
}

// callReconcile runs the tool's Reconcile function, a panic being an error.
func (s *Server) callReconcile(ctx context.Context, e *toolEntry, req *ToolRequest) (res *ToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("reconcile panicked", "tool", e.tool.Name, "panic", fmt.Sprint(r))
			res, err = nil, errPanic
		}
	}()
	return e.tool.Reconcile(ctx, req)
}

// recordDone replaces claim cl with the done record of res and returns res. A
// failure to record is logged: the effect happened, so the result still goes to
// the caller; a repeat then finds the claim lapsed (outcome_unknown).
func (s *Server) recordDone(c *call, e *toolEntry, cl *ledger.Claim, res *ToolResult) *ToolResult {
	short := c.fx // an in-process record keeps the receipt short
	if !cl.Private() {
		short = nil
	}
	err := cl.Done(func(b []byte) ([]byte, error) { return appendStored(b, res, c.fx.receipt, short) })
	if err != nil {
		s.logger.Error("idempotency: result not recorded", "tool", e.tool.Name, "action_id", c.fx.receiptID, "err", err)
	}
	return res
}

// appendStored appends a successful result as the ledger keeps it (see
// ledger.Stored). Each piece is encoded as encodeToolResult encodes it (the
// content as appendContent writes it, structured content compacted as is), so that
// the replay has the first answer's bytes. receipt is res.Meta[MetaReceipt] when
// the runtime added it (withReceipt), else nil: a _meta holding only the
// receipt (the common case) is then written without walking the map. short,
// for a record on an in-process store (ledger.Claim.Private), is the call's
// effects: such a receipt is then kept in its short form (ledger.Stored).
func appendStored(b []byte, res *ToolResult, receipt json.RawMessage, short *callEffects) ([]byte, error) {
	b, err := appendContent(append(b, `{"content":[`...), res.Content, nil)
	if err != nil {
		return nil, err
	}
	b = append(b, ']')
	if res.StructuredContent != nil {
		sc, err := compactJSON(res.StructuredContent, jsonwire.Valid(res.StructuredContent))
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"structured":`...), sc...)
	}
	switch {
	case len(res.Meta) == 0:
		return append(b, '}'), nil
	case len(res.Meta) == 1 && receipt != nil && short != nil: // the receipt alone, kept short
		b = ledger.AppendShortReceipt(append(b, `,"receipt":`...), short.externalID, receiptStatus(short), short.receiptAt)
		return append(b, '}'), nil
	case len(res.Meta) == 1 && receipt != nil: // the receipt alone
		b = append(b, storedReceiptMeta...)
		return append(append(b, receipt...), '}', '}'), nil
	}
	b, err = ledger.AppendMeta(b, res.Meta)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// storedReceiptMeta opens the stored _meta of a result whose only member is its
// receipt, as the general case writes it.
var storedReceiptMeta = string(append(jsonwire.AppendString([]byte(`,"meta":{`), MetaReceipt), ':'))

// storedResult rebuilds a stored result for a replay of the call whose
// effects are fx, of tool; encoded, it has the bytes of the first answer. The
// short form of a receipt (ledger.Stored) is expanded from the replay's own
// action id and arguments' digest, the first call's as well.
func storedResult(st ledger.Stored, fx *callEffects, tool string) (*ToolResult, error) {
	res := &ToolResult{StructuredContent: st.Structured}
	if len(st.Content) > 0 {
		res.Content = make([]Content, len(st.Content))
		for i, b := range st.Content {
			res.Content[i].raw = b
		}
	}
	switch {
	case st.Receipt != nil:
		receipt, err := ledger.ExpandReceipt(nil, st.Receipt, fx.receiptID, tool, fx.argsDigest)
		if err != nil {
			return nil, err
		}
		res.Meta = map[string]any{MetaReceipt: json.RawMessage(receipt)}
	case st.Meta != nil:
		res.Meta = make(map[string]any, len(st.Meta))
		for _, m := range st.Meta {
			res.Meta[m.Key] = json.RawMessage(m.Value)
		}
	}
	return res, nil
}
