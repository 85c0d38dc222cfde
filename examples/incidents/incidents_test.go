package incidents

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// newServer returns the incidents server as the generated main builds it.
func newServer() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	RegisterMCP(s, mustDesk())
	return s
}

// mustDesk returns a new desk.
func mustDesk() *Desk {
	d, err := NewDesk()
	if err != nil {
		panic(err)
	}
	return d
}

// call sends one 2026-07-28 request and returns its response body.
func call(t *testing.T, s *mcpruntime.Server, method string, params map[string]any) map[string]json.RawMessage {
	t.Helper()
	return callIn(t, context.Background(), s, method, params)
}

// callIn is call under ctx (which may carry a principal).
func callIn(t *testing.T, ctx context.Context, s *mcpruntime.Server, method string, params map[string]any) map[string]json.RawMessage {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(s.HandleRaw(ctx, raw, nil, nil).Body, &resp); err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRunbookTemplate(t *testing.T) {
	s := newServer()
	resp := call(t, s, "resources/read", map[string]any{"uri": "runbook://payments/current"})
	if !strings.Contains(string(resp["result"]), "Payments incident runbook") {
		t.Errorf("read payments runbook: got %s", resp["result"])
	}
	resp = call(t, s, "resources/read", map[string]any{"uri": "runbook://billing/current"})
	if !strings.Contains(string(resp["error"]), `-32602`) || !strings.Contains(string(resp["error"]), `"uri":"runbook://billing/current"`) {
		t.Errorf("unknown service: got %s %s, want -32602 with data.uri", resp["result"], resp["error"])
	}
	resp = call(t, s, "completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/resource", "uri": "runbook://{service}/current"},
		"argument": map[string]any{"name": "service", "value": "pa"}})
	if !strings.Contains(string(resp["result"]), `"values":["payments"]`) {
		t.Errorf("complete service: got %s %s, want payments", resp["result"], resp["error"])
	}
}

func TestTriagePrompt(t *testing.T) {
	s := newServer()
	resp := call(t, s, "prompts/get", map[string]any{"name": "triage_incident",
		"arguments": map[string]string{"service": "payments", "symptom": "payment failures up"}})
	got := string(resp["result"])
	for _, want := range []string{"Triage the payments incident (payment failures up)", `"type":"resource"`, "runbook://payments/current"} {
		if !strings.Contains(got, want) {
			t.Errorf("triage prompt: %s lacks %q", got, want)
		}
	}
	resp = call(t, s, "prompts/get", map[string]any{"name": "triage_incident", "arguments": map[string]string{"service": "billing"}})
	if !strings.Contains(string(resp["error"]), "-32602") {
		t.Errorf("service outside the enum: got %s %s, want -32602", resp["result"], resp["error"])
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

// createTicket opens a P1 ticket as a caller holding scopes, answering the
// consent question with answer (nil: the client cannot elicit). It returns the
// final response.
// keySeq numbers the idempotency keys of createTicket: each call is a new write.
var keySeq atomic.Int64

func createTicket(t *testing.T, s *mcpruntime.Server, scopes []string, answer map[string]any) map[string]json.RawMessage {
	t.Helper()
	ctx := mcpruntime.WithPrincipal(context.Background(), &mcpruntime.Principal{Subject: "oncall", Scopes: scopes})
	params := map[string]any{"name": "create_incident_ticket", "arguments": map[string]any{
		"title": "Payments timeouts", "severity": "P1", "evidence_ids": []string{"status-payments-0001"},
		"idempotency_key": fmt.Sprintf("key-%08d", keySeq.Add(1))}}
	caps := map[string]any{"elicitation": map[string]any{}}
	for round := 0; round < 3; round++ {
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": caps}
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
		var resp map[string]json.RawMessage
		if err := json.Unmarshal(s.HandleRaw(ctx, raw, nil, nil).Body, &resp); err != nil {
			t.Fatal(err)
		}
		var ir struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  string                     `json:"requestState"`
		}
		_ = json.Unmarshal(resp["result"], &ir)
		if ir.ResultType != "input_required" {
			return resp
		}
		if !strings.Contains(string(ir.InputRequests["mcpgen.confirm"]), `Open a P1 incident titled \"Payments timeouts\"?`) {
			t.Fatalf("consent question: %s", resp["result"])
		}
		params["inputResponses"] = map[string]any{"mcpgen.confirm": answer}
		params["requestState"] = ir.RequestState
	}
	t.Fatal("too many rounds")
	return nil
}

// TestTicketNeedsScopeAndConsent: a ticket opens only for a caller with the
// severity's scope whose user confirms.
func TestTicketNeedsScopeAndConsent(t *testing.T) {
	s := newServer()
	yes := map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
	for _, tt := range []struct {
		scopes []string
		answer map[string]any
		want   string
	}{
		{[]string{"incident:create:p2"}, yes, `"code":"forbidden","message":"insufficient scope: this request needs incident:create:p1"`},
		{[]string{"incident:create:p1"}, map[string]any{"action": "decline"}, `"code":"not_confirmed"`},
		{[]string{"incident:create"}, yes, "INC-0001"},
	} {
		resp := createTicket(t, s, tt.scopes, tt.answer)
		if !strings.Contains(string(resp["result"]), tt.want) {
			t.Errorf("scopes %v, answer %v: got %s %s, want %q", tt.scopes, tt.answer, resp["result"], resp["error"], tt.want)
		}
	}
}

func TestTicketResource(t *testing.T) {
	s := newServer()
	resp := createTicket(t, s, []string{"incident:create:p1"}, map[string]any{"action": "accept", "content": map[string]any{"confirm": true}})
	if !strings.Contains(string(resp["result"]), "INC-0001") {
		t.Fatalf("create ticket: got %s %s", resp["result"], resp["error"])
	}
	reader := mcpruntime.WithPrincipal(context.Background(), &mcpruntime.Principal{Subject: "oncall", Scopes: []string{"incident:read"}})
	resp = callIn(t, reader, s, "resources/read", map[string]any{"uri": "incidents://1"})
	if !strings.Contains(string(resp["result"]), `Payments timeouts`) {
		t.Errorf("read incidents://1: got %s %s", resp["result"], resp["error"])
	}
	// A ticket is read with incident:read: a creator without it, or no caller, is refused.
	creator := mcpruntime.WithPrincipal(context.Background(), &mcpruntime.Principal{Subject: "bot", Scopes: []string{"incident:create:p1"}})
	for _, ctx := range []context.Context{creator, context.Background()} {
		if resp := callIn(t, ctx, s, "resources/read", map[string]any{"uri": "incidents://1"}); !strings.Contains(string(resp["error"]), "-32003") || strings.Contains(string(resp["error"]), "Payments") {
			t.Errorf("read incidents://1 without incident:read: got %s %s, want -32003", resp["result"], resp["error"])
		}
	}
	for _, uri := range []string{"incidents://2", "incidents://x"} {
		if resp := callIn(t, reader, s, "resources/read", map[string]any{"uri": uri}); !strings.Contains(string(resp["error"]), "-32602") {
			t.Errorf("read %s: got %s %s, want -32602", uri, resp["result"], resp["error"])
		}
	}
}

// stillRunning reports whether a create with idempotency key key runs (tests).
func (d *Desk) stillRunning(key string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.running[key] > 0
}
