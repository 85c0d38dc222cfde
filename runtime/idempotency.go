package runtime

// idempotency.go: the ledger that makes a write with an idempotency key run at
// most once per (principal, tool, key) within Options.IdempotencyRetention.
//
// Before the handler runs, the call claims the key with an atomic put-if-absent
// of a "running" record (the digest of its arguments, its action id, a lease it
// renews while the handler runs). A successful result replaces the record, by
// compare-and-set, with a "done" record holding the result; a failed call (an
// isError result, an error, a panic, a question for the client) deletes its claim
// so that the same key can be tried again. A repeat of the key:
//   - with other arguments: idempotency_key_reused (not retryable);
//   - finding "done": the stored result, byte for byte (the receipt included),
//     without running the handler;
//   - finding "running" with a live lease: waits for the result (polling, up to
//     Options.IdempotencyWait and the call's deadline), then in_progress
//     (retryable);
//   - finding "running" with a lapsed lease (the process died, or the handler was
//     abandoned at its deadline): the tool's Reconcile looks the outcome up, or,
//     without one, outcome_unknown (not retryable; details carry the action id).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Idempotency outcomes, as the audit trail names them.
const (
	idemFresh      = "fresh"
	idemReplayed   = "replayed"
	idemConflict   = "conflict"
	idemInProgress = "in_progress"
	idemUnknown    = "outcome_unknown"
	idemReconciled = "reconciled"
	idemStoreError = "store_error"
)

// Ledger record states.
const (
	stateRunning = "running"
	stateDone    = "done"
)

// A ledgerRecord is the value under a ledger key.
type ledgerRecord struct {
	State  string          `json:"state"`
	Args   string          `json:"args"`            // canonicalDigest of the arguments
	Action string          `json:"action"`          // the receipt's action id
	Lease  int64           `json:"lease,omitempty"` // running: claim valid until (Unix ms)
	Result json.RawMessage `json:"result,omitempty"`
}

// A storedResult is a successful result as the ledger keeps it: each piece
// already encoded, so that a replay encodes to the same bytes.
type storedResult struct {
	Content    []json.RawMessage          `json:"content,omitempty"`
	Structured json.RawMessage            `json:"structured,omitempty"`
	Meta       map[string]json.RawMessage `json:"meta,omitempty"`
}

// ledgerKey is the store key of (subject, tool, key): a digest, so that neither
// the caller's key nor its subject appear in the store's key space.
func ledgerKey(subject, tool, key string) string {
	sum := digestParts(subject, tool, key)
	const prefix = "mcpgen:idem:"
	var b [len(prefix) + 40]byte
	copy(b[:], prefix)
	hex.Encode(b[len(prefix):], sum[:20])
	return string(b[:])
}

// digestParts returns the SHA-256 of parts, each written as its length, ':' and
// its bytes.
func digestParts(parts ...string) [sha256.Size]byte {
	var buf [256]byte
	b := buf[:0]
	for _, part := range parts {
		b = append(strconv.AppendInt(b, int64(len(part)), 10), ':')
		b = append(b, part...)
	}
	return sha256.Sum256(b)
}

// invokeIdempotent runs a write that carries idempotency key key.
func (s *Server) invokeIdempotent(ctx context.Context, c *call, e *toolEntry, req *ToolRequest, key string) (*ToolResult, error) {
	fx := c.fx
	subject := principalSubject(ctx)
	lk := ledgerKey(subject, e.tool.Name, key)
	action := actionID(e.tool.Name, subject, fx.argsDigest, key)
	fx.receiptID = action
	sctx := context.WithoutCancel(ctx) // the ledger is kept even when the caller gives up
	until := time.Now().Add(s.opts.IdempotencyWait)
	if d, ok := ctx.Deadline(); ok && d.Before(until) {
		until = d
	}
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		mine := s.runningRecord(fx.argsDigest, action)
		claimed, err := s.store.PutIfAbsent(sctx, lk, mine, s.opts.IdempotencyRetention)
		if err != nil {
			return s.ledgerFailed(c, e, err)
		}
		if claimed {
			fx.idempotency = idemFresh
			return s.runClaimed(ctx, sctx, c, e, req, key, lk, mine)
		}
		cur, found, err := s.store.Get(sctx, lk)
		if err != nil {
			return s.ledgerFailed(c, e, err)
		}
		if !found {
			continue // released or expired meanwhile: claim it
		}
		var rec ledgerRecord
		if err := json.Unmarshal(cur, &rec); err != nil {
			return s.ledgerFailed(c, e, fmt.Errorf("ledger record: %w", err))
		}
		switch {
		case rec.Args != fx.argsDigest:
			fx.idempotency = idemConflict
			return nil, &ToolError{Code: ErrCodeIdempotencyKeyReused, Message: fmt.Sprintf(
				"the idempotency key was already used with other arguments for %s; use a new key for a new action", e.tool.Name)}
		case rec.State == stateDone:
			fx.idempotency = idemReplayed
			return decodeStored(rec.Result)
		case time.Now().UnixMilli() >= rec.Lease: // the first run's claim lapsed
			if e.tool.Reconcile == nil {
				fx.idempotency = idemUnknown
				return nil, outcomeUnknown(e, rec.Action)
			}
			ok, err := s.store.CompareAndSet(sctx, lk, cur, mine, s.opts.IdempotencyRetention)
			if err != nil {
				return s.ledgerFailed(c, e, err)
			}
			if ok {
				fx.idempotency = idemReconciled
				return s.reconcile(ctx, sctx, c, e, req, key, lk, mine)
			}
			continue
		}
		if !time.Now().Add(pause).Before(until) {
			fx.idempotency = idemInProgress
			return nil, &ToolError{Code: ErrCodeInProgress, Retryable: true, Message: fmt.Sprintf(
				"a call of %s with this idempotency key is still running; retry later with the same key", e.tool.Name),
				Details: map[string]any{"action_id": rec.Action}}
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			fx.idempotency = idemInProgress
			return nil, &ToolError{Code: ErrCodeInProgress, Retryable: true, Message: "a call with this idempotency key is still running",
				Details: map[string]any{"action_id": rec.Action}}
		case <-t.C:
		}
	}
}

