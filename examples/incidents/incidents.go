// Package incidents is a realistic mcpgen example after the payments incident
// of the seeds: tools that read a fixed service-health snapshot and the recent
// deployments and create a ticket (actions); runbooks and the P1 criteria as
// resources (addressable context the host or model reads); and a triage prompt
// the user picks to start the work the right way. The data are fixed
// (observed at 2026-09-01T00:00:00Z) so that runs only differ by protocol.
//
// The registration code in mcp_gen.go and the server in cmd/incidents-server
// are generated: run go generate in this directory after changing a handler.
//
//mcp:server name=io.github.mcpgen/incidents title="Incidents" version=0.1.0 description="Service health, deployments and incident tickets for on-call triage." repository=https://github.com/mcpgen/mcpgen subfolder=examples/incidents oci=ghcr.io/mcpgen/incidents-server:0.1.0 remote=https://incidents.example.com/mcp
package incidents

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/incidents-server -with redis,otel

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// runbooks holds the runbooks and the P1 criteria.
//
//go:embed runbooks/*.md
var runbooks embed.FS

// A Service is a service the incident desk knows.
type Service string

// The services of the fixture.
const (
	Payments Service = "payments"
	Checkout Service = "checkout"
)

// observedAt is when the fixed snapshot was taken.
const observedAt = "2026-09-01T00:00:00Z"

// StatusInput selects a service-health snapshot.
type StatusInput struct {
	// Service is the service to look at.
	Service Service `json:"service"`
	// WindowMinutes is the length of the window, in minutes.
	WindowMinutes int `json:"window_minutes" jsonschema:"minimum=1,maximum=30"`
}

// A Status is one service-health snapshot.
type Status struct {
	// EvidenceID identifies the snapshot when citing it.
	EvidenceID string `json:"evidence_id"`
	// Service is the service observed.
	Service Service `json:"service"`
	// ObservedAt is the end of the window (RFC 3339).
	ObservedAt string `json:"observed_at"`
	// ErrorRate is the share of failed requests in the window.
	ErrorRate float64 `json:"error_rate"`
	// CheckoutFailureRatio is the share of failed checkouts in the window.
	CheckoutFailureRatio float64 `json:"checkout_failure_ratio"`
}

// GetServiceStatus reads the fixed health snapshot of a service.
//
//mcp:tool get_service_status readonly idempotent openworld=false
func GetServiceStatus(ctx context.Context, in StatusInput) (Status, error) {
	st := Status{EvidenceID: "status-" + string(in.Service) + "-0001", Service: in.Service, ObservedAt: observedAt}
	switch in.Service {
	case Payments:
		st.ErrorRate, st.CheckoutFailureRatio = 0.182, 0.21
	case Checkout:
		st.ErrorRate, st.CheckoutFailureRatio = 0.04, 0.21
	}
	return st, nil
}

// DeploymentsInput selects the deployments of a service.
type DeploymentsInput struct {
	// Service is the service whose deployments are listed.
	Service Service `json:"service"`
}

// A Deployment is one release of a service.
type Deployment struct {
	// EvidenceID identifies the deployment when citing it.
	EvidenceID string `json:"evidence_id"`
	// Version is the released version.
	Version string `json:"version"`
	// At is when it was released (RFC 3339).
	At string `json:"at"`
}

// ListDeployments lists the recent deployments of a service, newest first.
//
//mcp:tool list_deployments readonly idempotent openworld=false
func ListDeployments(ctx context.Context, in DeploymentsInput) ([]Deployment, error) {
	if in.Service != Payments {
		return []Deployment{}, nil
	}
	return []Deployment{{EvidenceID: "deploy-payments-0042", Version: "payments-3.7.0", At: "2026-08-31T23:52:00Z"}}, nil
}

// A Severity is an incident severity.
type Severity string

// The severities.
const (
	P1 Severity = "P1"
	P2 Severity = "P2"
)

// TicketInput describes the incident to open.
type TicketInput struct {
	// Title summarises the incident.
	Title string `json:"title" jsonschema:"minLength=1,maxLength=200"`
	// Severity is the incident's severity.
	Severity Severity `json:"severity"`
	// EvidenceIDs cite the status snapshots and deployments that justify it.
	EvidenceIDs []string `json:"evidence_ids" jsonschema:"minItems=1"`
	// IdempotencyKey identifies this ticket request.
	IdempotencyKey string `json:"idempotency_key" jsonschema:"minLength=8,maxLength=128" mcp:"idempotency_key"`
}

// A Receipt proves that a ticket was created: the desk, not the model, fills it.
// The runtime adds its own execution receipt to the result's _meta
// ("dev.mcpgen/receipt"), with TicketID as the external id.
type Receipt struct {
	// TicketID is the created ticket, e.g. INC-0001.
	TicketID string `json:"ticket_id" mcp:"external_id"`
	// Status is "committed" once the ticket is stored.
	Status string `json:"status"`
}

