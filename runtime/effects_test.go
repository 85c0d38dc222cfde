package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testproc"
	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// writeInput is the input schema of the write tools below: a note and a key.
const writeInput = `{"type":"object","properties":{"note":{"type":"string"},"key":{"type":"string"}},"required":["note"],"additionalProperties":false}`

// writeTool is a write with an idempotency key; runs counts its side effects.
func writeTool(runs *atomic.Int32, h func(ctx context.Context) (*ToolResult, error)) *Tool {
	return &Tool{Name: "write", Description: "Write writes.", InputSchema: json.RawMessage(writeInput), IdempotencyKey: "key",
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			runs.Add(1)
			ReportExternalID(ctx, "ext-1")
			if h != nil {
				return h(ctx)
			}
			return &ToolResult{Content: []Content{Text("written")}}, nil
		}}
}

// effectServer returns a server with opts (a discarding logger unless set).
func effectServer(opts *Options, tools ...*Tool) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := NewServer(Implementation{Name: "fx", Version: "1"}, opts)
	for _, t := range tools {
		s.AddTool(t)
	}
	return s
}

// callWith sends a 2026-07-28 tools/call of name and returns the result object.
func callWith(t *testing.T, ctx context.Context, s *Server, name string, args string) json.RawMessage {
	t.Helper()
	raw := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	body := s.HandleRaw(ctx, []byte(raw), nil, nil).Body
	var resp struct{ Result json.RawMessage }
	if err := json.Unmarshal(body, &resp); err != nil || resp.Result == nil {
		t.Fatalf("response %s: %v", body, err)
	}
	return resp.Result
}

