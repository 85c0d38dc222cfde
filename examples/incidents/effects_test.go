package incidents

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/examples/incidents/incidentsclient"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// deskServer returns the incidents server on desk d, as the generated main builds it.
func deskServer(d *Desk) *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	RegisterMCP(s, d)
	return s
}

// ticketArgs are valid create_incident_ticket arguments with idempotency key key.
func ticketArgs(key string) map[string]any {
	return map[string]any{"title": "Payments timeouts", "severity": "P1",
		"evidence_ids": []string{"status-payments-0001", "deploy-payments-0042"}, "idempotency_key": key}
}

// toolCall sends a 2026-07-28 tools/call under ctx, as the on-call engineer
// (incident:create) unless ctx names another caller, and confirms the consent
// question the tool asks; it returns the final raw result object (nil when
// there is no result) and the whole final response.
func toolCall(ctx context.Context, t *testing.T, s *mcpruntime.Server, id int, args map[string]any) (json.RawMessage, []byte) {
	t.Helper()
	if mcpruntime.PrincipalFrom(ctx) == nil {
		ctx = mcpruntime.WithPrincipal(ctx, &mcpruntime.Principal{Subject: "oncall", Scopes: []string{"incident:create"}})
	}
	params := map[string]any{"name": "create_incident_ticket", "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}},
		}}
	for range 3 {
		raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
		if err != nil {
			t.Fatal(err)
		}
		body := s.HandleRaw(ctx, raw, nil, nil).Body
		if body == nil {
			return nil, nil
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("response %s: %v", body, err)
		}
		var ir struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		}
		_ = json.Unmarshal(resp.Result, &ir)
		if ir.ResultType != "input_required" {
			return resp.Result, body
		}
		params["inputResponses"] = map[string]any{incidentsclient.ConfirmKey: map[string]any{
			"action": "accept", "content": map[string]any{"confirm": true}}}
		params["requestState"] = ir.RequestState
	}
	t.Fatal("still input_required after 3 rounds")
	return nil, nil
}

// A callResult is the part of a CallToolResult the tests read.
type callResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta struct {
		Receipt *mcpruntime.Receipt   `json:"dev.mcpgen/receipt"`
		Error   *mcpruntime.ToolError `json:"dev.mcpgen/error"`
	} `json:"_meta"`
}

func decodeResult(t *testing.T, raw json.RawMessage) callResult {
	t.Helper()
	var r callResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	return r
}

// TestBoundary is the seeds' boundary test: arguments that fail the schema, or
// carry a forged receipt, never reach the handler and get no receipt.
func TestBoundary(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	bad := ticketArgs("key-boundary-1")
	bad["severity"] = "P9"
	forged := ticketArgs("key-boundary-2")
	forged["receipt"] = map[string]any{"external_id": "INC-9999", "status": "committed"}
	for name, tc := range map[string]struct {
		args    map[string]any
		pointer string
	}{
		"invalid severity": {bad, "/severity"},
		"forged receipt":   {forged, ""},
		"no key":           {map[string]any{"title": "x", "severity": "P1", "evidence_ids": []string{"status-payments-0001"}}, ""},
	} {
		raw, _ := toolCall(context.Background(), t, s, 1, tc.args)
		r := decodeResult(t, raw)
		if !r.IsError || r.Meta.Error == nil || r.Meta.Error.Code != mcpruntime.ErrCodeInvalidArguments || !r.Meta.Error.Retryable {
			t.Errorf("%s: got %s, want a retryable invalid_arguments error", name, raw)
		}
		if r.Meta.Receipt != nil {
			t.Errorf("%s: got a receipt %+v", name, r.Meta.Receipt)
		}
		if tc.pointer != "" && !strings.Contains(string(raw), `"pointer":"`+tc.pointer+`"`) {
			t.Errorf("%s: details lack pointer %s: %s", name, tc.pointer, raw)
		}
	}
	if !strings.Contains(string(mustRaw(toolCall(context.Background(), t, s, 2, forged))), `additionalProperties`) {
		t.Error("forged receipt: not refused by additionalProperties")
	}
	if n := d.Tickets(); n != 0 {
		t.Fatalf("the handler created %d tickets, want 0", n)
	}
}