// Error codes of the desk (the runtime's own are in mcpruntime.ErrCode*).
const (
	// CodeTemporaryUnavailable: the ticket system is down; retry later with the
	// same idempotency key.
	CodeTemporaryUnavailable = "temporary_unavailable"
	// CodeRecordNotFound: an evidence id names nothing; retrying will not help.
	CodeRecordNotFound = "record_not_found"
)

// A Desk is the incident desk: it stores the tickets created in this process
// and, when the environment names a journal (INCIDENTS_JOURNAL), appends each
// ticket to it as a JSON line (replicas sharing the file count side effects).
type Desk struct {
	// mu guards tickets, ids and running.
	mu      sync.Mutex
	tickets []TicketInput
	ids     []string       // the ticket ids, by ticket
	running map[string]int // creates under way, by idempotency key
	down    atomic.Bool
	journal *os.File
	jpath   string
	crash   bool          // INCIDENTS_CRASH_AFTER_COMMIT=1: die right after storing a ticket (fault tests)
	delay   time.Duration // INCIDENTS_DELAY: a slow ticket system answers this long after storing (chaos tests)
	pause   func()        // tests: runs before a ticket is stored
	board   board         // the alerts' acknowledgements (board.go)
}

// NewDesk returns an empty incident desk.
//
//mcp:constructor
func NewDesk() (*Desk, error) {
	d := &Desk{crash: os.Getenv("INCIDENTS_CRASH_AFTER_COMMIT") == "1", running: map[string]int{}}
	if v := os.Getenv("INCIDENTS_DELAY"); v != "" {
		var err error
		if d.delay, err = time.ParseDuration(v); err != nil {
			return nil, fmt.Errorf("INCIDENTS_DELAY: %w", err)
		}
	}
	if path := os.Getenv("INCIDENTS_JOURNAL"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		d.journal, d.jpath = f, path
	}
	return d, nil
}

// SetAvailable switches the ticket system on or off (off: every create fails
// with temporary_unavailable).
func (d *Desk) SetAvailable(up bool) { d.down.Store(!up) }

// CreateIncidentTicket opens an incident ticket and returns its receipt. It
// refuses evidence it does not know, so a ticket always cites real observations.
// The caller needs the scope of the severity (incident:create:p1 for a P1, or
// the broader incident:create), and the user confirms before the ticket opens.
//
//mcp:tool create_incident_ticket destructive scope="incident:create:{severity|lower}" confirm="Open a {severity} incident titled {title}?" reconcile=FindIncidentTicket openworld=false
func (d *Desk) CreateIncidentTicket(ctx context.Context, in TicketInput) (Receipt, error) {
	if d.down.Load() {
		return Receipt{}, &mcpruntime.ToolError{Code: CodeTemporaryUnavailable, Retryable: true,
			Message: "the ticket system is temporarily unavailable; retry later with the same idempotency key"}
	}
	for _, id := range in.EvidenceIDs {
		if !knownEvidence(id) {
			return Receipt{}, &mcpruntime.ToolError{Code: CodeRecordNotFound,
				Message: fmt.Sprintf("unknown evidence id %q: cite ids returned by get_service_status or list_deployments", id)}
		}
	}
	d.mu.Lock()
	d.running[in.IdempotencyKey]++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		if d.running[in.IdempotencyKey]--; d.running[in.IdempotencyKey] == 0 {
			delete(d.running, in.IdempotencyKey)
		}
		d.mu.Unlock()
	}()
	if d.pause != nil {
		d.pause()
	}
	d.mu.Lock()
	n := len(d.tickets) + 1
	id := fmt.Sprintf("INC-%04d", n)
	if d.journal != nil { // ids unique across the replicas sharing the journal
		id = fmt.Sprintf("INC-%d-%04d", os.Getpid(), n)
		line, _ := json.Marshal(journalLine{TicketID: id, IdempotencyKey: in.IdempotencyKey,
			Title: in.Title, Severity: in.Severity, EvidenceIDs: in.EvidenceIDs})
		if _, err := d.journal.Write(append(line, '\n')); err != nil {
			d.mu.Unlock()
			return Receipt{}, err
		}
	}
	d.tickets, d.ids = append(d.tickets, in), append(d.ids, id)
	d.mu.Unlock()
	if d.crash {
		os.Exit(3) // the ticket exists, no reply goes out, nothing is recorded
	}
	time.Sleep(d.delay)
	if srv := mcpruntime.ServerFrom(ctx); srv != nil {
		srv.ResourceUpdated(fmt.Sprintf("incidents://%d", n)) // subscribers to incidents:// hear of it
	}
	return Receipt{TicketID: id, Status: "committed"}, nil
}

