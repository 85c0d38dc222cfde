package incidents

// board.go: an MCP Apps view (docs/apps.md). show_incident_board returns the
// open alerts; hosts with MCP Apps render them with board.html, whose
// Acknowledge button calls acknowledge_alert, a tool only views may call.
// Hosts without MCP Apps show the board's summary text instead.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// A board holds the acknowledgements of the alerts.
type board struct {
	// mu guards acks and runs.
	mu   sync.Mutex
	acks map[string]string // ack id by alert id
	runs int               // acknowledge_alert handler runs (side effects, for tests)
}

// An Alert is an open alert of the fixed snapshot.
type Alert struct {
	// ID identifies the alert, e.g. alert-payments-0001.
	ID string `json:"id"`
	// Service is the service that alerted.
	Service Service `json:"service"`
	// Severity is the severity the alert suggests.
	Severity Severity `json:"severity"`
	// Summary says what crossed its threshold.
	Summary string `json:"summary"`
	// AckID is the acknowledgement's id once someone acknowledged the alert.
	AckID string `json:"ack_id,omitempty"`
}

// alerts are the open alerts of the fixed snapshot, from the service status.
var alerts = []Alert{
	{ID: "alert-payments-0001", Service: Payments, Severity: P1, Summary: "error rate 18.2 %, checkout failures 21 %"},
	{ID: "alert-checkout-0001", Service: Checkout, Severity: P2, Summary: "checkout failures 21 %"},
}

// A Board is the incident board: the open alerts and what a host without a
// view shows of them.
type Board struct {
	// Summary lists the alerts, one line each.
	Summary string `json:"summary"`
	// ObservedAt is when the snapshot was taken (RFC 3339).
	ObservedAt string `json:"observed_at"`
	// Alerts are the open alerts, most severe first.
	Alerts []Alert `json:"alerts"`
}

// ShowIncidentBoard shows the open alerts of the incident desk on a board
// where the user acknowledges them. The result lists each alert with its
// service, severity and acknowledgement.
//
//mcp:tool show_incident_board title="Incident board" readonly idempotent openworld=false ui=board.html
//mcp:view uri=ui://incidents/board title="Incident board" border=true
func (d *Desk) ShowIncidentBoard(ctx context.Context) (Board, error) {
	b := Board{ObservedAt: observedAt}
	d.board.mu.Lock()
	defer d.board.mu.Unlock()
	var lines []string
	for _, a := range alerts {
		a.AckID = d.board.acks[a.ID]
		state := "unacknowledged"
		if a.AckID != "" {
			state = "acknowledged (" + a.AckID + ")"
		}
		lines = append(lines, fmt.Sprintf("%s %s %s: %s, %s", a.Severity, a.ID, a.Service, a.Summary, state))
		b.Alerts = append(b.Alerts, a)
	}
	b.Summary = strings.Join(lines, "\n")
	return b, nil
}

// AckInput names the alert to acknowledge.
type AckInput struct {
	// AlertID is the alert, as the board lists it.
	AlertID string `json:"alert_id" jsonschema:"minLength=1"`
	// IdempotencyKey identifies this acknowledgement: a retry with the same key
	// acknowledges once.
	IdempotencyKey string `json:"idempotency_key" jsonschema:"minLength=8,maxLength=128" mcp:"idempotency_key"`
}

// An Ack is the receipt of an acknowledgement.
type Ack struct {
	// AlertID is the acknowledged alert.
	AlertID string `json:"alert_id"`
	// AckID identifies the acknowledgement, e.g. ACK-0001.
	AckID string `json:"ack_id" mcp:"external_id"`
	// Status is "acknowledged".
	Status string `json:"status"`
}

// AcknowledgeAlert acknowledges an open alert of the incident board: the
// on-call engineer owns it from now on. Only the board's view calls it.
//
//mcp:tool acknowledge_alert title="Acknowledge an alert" idempotent destructive=false openworld=false visibility=app ui=ui://incidents/board
func (d *Desk) AcknowledgeAlert(ctx context.Context, in AckInput) (Ack, error) {
	known := false
	for _, a := range alerts {
		known = known || a.ID == in.AlertID
	}
	if !known {
		return Ack{}, &mcpruntime.ToolError{Code: CodeRecordNotFound, Message: fmt.Sprintf("unknown alert %q", in.AlertID)}
	}
	d.board.mu.Lock()
	defer d.board.mu.Unlock()
	d.board.runs++
	if d.board.acks == nil {
		d.board.acks = map[string]string{}
	}
	id := d.board.acks[in.AlertID]
	if id == "" {
		id = fmt.Sprintf("ACK-%04d", len(d.board.acks)+1)
		d.board.acks[in.AlertID] = id
	}
	return Ack{AlertID: in.AlertID, AckID: id, Status: "acknowledged"}, nil
}

// AckRuns returns how many times acknowledge_alert's handler ran (side
// effects, for tests).
func (d *Desk) AckRuns() int {
	d.board.mu.Lock()
	defer d.board.mu.Unlock()
	return d.board.runs
}
