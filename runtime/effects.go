package runtime

// effects.go: what the runtime adds around a write (a tool that is not readonly):
// the idempotency key (idempotency.go) and the execution receipt in the result's
// _meta. A readonly tool has no toolEffects and pays nothing for any of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// MetaReceipt is the _meta key of a successful write's execution receipt.
const MetaReceipt = "dev.mcpgen/receipt"

// Receipt statuses: committed unless the handler reports another stage
// (ReportStatus), e.g. "accepted" for a write an external system queued.
const (
	ReceiptCommitted = "committed"
	ReceiptAccepted  = "accepted"
)

// Defaults of the idempotency options.
const (
	defaultIdempotencyRetention = ledger.DefaultRetention
	defaultIdempotencyWait      = ledger.DefaultWait
	defaultIdempotencyLease     = ledger.DefaultLease
)

// A Receipt is the runtime's evidence that a write succeeded, built after the
// handler returned: it binds the tool, the caller and the validated arguments
// (ActionID, ArgumentsDigest) to what the handler created (ExternalID). Neither
// the model nor the handler can supply one: arguments are closed objects, and the
// runtime builds it from what it observed.
type Receipt struct {
	// ActionID is a stable digest of the tool, the principal's subject, the
	// validated arguments and the idempotency key (when present): a retry with
	// the same key and arguments has the same ActionID.
	ActionID string `json:"action_id"`
	// Tool is the tool called.
	Tool string `json:"tool"`
	// ArgumentsDigest is the SHA-256 of the validated arguments in canonical
	// form (sorted keys, no spaces).
	ArgumentsDigest string `json:"arguments_digest"`
	// ExternalID is the id the handler reported for what it created, if any.
	ExternalID string `json:"external_id,omitempty"`
	// Status is "committed" or the stage the handler reported.
	Status string `json:"status"`
	// OccurredAt is when the handler returned, by the server's clock (RFC 3339, UTC).
	OccurredAt string `json:"occurred_at"`
}

// toolEffects is what a write tool's calls need, fixed at registration.
type toolEffects struct {
	keyName    string // the idempotency key argument, "" for none
	externalID string // the output member holding the external id, "" for none
}

// newToolEffects returns the effects of t: nil for a readonly tool.
func newToolEffects(t *Tool) (*toolEffects, error) {
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		if t.IdempotencyKey != "" {
			return nil, fmt.Errorf("a readonly tool takes no idempotency key (%s)", t.IdempotencyKey)
		}
		return nil, nil
	}
	return &toolEffects{keyName: t.IdempotencyKey, externalID: t.ExternalID}, nil
}

// callEffects is a call's state for its receipt and its audit record.
type callEffects struct {
	admitted    time.Time // when the request was admitted (audit)
	handlerFrom time.Time
	handlerTook time.Duration
	argsDigest  string          // hex SHA-256 of the canonical arguments
	externalID  string          // ReportExternalID; after withReceipt, the receipt's
	status      string          // ReportStatus
	receiptID   string          // the receipt's action id
	receipt     json.RawMessage // the receipt withReceipt added to the result
	receiptAt   time.Time       // its occurred_at
	idempotency string          // fresh, replayed, conflict, in_progress, outcome_unknown, reconciled
	errCode     string          // the isError result's code ("error" for a plain error)
}

// applyEffectDefaults fills the effect options' zero values.
func (s *Server) applyEffectDefaults() {
	o := &s.opts
	if o.Store == nil {
		o.Store = store.NewMemory()
	}
	s.store, s.audit = o.Store, o.Audit
	if o.IdempotencyRetention <= 0 {
		o.IdempotencyRetention = defaultIdempotencyRetention
	}
	if o.IdempotencyWait <= 0 {
		o.IdempotencyWait = defaultIdempotencyWait
	}
	if o.IdempotencyLease <= 0 {
		o.IdempotencyLease = defaultIdempotencyLease
	}
	s.ledger = ledger.New(o.Store, ledger.Config{Retention: o.IdempotencyRetention,
		Wait: o.IdempotencyWait, Lease: o.IdempotencyLease, Logger: s.logger})
}

// SetStore replaces the server's store (runtime/serve's -store); call it before serving.
func (s *Server) SetStore(st store.Store) { s.store = st; s.ledger.SetStore(st); s.setFanout(st) }

// SetAudit replaces the audit logger (Options.Audit; runtime/serve's -audit);
// nil turns the audit trail off. Call it before serving.
func (s *Server) SetAudit(l *slog.Logger) { s.audit = l }

// ReportExternalID records, from a write's handler, the id of what it created
// (e.g. a ticket number) for the call's receipt. It overrides the tool's
// ExternalID output member. Outside a tools/call it does nothing.
func ReportExternalID(ctx context.Context, id string) {
	if c := callFrom(ctx); c != nil && c.fx != nil {
		c.fx.externalID = id
	}
}

// ReportStatus records, from a write's handler, the stage its effect reached
// (e.g. ReceiptAccepted when an external system only queued it); the receipt
// says "committed" otherwise. Outside a tools/call it does nothing.
func ReportStatus(ctx context.Context, status string) {
	if c := callFrom(ctx); c != nil && c.fx != nil {
		c.fx.status = status
	}
}

// effects returns the call's effect state, making it on first use.
func (c *call) effects() *callEffects {
	if c.fx == nil {
		c.fx = &callEffects{}
	}
	return c.fx
}

// timedInvoke runs t's handler like invoke and records its duration.
func (s *Server) timedInvoke(ctx context.Context, c *call, t *Tool, req *ToolRequest) (*ToolResult, error) {
	c.fx.handlerFrom = time.Now()
	res, err := s.invoke(ctx, c, t, req)
	c.fx.handlerTook = time.Since(c.fx.handlerFrom)
	return res, err
}

// withReceipt returns res with the call's receipt added to its _meta.
func (s *Server) withReceipt(ctx context.Context, c *call, e *toolEntry, res *ToolResult, key string) *ToolResult {
	fx := c.fx
	if fx.receiptID == "" { // invokeIdempotent computed it already
		fx.receiptID = ledger.ActionID(e.tool.Name, ledgerWho(ctx), fx.argsDigest, key)
	}
	if fx.externalID == "" && e.fx.externalID != "" {
		fx.externalID = ledger.IDMember(res.StructuredContent, e.fx.externalID)
	}
	fx.receiptAt = time.Now().UTC()
	b := ledger.AppendReceipt(make([]byte, 0, 256), fx.receiptID, e.tool.Name, fx.argsDigest, fx.externalID, receiptStatus(fx), fx.receiptAt)
	out := *res
	out.Meta = make(map[string]any, len(res.Meta)+1)
	for k, v := range res.Meta {
		out.Meta[k] = v
	}
	fx.receipt = json.RawMessage(b)
	out.Meta[MetaReceipt] = fx.receipt
	return &out
}

// receiptStatus is the status the receipt of the call whose effects are fx
// says: the handler's (ReportStatus), else committed.
func receiptStatus(fx *callEffects) string {
	if fx.status == "" {
		return ReceiptCommitted
	}
	return fx.status
}

// ledgerWho is the call's principal as the idempotency ledger keys it:
// subject and client, as sessions, tasks and requestState bind them; empty
// when anonymous.
func ledgerWho(ctx context.Context) ledger.Who {
	if p := PrincipalFrom(ctx); p != nil {
		return ledger.Who{Subject: p.Subject, Client: p.ClientID}
	}
	return ledger.Who{}
}