func mustRaw(raw json.RawMessage, _ []byte) json.RawMessage { return raw }

// TestReceipt: a successful write carries the runtime's receipt with the ticket
// id; a failed one carries none.
func TestReceipt(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	raw, _ := toolCall(context.Background(), t, s, 1, ticketArgs("key-receipt-1"))
	r := decodeResult(t, raw)
	rc := r.Meta.Receipt
	if r.IsError || rc == nil || rc.ExternalID != "INC-0001" || rc.Status != "committed" || rc.Tool != "create_incident_ticket" ||
		!strings.HasPrefix(rc.ActionID, "act_") || !strings.HasPrefix(rc.ArgumentsDigest, "sha256:") || rc.OccurredAt == "" {
		t.Fatalf("got %s, want a committed receipt for INC-0001", raw)
	}
	args := ticketArgs("key-receipt-2")
	args["evidence_ids"] = []string{"made-up"}
	raw, _ = toolCall(context.Background(), t, s, 2, args)
	r = decodeResult(t, raw)
	if !r.IsError || r.Meta.Receipt != nil || r.Meta.Error == nil || r.Meta.Error.Code != CodeRecordNotFound || r.Meta.Error.Retryable {
		t.Fatalf("unknown evidence: got %s, want record_not_found (not retryable) without a receipt", raw)
	}
	if strings.Contains(string(raw), `"structuredContent"`) {
		t.Errorf("an error of a tool with an outputSchema carries structuredContent: %s", raw)
	}
}

// TestTemporaryUnavailable: a retryable failure leaves the key free, so the retry
// with the same key creates the ticket.
func TestTemporaryUnavailable(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	d.SetAvailable(false)
	raw, _ := toolCall(context.Background(), t, s, 1, ticketArgs("key-unavail-1"))
	if r := decodeResult(t, raw); r.Meta.Error == nil || r.Meta.Error.Code != CodeTemporaryUnavailable || !r.Meta.Error.Retryable {
		t.Fatalf("got %s, want temporary_unavailable (retryable)", raw)
	}
	d.SetAvailable(true)
	raw, _ = toolCall(context.Background(), t, s, 2, ticketArgs("key-unavail-1"))
	if r := decodeResult(t, raw); r.IsError || r.Meta.Receipt == nil || r.Meta.Receipt.ExternalID != "INC-0001" {
		t.Fatalf("retry: got %s, want the ticket", raw)
	}
}

// TestOneKeyConcurrent: 64 concurrent calls with one key create one ticket and
// get 64 identical results.
func TestOneKeyConcurrent(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	results := make([]json.RawMessage, 64)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = toolCall(context.Background(), t, s, 7, ticketArgs("key-concurrent-1"))
		}()
	}
	wg.Wait()
	if n := d.Tickets(); n != 1 {
		t.Fatalf("%d tickets, want 1", n)
	}
	for i, r := range results {
		if !bytes.Equal(r, results[0]) {
			t.Fatalf("result %d differs:\n%s\n%s", i, r, results[0])
		}
	}
	if r := decodeResult(t, results[0]); r.IsError || r.Meta.Receipt == nil {
		t.Fatalf("got %s, want a receipt", results[0])
	}
}

// TestRetryAfterClientGaveUp: the client cancels while the handler runs; the
// ticket is still created once, and the retry gets its receipt.
func TestRetryAfterClientGaveUp(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	entered, release := make(chan struct{}), make(chan struct{})
	d.pause = func() { close(entered); <-release }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []byte)
	go func() {
		_, body := toolCall(ctx, t, s, 1, ticketArgs("key-gaveup-1"))
		done <- body
	}()
	<-entered
	cancel() // the client gives up
	d.pause = nil
	close(release)
	<-done // whatever the server answered, the client is gone
	first, _ := toolCall(context.Background(), t, s, 2, ticketArgs("key-gaveup-1"))
	again, _ := toolCall(context.Background(), t, s, 2, ticketArgs("key-gaveup-1"))
	r := decodeResult(t, first)
	if r.IsError || r.Meta.Receipt == nil || r.Meta.Receipt.ExternalID != "INC-0001" {
		t.Fatalf("retry: got %s, want the receipt of INC-0001", first)
	}
	if !bytes.Equal(first, again) {
		t.Fatalf("two retries differ:\n%s\n%s", first, again)
	}
	if n := d.Tickets(); n != 1 {
		t.Fatalf("%d tickets, want 1", n)
	}
}