// outcomeUnknown is the error of a key whose first run died before recording
// its outcome.
func outcomeUnknown(e *toolEntry, action string) *ToolError {
	return &ToolError{Code: ErrCodeOutcomeUnknown, Details: map[string]any{"action_id": action}, Message: fmt.Sprintf(
		"an earlier call of %s with this idempotency key may or may not have taken effect (its server stopped before recording the outcome); check before acting again", e.tool.Name)}
}

// ledgerFailed answers a call whose ledger could not be read or written: the
// handler did not run.
func (s *Server) ledgerFailed(c *call, e *toolEntry, err error) (*ToolResult, error) {
	s.logger.Error("idempotency ledger unavailable", "tool", e.tool.Name, "err", err)
	c.fx.idempotency = idemStoreError
	return nil, &ToolError{Code: ErrCodeUnavailable, Retryable: true,
		Message: "the idempotency ledger is unavailable; the tool did not run; retry later with the same key"}
}

// runningRecord is the claim of a call about to run.
func (s *Server) runningRecord(args, action string) []byte {
	return appendRecord(make([]byte, 0, 160), stateRunning, args, action, time.Now().Add(s.opts.IdempotencyLease).UnixMilli(), nil)
}

// runClaimed runs the handler under the claim mine and records its outcome.
func (s *Server) runClaimed(ctx, sctx context.Context, c *call, e *toolEntry, req *ToolRequest, key, lk string, mine []byte) (*ToolResult, error) {
	lease := s.keepLease(sctx, lk, mine)
	res, err := s.timedInvoke(ctx, c, e.tool, req)
	cur := lease.stop()
	switch {
	case errors.Is(err, errCallTimeout) || errors.Is(err, errAbandoned):
		return res, err // the handler may still act: let the claim lapse (outcome unknown)
	case err != nil || res == nil || res.IsError:
		s.release(sctx, lk, cur) // no effect to remember: the key may be tried again
		return res, err
	}
	return s.recordDone(sctx, c, e, lk, cur, s.withReceipt(ctx, c, e, res, key)), nil
}

// reconcile asks the tool's Reconcile function for the outcome of the run whose
// claim lapsed, under the claim mine.
func (s *Server) reconcile(ctx, sctx context.Context, c *call, e *toolEntry, req *ToolRequest, key, lk string, mine []byte) (*ToolResult, error) {
	lease := s.keepLease(sctx, lk, mine)
	res, err := s.callReconcile(ctx, e, req)
	cur := lease.stop()
	if err == nil && res == nil { // the earlier run had no effect: run the handler
		c.fx.idempotency = idemFresh
		return s.runClaimed(ctx, sctx, c, e, req, key, lk, cur)
	}
	if err != nil || res.IsError {
		s.logger.Warn("reconcile could not tell the outcome", "tool", e.tool.Name, "err", err)
		c.fx.idempotency = idemUnknown
		return nil, outcomeUnknown(e, c.fx.receiptID) // the claim lapses: ask again later
	}
	return s.recordDone(sctx, c, e, lk, cur, s.withReceipt(ctx, c, e, res, key)), nil
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

// recordDone replaces the claim cur with the done record of res and returns res.
// A failure to record is logged: the effect happened, so the result still goes
// to the caller; a repeat then finds the claim lapsed (outcome_unknown).
func (s *Server) recordDone(sctx context.Context, c *call, e *toolEntry, lk string, cur []byte, res *ToolResult) *ToolResult {
	done, err := appendDone(make([]byte, 0, 512), c.fx.argsDigest, c.fx.receiptID, res)
	if err == nil {
		var ok bool
		if ok, err = s.store.CompareAndSet(sctx, lk, cur, done, s.opts.IdempotencyRetention); err == nil && !ok {
			err = errors.New("the claim was taken over (its lease lapsed)")
		}
	}
	if err != nil {
		s.logger.Error("idempotency: result not recorded", "tool", e.tool.Name, "action_id", c.fx.receiptID, "err", err)
	}
	return res
}

// release deletes the claim cur if the key still holds it.
func (s *Server) release(sctx context.Context, lk string, cur []byte) {
	if got, ok, err := s.store.Get(sctx, lk); err == nil && ok && bytes.Equal(got, cur) {
		if err := s.store.Delete(sctx, lk); err != nil {
			s.logger.Error("idempotency: claim not released", "err", err)
		}
	}
}

// A leaseKeeper renews a running claim until stopped.
type leaseKeeper struct {
	s       *Server
	ctx     context.Context
	key     string
	mu      sync.Mutex
	cur     []byte // the claim as the store holds it
	stopped bool
	timer   *time.Timer
}

// keepLease renews the claim cur every third of the lease.
func (s *Server) keepLease(sctx context.Context, lk string, cur []byte) *leaseKeeper {
	l := &leaseKeeper{s: s, ctx: sctx, key: lk, cur: cur}
	l.mu.Lock()
	l.timer = time.AfterFunc(s.opts.IdempotencyLease/3, l.renew)
	l.mu.Unlock()
	return l
}

// renew extends the claim's lease.
func (l *leaseKeeper) renew() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	var rec ledgerRecord
	if json.Unmarshal(l.cur, &rec) != nil {
		return
	}
	next := l.s.runningRecord(rec.Args, rec.Action)
	ok, err := l.s.store.CompareAndSet(l.ctx, l.key, l.cur, next, l.s.opts.IdempotencyRetention)
	switch {
	case err != nil:
		l.s.logger.Warn("idempotency: lease not renewed", "err", err)
	case !ok:
		l.s.logger.Error("idempotency: claim lost while the handler runs", "action_id", rec.Action)
		return
	default:
		l.cur = next
	}
	l.timer.Reset(l.s.opts.IdempotencyLease / 3)
}

