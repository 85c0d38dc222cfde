package incidents

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// newServer returns the incidents server as the generated main builds it.
func newServer() *mcpruntime.Server { return deskServer(mustDesk()) }

// mustDesk returns a new desk.
func mustDesk() *Desk {
	d, err := NewDesk()
	if err != nil {
		panic(err)
	}
	return d
}

// eras are the two protocol eras every protocol test runs in.
var eras = []string{mcpgentest.Modern, mcpgentest.Legacy}

func TestRunbookTemplate(t *testing.T) {
	s := newServer()
	for _, era := range eras {
		got, rerr := mcpgentest.ReadResource(t, s, "runbook://payments/current", mcpgentest.Version(era))
		if rerr != nil || len(got) != 1 || !strings.Contains(got[0].Text, "Payments incident runbook") {
			t.Errorf("%s: read payments runbook: got %+v, %v", era, got, rerr)
		}
		// A missing item is the era's resource-not-found error, with the URI.
		want := map[string]int{mcpgentest.Modern: -32602, mcpgentest.Legacy: -32002}[era]
		_, rerr = mcpgentest.ReadResource(t, s, "runbook://billing/current", mcpgentest.Version(era))
		if rerr == nil || rerr.Code != want || !strings.Contains(string(rerr.Data), `"uri":"runbook://billing/current"`) {
			t.Errorf("%s: unknown service: got %v, want %d with data.uri", era, rerr, want)
		}
	}
	raw, rerr := mcpgentest.Call(t, s, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/resource", "uri": "runbook://{service}/current"},
		"argument": map[string]any{"name": "service", "value": "pa"}})
	if rerr != nil || !strings.Contains(string(raw), `"values":["payments"]`) {
		t.Errorf("complete service: got %s %v, want payments", raw, rerr)
	}
}

func TestTriagePrompt(t *testing.T) {
	s := newServer()
	for _, era := range eras {
		res, rerr := mcpgentest.GetPrompt(t, s, "triage_incident",
			map[string]string{"service": "payments", "symptom": "payment failures up"}, mcpgentest.Version(era))
		if rerr != nil || len(res.Messages) != 2 {
			t.Fatalf("%s: triage prompt: got %+v, %v; want two messages", era, res, rerr)
		}
		if got := res.Messages[0].Content.Text; !strings.HasPrefix(got, "Triage the payments incident (payment failures up)") {
			t.Errorf("%s: first message %q", era, got)
		}
		if r := res.Messages[1].Content.Resource; res.Messages[1].Content.Type != "resource" || r == nil || r.URI != "runbook://payments/current" {
			t.Errorf("%s: second message %+v, want the embedded runbook", era, res.Messages[1].Content)
		}
		_, rerr = mcpgentest.GetPrompt(t, s, "triage_incident", map[string]string{"service": "billing"}, mcpgentest.Version(era))
		if rerr == nil || rerr.Code != -32602 {
			t.Errorf("%s: service outside the enum: got %v, want -32602", era, rerr)
		}
	}
}

func TestTicketNeedsKnownEvidence(t *testing.T) {
	d := mustDesk()
	if _, err := d.CreateIncidentTicket(context.Background(), TicketInput{Title: "x", Severity: P1, EvidenceIDs: []string{"made-up"}}); err == nil {
		t.Error("ticket with made-up evidence: got no error")
	}
	for i := 1; i <= 2; i++ {
		r, err := d.CreateIncidentTicket(context.Background(), TicketInput{Title: "Payments timeouts", Severity: P1,
			EvidenceIDs: []string{"status-payments-0001", "deploy-payments-0042"}})
		if want := fmt.Sprintf("INC-%04d", i); err != nil || r.TicketID != want || r.Status != "committed" {
			t.Errorf("ticket %d: got %+v, %v; want %s committed", i, r, err, want)
		}
	}
}

// keySeq numbers the idempotency keys of createTicket: each call is a new write.
var keySeq atomic.Int64

// createTicket opens a P1 ticket with the given call options (caller, consent
// answer, era) and returns its receipt or ToolError.
func createTicket(t *testing.T, s *mcpruntime.Server, opts ...mcpgentest.Option) (Receipt, *mcpruntime.ToolError) {
	t.Helper()
	return mcpgentest.CallTool[Receipt](t, s, "create_incident_ticket", TicketInput{
		Title: "Payments timeouts", Severity: P1, EvidenceIDs: []string{"status-payments-0001"},
		IdempotencyKey: fmt.Sprintf("key-%08d", keySeq.Add(1))}, opts...)
}

// TestTicketNeedsScopeAndConsent: a ticket opens only for a caller with the
// severity's scope whose user confirms, in both eras.
func TestTicketNeedsScopeAndConsent(t *testing.T) {
	for _, era := range eras {
		s := newServer()
		v := mcpgentest.Version(era)
		_, te := createTicket(t, s, v, mcpgentest.As("oncall", "incident:create:p2"), mcpgentest.Confirm(true))
		if te == nil || te.Code != mcpruntime.ErrCodeForbidden || !strings.Contains(te.Message, "needs incident:create:p1") {
			t.Errorf("%s: scope p2 only: got %v, want forbidden naming incident:create:p1", era, te)
		}
		_, te = createTicket(t, s, v, mcpgentest.As("oncall", "incident:create:p1"), mcpgentest.Confirm(false))
		if te == nil || te.Code != mcpruntime.ErrCodeNotConfirmed || !strings.Contains(te.Message, `Open a P1 incident titled "Payments timeouts"?`) {
			t.Errorf("%s: declined: got %v, want not_confirmed quoting the question", era, te)
		}
		r, te := createTicket(t, s, v, mcpgentest.As("oncall", "incident:create"), mcpgentest.Confirm(true))
		if te != nil || r.TicketID != "INC-0001" || r.Status != "committed" {
			t.Errorf("%s: confirmed: got %+v, %v; want INC-0001 committed", era, r, te)
		}
	}
}

func TestTicketResource(t *testing.T) {
	s := newServer()
	if r, te := createTicket(t, s, mcpgentest.As("oncall", "incident:create:p1"), mcpgentest.Confirm(true)); te != nil || r.TicketID != "INC-0001" {
		t.Fatalf("create ticket: got %+v, %v", r, te)
	}
	got, rerr := mcpgentest.ReadResource(t, s, "incidents://1", mcpgentest.As("oncall", "incident:read"))
	if rerr != nil || len(got) != 1 || !strings.Contains(got[0].Text, "Payments timeouts") || got[0].MIMEType != "application/json" {
		t.Errorf("read incidents://1: got %+v, %v", got, rerr)
	}
	// A ticket is read with incident:read: a creator without it, or no caller, is refused.
	for _, who := range []mcpgentest.Option{mcpgentest.As("bot", "incident:create:p1"), mcpgentest.Anonymous()} {
		if got, rerr := mcpgentest.ReadResource(t, s, "incidents://1", who); rerr == nil || rerr.Code != -32003 || strings.Contains(rerr.Message, "Payments") {
			t.Errorf("read incidents://1 without incident:read: got %+v, %v, want -32003", got, rerr)
		}
	}
	for _, uri := range []string{"incidents://2", "incidents://x"} {
		if _, rerr := mcpgentest.ReadResource(t, s, uri, mcpgentest.As("oncall", "incident:read")); rerr == nil || rerr.Code != -32602 {
			t.Errorf("read %s: got %v, want -32602", uri, rerr)
		}
	}
}

// stillRunning reports whether a create with idempotency key key runs (tests).
func (d *Desk) stillRunning(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running[key] > 0
}