// TestKeyReused: the same key with other arguments is a conflict.
func TestKeyReused(t *testing.T) {
	d := mustDesk()
	s := deskServer(d)
	toolCall(context.Background(), t, s, 1, ticketArgs("key-reused-1"))
	other := ticketArgs("key-reused-1")
	other["title"] = "Checkout down"
	raw, _ := toolCall(context.Background(), t, s, 2, other)
	if r := decodeResult(t, raw); r.Meta.Error == nil || r.Meta.Error.Code != mcpruntime.ErrCodeIdempotencyKeyReused || r.Meta.Error.Retryable {
		t.Fatalf("got %s, want idempotency_key_reused (not retryable)", raw)
	}
	// Reordered keys are the same arguments.
	raw, _ = toolCall(context.Background(), t, s, 3, map[string]any{"idempotency_key": "key-reused-1",
		"evidence_ids": []string{"status-payments-0001", "deploy-payments-0042"}, "severity": "P1", "title": "Payments timeouts"})
	if r := decodeResult(t, raw); r.IsError {
		t.Fatalf("same arguments: got %s", raw)
	}
	if n := d.Tickets(); n != 1 {
		t.Fatalf("%d tickets, want 1", n)
	}
}

// TestReconcileAbandoned: the first create is abandoned at its deadline while it
// still runs (its claim lapses); a retry meanwhile cannot tell (outcome_unknown,
// the handler does not run again); once the first create stored its ticket, the
// retry reconciles through FindIncidentTicket (reconcile= on the directive): it
// gets that ticket's receipt, the handler ran once, and later retries replay it.
func TestReconcileAbandoned(t *testing.T) {
	d := mustDesk()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			CallTimeout: 200 * time.Millisecond, IdempotencyLease: 60 * time.Millisecond, IdempotencyWait: time.Millisecond})
	RegisterMCP(s, d)
	var runs atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	d.pause = func() {
		if runs.Add(1) == 1 {
			close(entered)
			<-release
		}
	}
	args := ticketArgs("key-reconcile-1")
	raw, _ := toolCall(context.Background(), t, s, 1, args)
	<-entered
	if r := decodeResult(t, raw); r.Meta.Error == nil || r.Meta.Error.Code != mcpruntime.ErrCodeTimeout {
		t.Fatalf("first call: got %s, want timeout", raw)
	}
	lapse := func() { time.Sleep(150 * time.Millisecond) } // more than two leases
	lapse()
	raw, _ = toolCall(context.Background(), t, s, 2, args)
	if r := decodeResult(t, raw); r.Meta.Error == nil || r.Meta.Error.Code != mcpruntime.ErrCodeOutcomeUnknown {
		t.Fatalf("retry while the first create runs: got %s, want outcome_unknown", raw)
	}
	close(release)
	for d.Tickets() == 0 || d.stillRunning("key-reconcile-1") {
		time.Sleep(5 * time.Millisecond)
	}
	lapse() // the reconciling retry's claim lapses too
	first, _ := toolCall(context.Background(), t, s, 3, args)
	r := decodeResult(t, first)
	if r.IsError || r.Meta.Receipt == nil || r.Meta.Receipt.ExternalID != "INC-0001" || r.Meta.Receipt.Status != "committed" {
		t.Fatalf("reconciled retry: got %s, want the receipt of INC-0001", first)
	}
	again, _ := toolCall(context.Background(), t, s, 4, args)
	if !bytes.Equal(first, again) {
		t.Fatalf("replay of the reconciled result:\n%s\nwant\n%s", again, first)
	}
	if n, runs := d.Tickets(), runs.Load(); n != 1 || runs != 1 {
		t.Fatalf("%d tickets, %d handler runs; want 1 and 1", n, runs)
	}
}