// stop ends the renewals and returns the claim as the store holds it.
func (l *leaseKeeper) stop() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	l.timer.Stop()
	return l.cur
}

// appendDone appends the done record of res (appendRecord's bytes, with
// appendStored's result).
func appendDone(b []byte, args, action string, res *ToolResult) ([]byte, error) {
	b = appendRecordHead(b, stateDone, args, action, 0)
	b, err := appendStored(append(b, `,"result":`...), res)
	return append(b, '}'), err
}

// appendStored appends a successful result as the ledger keeps it. Each piece is
// encoded as encodeToolResult encodes it (text blocks with appendJSONString,
// structured content compacted as is), so that the replay has the first answer's
// bytes.
func appendStored(b []byte, res *ToolResult) ([]byte, error) {
	b = append(b, `{"content":[`...)
	for i, block := range res.Content {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case block.raw != nil:
			b = append(b, block.raw...)
		case block.Type == contentText && block.Meta == nil:
			b = append(b, `{"type":"text","text":`...)
			b = append(jsonwire.AppendString(b, block.Text), '}')
		default:
			enc, err := json.Marshal(block)
			if err != nil {
				return nil, err
			}
			b = append(b, enc...)
		}
	}
	b = append(b, ']')
	if res.StructuredContent != nil {
		sc, err := compactJSON(res.StructuredContent, jsonwire.Valid(res.StructuredContent))
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"structured":`...), sc...)
	}
	if len(res.Meta) > 0 {
		keys := make([]string, 0, len(res.Meta))
		for k := range res.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, `,"meta":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonwire.AppendString(b, k), ':')
			if raw, ok := res.Meta[k].(json.RawMessage); ok {
				b = append(b, raw...)
				continue
			}
			enc, err := json.Marshal(res.Meta[k])
			if err != nil {
				return nil, err
			}
			b = append(b, enc...)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendRecord appends a ledger record (the JSON of ledgerRecord, built by hand:
// records are written on every keyed call).
func appendRecord(b []byte, state, args, action string, lease int64, result []byte) []byte {
	b = appendRecordHead(b, state, args, action, lease)
	if result != nil {
		b = append(append(b, `,"result":`...), result...)
	}
	return append(b, '}')
}

// appendRecordHead appends a ledger record up to its result, without the '}'.
func appendRecordHead(b []byte, state, args, action string, lease int64) []byte {
	b = append(b, `{"state":"`...)
	b = append(b, state...)
	b = append(b, `","args":"`...)
	b = append(b, args...)
	b = append(b, `","action":"`...)
	b = append(b, action...)
	b = append(b, '"')
	if lease != 0 {
		b = strconv.AppendInt(append(b, `,"lease":`...), lease, 10)
	}
	return b
}

// decodeStored rebuilds a stored result; encoded, it has the bytes of the first.
func decodeStored(raw json.RawMessage) (*ToolResult, error) {
	var st storedResult
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("idempotency: stored result: %w", err)
	}
	res := &ToolResult{StructuredContent: st.Structured}
	for _, b := range st.Content {
		res.Content = append(res.Content, Content{raw: b})
	}
	if st.Meta != nil {
		res.Meta = make(map[string]any, len(st.Meta))
		for k, v := range st.Meta {
			res.Meta[k] = v
		}
	}
	return res, nil
}