// A journalLine is one ticket in the journal replicas share.
type journalLine struct {
	TicketID       string   `json:"ticket_id"`
	IdempotencyKey string   `json:"idempotency_key"`
	Title          string   `json:"title"`
	Severity       Severity `json:"severity"`
	EvidenceIDs    []string `json:"evidence_ids"`
}

// FindIncidentTicket looks up the ticket an earlier CreateIncidentTicket with the
// same idempotency key and request created, for the runtime to reconcile a call
// whose server died (or whose handler was abandoned at its deadline) before the
// outcome was recorded. It looks in the journal the replicas share when there is
// one (a dead replica's tickets are there), else in this desk. A create of the
// key still running here cannot be told yet: an error (outcome_unknown, ask again).
func (d *Desk) FindIncidentTicket(ctx context.Context, in TicketInput) (Receipt, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running[in.IdempotencyKey] > 0 {
		return Receipt{}, false, fmt.Errorf("a create with this idempotency key is still running")
	}
	same := func(key, title string, sev Severity, evidence []string) bool {
		return key == in.IdempotencyKey && title == in.Title && sev == in.Severity && slices.Equal(evidence, in.EvidenceIDs)
	}
	if d.journal == nil {
		for i, t := range d.tickets {
			if same(t.IdempotencyKey, t.Title, t.Severity, t.EvidenceIDs) {
				return Receipt{TicketID: d.ids[i], Status: "committed"}, true, nil
			}
		}
		return Receipt{}, false, nil
	}
	b, err := os.ReadFile(d.jpath)
	if err != nil {
		return Receipt{}, false, err
	}
	for line := range bytes.Lines(b) {
		var e journalLine
		if json.Unmarshal(line, &e) == nil && same(e.IdempotencyKey, e.Title, e.Severity, e.EvidenceIDs) {
			return Receipt{TicketID: e.TicketID, Status: "committed"}, true, nil
		}
	}
	return Receipt{}, false, nil
}

// Tickets returns how many tickets the desk created (side effects, for tests).
func (d *Desk) Tickets() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.tickets)
}

// Ticket is one incident ticket created by this desk, as JSON. Reading it
// needs incident:read (or the broader incident).
//
//mcp:resource incidents://{number} name=incident_ticket title="Incident ticket" mime=application/json scope="incident:read"
func (d *Desk) Ticket(ctx context.Context, number int) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if number < 1 || number > len(d.tickets) {
		return "", fmt.Errorf("%w: no incident %d", mcpruntime.ErrResourceNotFound, number)
	}
	b, err := json.Marshal(d.tickets[number-1])
	return string(b), err
}

// knownEvidence reports whether id names a snapshot or deployment of the fixture.
func knownEvidence(id string) bool {
	switch id {
	case "status-payments-0001", "status-checkout-0001", "deploy-payments-0042":
		return true
	}
	return false
}

// Runbook is the incident runbook of a service.
//
//mcp:resource runbook://{service}/current name=runbook title="Incident runbook" mime=text/markdown
func Runbook(ctx context.Context, service Service) (string, error) {
	b, err := runbooks.ReadFile("runbooks/" + string(service) + ".md")
	if err != nil {
		return "", fmt.Errorf("%w: no runbook for %s", mcpruntime.ErrResourceNotFound, service)
	}
	return string(b), nil
}

// P1Criteria are the criteria an incident must meet to be P1.
//
//mcp:resource runbook://criteria/p1 name=p1_criteria title="P1 criteria" mime=text/markdown
func P1Criteria(ctx context.Context) (string, error) {
	b, err := runbooks.ReadFile("runbooks/p1.md")
	return string(b), err
}

// TriageArgs are the arguments of the triage prompt.
type TriageArgs struct {
	// Service is the service that alerted.
	Service Service `json:"service"`
	// Symptom is what the alert said, e.g. "payment failures up".
	Symptom string `json:"symptom,omitempty"`
}

// TriageIncident starts an incident triage for a service: it asks for
// evidence first and embeds the service's runbook.
//
//mcp:prompt triage_incident title="Triage an incident"
func TriageIncident(ctx context.Context, in TriageArgs) ([]mcpruntime.PromptMessage, error) {
	book, err := Runbook(ctx, in.Service)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Triage the %s incident", in.Service)
	if in.Symptom != "" {
		fmt.Fprintf(&b, " (%s)", in.Symptom)
	}
	b.WriteString(". Check the service status and the recent deployments first; create a ticket only " +
		"when the evidence meets the P1 criteria, and report the ticket id from the receipt.")
	return []mcpruntime.PromptMessage{
		mcpruntime.UserMessage(mcpruntime.Text(b.String())),
		mcpruntime.UserMessage(mcpruntime.EmbeddedResource(mcpruntime.ResourceContents{
			URI: "runbook://" + string(in.Service) + "/current", MIMEType: "text/markdown", Text: book})),
	}, nil
}