// errorOf returns the result's _meta error object, nil when there is none.
func errorOf(t *testing.T, res json.RawMessage) *ToolError {
	var r struct {
		Meta struct {
			Err *ToolError `json:"dev.mcpgen/error"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	return r.Meta.Err
}

func TestToolErrorShapes(t *testing.T) {
	var runs atomic.Int32
	coded := writeTool(&runs, func(context.Context) (*ToolResult, error) {
		return nil, errors.Join(errors.New("wrapped"), &ToolError{Code: "record_not_found", Message: "no such record"})
	})
	s := effectServer(&Options{}, coded, panicTool())
	res := callWith(t, context.Background(), s, "write", `{"note":"x"}`)
	// No outputSchema: structuredContent carries the error object too.
	if !strings.Contains(string(res), `"structuredContent":{"error":{"code":"record_not_found","message":"no such record","retryable":false}}`) ||
		!strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), `"text":"no such record"`) {
		t.Errorf("coded error: got %s", res)
	}
	if strings.Contains(string(res), MetaReceipt) {
		t.Errorf("a failed write got a receipt: %s", res)
	}
	res = callWith(t, context.Background(), s, "crash", `{}`)
	if e := errorOf(t, res); e == nil || e.Code != ErrCodeInternal || strings.Contains(string(res), "secret-detail") {
		t.Errorf("panic: got %s, want internal without the panic text", res)
	}
	res = callWith(t, context.Background(), s, "write", `{"note":1,"extra":true}`)
	if e := errorOf(t, res); e == nil || e.Code != ErrCodeInvalidArguments || !e.Retryable ||
		!strings.Contains(string(res), `{"pointer":"/note","rule":"type"}`) {
		t.Errorf("invalid: got %s", res)
	}
	if runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1 (not for invalid arguments)", runs.Load())
	}
}

func TestTimeoutCode(t *testing.T) {
	var runs atomic.Int32
	release := make(chan struct{})
	defer close(release)
	slow := writeTool(&runs, func(ctx context.Context) (*ToolResult, error) {
		<-release // ignores its context
		return nil, nil
	})
	s := effectServer(&Options{CallTimeout: 50 * time.Millisecond}, slow)
	res := callWith(t, context.Background(), s, "write", `{"note":"x"}`)
	if e := errorOf(t, res); e == nil || e.Code != ErrCodeTimeout || e.Retryable {
		t.Fatalf("got %s, want timeout (a write without a key: not retryable)", res)
	}
}

func TestReadonlyNoReceipt(t *testing.T) {
	s := effectServer(&Options{}, echoTool())
	if res := callWith(t, context.Background(), s, "echo", `{"text":"a"}`); strings.Contains(string(res), MetaReceipt) {
		t.Fatalf("readonly call got a receipt: %s", res)
	}
	defer func() {
		if msg := recover(); msg == nil || !strings.Contains(msg.(string), "readonly tool takes no idempotency key") {
			t.Errorf("AddTool of a readonly tool with a key: %v", msg)
		}
	}()
	tool := echoTool()
	tool.IdempotencyKey = "text"
	s.AddTool(tool)
}

func TestInProgressAndOutcomeUnknown(t *testing.T) {
	var runs atomic.Int32
	entered, release := make(chan struct{}), make(chan struct{})
	slow := writeTool(&runs, func(ctx context.Context) (*ToolResult, error) {
		close(entered)
		<-release
		return &ToolResult{Content: []Content{Text("done")}}, nil
	})
	st := store.NewMemory()
	s := effectServer(&Options{Store: st, IdempotencyWait: time.Millisecond}, slow)
	done := make(chan json.RawMessage)
	go func() { done <- callWith(t, context.Background(), s, "write", `{"note":"x","key":"k1"}`) }()
	<-entered
	res := callWith(t, context.Background(), s, "write", `{"note":"x","key":"k1"}`)
	if e := errorOf(t, res); e == nil || e.Code != ErrCodeInProgress || !e.Retryable {
		t.Errorf("repeat while running: got %s, want in_progress", res)
	}
	close(release)
	first := <-done
	if again := callWith(t, context.Background(), s, "write", `{"note":"x","key":"k1"}`); !bytes.Equal(first, again) {
		t.Errorf("replay:\n%s\nwant\n%s", again, first)
	}
	// A claim whose lease lapsed (its process died) is outcome_unknown.
	lk := ledger.Key(ledger.Who{}, "write", "k2")
	claim := ledger.AppendRunning(nil, ledger.ArgsDigest([]byte(`{"note":"y","key":"k2"}`)), "act_dead", time.Now().Add(-time.Second))
	st.PutIfAbsent(context.Background(), lk, claim, time.Hour)
	res = callWith(t, context.Background(), s, "write", `{"key":"k2","note":"y"}`)
	if e := errorOf(t, res); e == nil || e.Code != ErrCodeOutcomeUnknown || e.Retryable || e.Details["action_id"] != "act_dead" {
		t.Errorf("lapsed claim: got %s, want outcome_unknown with the action id", res)
	}
	if runs.Load() != 1 {
		t.Errorf("handler ran %d times, want 1", runs.Load())
	}
}

func TestReconcile(t *testing.T) {
	var runs atomic.Int32
	tool := writeTool(&runs, nil)
	var found atomic.Bool
	tool.Reconcile = func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
		if !found.Load() {
			return nil, nil // the dead run had no effect
		}
		ReportExternalID(ctx, "ext-found")
		return &ToolResult{Content: []Content{Text("found")}}, nil
	}
	st := store.NewMemory()
	s := effectServer(&Options{Store: st}, tool)
	dead := func(key, args string) {
		claim := ledger.AppendRunning(nil, ledger.ArgsDigest([]byte(args)), "act_dead", time.Now().Add(-time.Second))
		st.PutIfAbsent(context.Background(), ledger.Key(ledger.Who{}, "write", key), claim, time.Hour)
	}
	dead("k1", `{"note":"x","key":"k1"}`)
	res := callWith(t, context.Background(), s, "write", `{"note":"x","key":"k1"}`)
	if !strings.Contains(string(res), `"external_id":"ext-1"`) || runs.Load() != 1 {
		t.Errorf("no effect found: got %s after %d runs, want the handler's result", res, runs.Load())
	}
	found.Store(true)
	dead("k2", `{"note":"x","key":"k2"}`)
	res = callWith(t, context.Background(), s, "write", `{"note":"x","key":"k2"}`)
	if !strings.Contains(string(res), `"external_id":"ext-found"`) || runs.Load() != 1 {
		t.Errorf("effect found: got %s after %d runs, want the reconciled receipt", res, runs.Load())
	}
	if again := callWith(t, context.Background(), s, "write", `{"note":"x","key":"k2"}`); !bytes.Equal(res, again) {
		t.Errorf("replay of a reconciled result:\n%s\nwant\n%s", again, res)
	}
}

func TestLegacyReplaySameBytes(t *testing.T) {
	var runs atomic.Int32
	s := effectServer(&Options{}, writeTool(&runs, nil))
	sess := s.NewSession(nil)
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	s.HandleRaw(context.Background(), []byte(init), sess, nil)
	s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, nil)
	call := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write","arguments":{"note":"x","key":"k"}}}`
	first := s.HandleRaw(context.Background(), []byte(call), sess, nil).Body
	again := s.HandleRaw(context.Background(), []byte(call), sess, nil).Body
	if !bytes.Equal(first, again) || !bytes.Contains(first, []byte(MetaReceipt)) || runs.Load() != 1 {
		t.Fatalf("legacy replay:\n%s\n%s\n(%d runs)", first, again, runs.Load())
	}
}

// TestAuditCanary: a canary in the arguments, the idempotency key, an error
// message and the principal's claims appears in no log line at any level, and
// every request gets one audit record.
func TestAuditCanary(t *testing.T) {
	const canary = "CANARY-7f3a9c"
	var logs, audit syncBuffer
	var runs atomic.Int32
	fail := writeTool(&runs, func(context.Context) (*ToolResult, error) {
		return nil, &ToolError{Code: "temporary_unavailable", Message: "down " + canary, Retryable: true}
	})
	fail.Name = "fail_write"
	s := effectServer(&Options{
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Audit:  slog.New(slog.NewJSONHandler(&audit, nil)),
	}, writeTool(&runs, nil), fail, echoTool())
	ctx := WithPrincipal(context.Background(), &Principal{Subject: "user-1", ClientID: "client-" + canary,
		Claims: map[string]any{"token": "Bearer " + canary}})
	calls := []struct{ name, args string }{
		{"write", `{"note":"` + canary + `","key":"` + canary + `"}`},
		{"write", `{"note":"` + canary + `","key":"` + canary + `"}`}, // replayed
		{"write", `{"note":"other","key":"` + canary + `"}`},          // conflict
		{"write", `{"note":` + `{"` + canary + `":1}}`},               // invalid
		{"fail_write", `{"note":"` + canary + `"}`},
		{"echo", `{"text":"` + canary + `"}`},
	}
	for _, c := range calls {
		callWith(t, ctx, s, c.name, c.args)
	}
	s.HandleRaw(ctx, []byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nosuch","arguments":{"x":"`+canary+`"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil, nil)
	s.HandleRaw(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"nosuch/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil, nil)
	for name, b := range map[string]*syncBuffer{"log": &logs, "audit": &audit} {
		if strings.Contains(b.String(), canary) {
			t.Errorf("the %s carries the canary:\n%s", name, b.String())
		}
	}
	lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
	if len(lines) != len(calls)+2 {
		t.Fatalf("%d audit records for %d requests:\n%s", len(lines), len(calls)+2, audit.String())
	}
	for i, want := range []string{`"idempotency":"fresh"`, `"idempotency":"replayed"`, `"idempotency":"conflict"`,
		`"outcome":"tool_error:invalid_arguments"`, `"outcome":"tool_error:temporary_unavailable"`, `"outcome":"ok"`,
		`"outcome":"rpc_error:-32602"`, `"outcome":"rpc_error:-32601"`} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("audit record %d lacks %s: %s", i, want, lines[i])
		}
	}
	for _, want := range []string{`"principal":"user-1"`, `"args_digest":"sha256:`, `"receipt_action_id":"act_`, `"handler_ms":`, `"total_ms":`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("audit record 0 lacks %s: %s", want, lines[0])
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = testproc.Buffer

// TestReplayEscapes: text, structured content and _meta holding <, > and &
// replay byte for byte (encoding/json would escape them; the first answer does
// not).
func TestReplayEscapes(t *testing.T) {
	var runs atomic.Int32
	tool := writeTool(&runs, func(context.Context) (*ToolResult, error) {
		return &ToolResult{Content: []Content{Text("a<b>&c"), Image([]byte{1, 2}, "image/png")},
			StructuredContent: json.RawMessage("{\"v\": \"<x&y>\",\n \"n\": 1.50}"), Meta: map[string]any{"z": "<&>", "a": 1}}, nil
	})
	s := effectServer(&Options{}, tool)
	first := callWith(t, context.Background(), s, "write", `{"note":"x","key":"esc"}`)
	again := callWith(t, context.Background(), s, "write", `{"note":"x","key":"esc"}`)
	if !bytes.Equal(first, again) || runs.Load() != 1 {
		t.Fatalf("replay:\n%s\nwant\n%s", again, first)
	}
}

// TestAppendReceipt checks the hand-written receipt encoding against json.Marshal.
func TestAppendReceipt(t *testing.T) {
	at := time.Date(2026, 12, 1, 16, 0, 0, 123456000, time.UTC)
	for _, r := range []Receipt{
		{ActionID: "act_0123", Tool: "note", ArgumentsDigest: "sha256:abcd", Status: ReceiptCommitted},
		{ActionID: "act_0123", Tool: "t<&>", ArgumentsDigest: "sha256:", ExternalID: "x\"\\\n\u2028\xff<é", Status: "accepted&"},
		{ActionID: "", Tool: "", ArgumentsDigest: "sha256:00", ExternalID: "42", Status: "\x01\x7f"},
	} {
		r.OccurredAt = at.Format(time.RFC3339Nano)
		want, _ := json.Marshal(r)
		got := ledger.AppendReceipt(nil, r.ActionID, r.Tool, strings.TrimPrefix(r.ArgumentsDigest, "sha256:"), r.ExternalID, r.Status, at)
		if string(got) != string(want) {
			t.Errorf("appendReceipt = %s, want %s", got, want)
		}
	}
}

// TestAppendStoredReceiptOnly: a result whose _meta holds only the receipt is
// stored without walking the map, byte for byte as the general case stores it,
// and a result with more _meta still takes the general case.
func TestAppendStoredReceiptOnly(t *testing.T) {
	receipt := json.RawMessage(`{"action_id":"act_1","tool":"note","arguments_digest":"sha256:00","status":"committed","occurred_at":"2026-12-01T16:00:00Z"}`)
	for _, meta := range []map[string]any{
		{MetaReceipt: receipt},
		{MetaReceipt: receipt, "a<&>": 1, "z": json.RawMessage(`"z"`)},
	} {
		res := &ToolResult{Content: []Content{Text("a<b>")}, StructuredContent: json.RawMessage(`{"id":"n-1"}`), Meta: meta}
		general, err := appendStored(nil, res, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := appendStored(nil, res, receipt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fast, general) {
			t.Fatalf("with the receipt given:\n%s\nwant\n%s", fast, general)
		}
		st, err := ledger.ParseStored(fast)
		if err != nil || len(st.Meta) != len(meta) || string(st.Meta[0].Value) != string(receipt) && len(meta) == 1 {
			t.Fatalf("ParseStored(%s) = %+v, %v", fast, st, err)
		}
	}
}

// TestAppendStoredShort: on an in-process store a result whose _meta holds only
// its receipt keeps it in its short form (ledger.Stored) and replays byte for
// byte as its full form does; a result with more _meta keeps the full form.
func TestAppendStoredShort(t *testing.T) {
	at := time.Date(2026, 12, 2, 6, 0, 0, 123456789, time.UTC)
	fx := &callEffects{receiptID: "act_1", argsDigest: "00ff", externalID: "n-1\"<\u2028", status: "accepted", receiptAt: at}
	receipt := json.RawMessage(ledger.AppendReceipt(nil, fx.receiptID, "note", fx.argsDigest, fx.externalID, fx.status, at))
	for i, tc := range []struct {
		res       *ToolResult
		shortened bool
	}{
		{&ToolResult{Content: []Content{Text(`{"id":"n-1"}`), Text("a<b>")}, StructuredContent: json.RawMessage(`{"id": "n-1"}`), Meta: map[string]any{MetaReceipt: receipt}}, true},
		{&ToolResult{StructuredContent: json.RawMessage(`{"id":"n-1"}`), Meta: map[string]any{MetaReceipt: receipt}}, true},
		{&ToolResult{Content: []Content{Text(`{"id":"n-2"}`)}, StructuredContent: json.RawMessage(`{"id":"n-1"}`), Meta: map[string]any{MetaReceipt: receipt, "z": 1}}, false},
		{&ToolResult{Content: []Content{Text("x")}}, false},
	} {
		full, err := appendStored(nil, tc.res, receipt, nil)
		if err != nil {
			t.Fatal(err)
		}
		short, err := appendStored(nil, tc.res, receipt, fx)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(short) < len(full); got != tc.shortened {
			t.Fatalf("case %d: short form %s, full %s", i, short, full)
		}
		var replays [2]*ToolResult
		for k, rec := range [][]byte{full, short} {
			st, err := ledger.ParseStored(rec)
			if err != nil {
				t.Fatal(err)
			}
			if replays[k], err = storedResult(st, fx, "note"); err != nil {
				t.Fatal(err)
			}
		}
		f, s := replays[0], replays[1]
		if len(f.Content) != len(tc.res.Content) || len(s.Content) != len(f.Content) || string(s.StructuredContent) != string(f.StructuredContent) || len(s.Meta) != len(f.Meta) {
			t.Fatalf("case %d: replays differ:\n%+v\n%+v", i, f, s)
		}
		for j := range f.Content {
			if string(s.Content[j].raw) != string(f.Content[j].raw) {
				t.Fatalf("case %d block %d: %s, want %s", i, j, s.Content[j].raw, f.Content[j].raw)
			}
		}
		for k, v := range f.Meta {
			if fmt.Sprint(s.Meta[k]) != fmt.Sprint(v) {
				t.Fatalf("case %d: _meta %s = %s, want %s", i, k, s.Meta[k], v)
			}
		}
	}
	// A short receipt that is not [external id, status, time] is an error.
	if _, err := storedResult(ledger.Stored{Receipt: []byte(`["x"]`)}, fx, "note"); err == nil {
		t.Fatal("a bad short receipt was expanded")
	}
}
