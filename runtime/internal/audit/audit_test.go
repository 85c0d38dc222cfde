package audit

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// logged writes through a JSON handler and returns the record's keys, failing
// unless they come in the order below (Log's), and its values.
func logged(t *testing.T, write func(l *slog.Logger)) ([]string, map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	write(slog.New(slog.NewJSONHandler(&buf, nil)))
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("%s: %v", buf.Bytes(), err)
	}
	var keys []string
	line, last := buf.String(), -1
	for _, k := range []string{"request_id", "era", "revision", "method", "tool", "args_digest", "principal", "outcome", "receipt_action_id", "idempotency", "queue_ms", "handler_ms", "total_ms"} {
		if i := strings.Index(line, `"`+k+`":`); i >= 0 {
			if i < last {
				t.Fatalf("%s out of order in %s", k, line)
			}
			keys, last = append(keys, k), i
		}
	}
	return keys, m
}

func TestRecord(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Record{RequestID: "7", Era: Era(true), Revision: "2026-07-28", Method: "tools/call", Tool: "pay",
		ArgsDigest: "ab", Principal: "alice", HasPrincipal: true, ReceiptID: "act", Idempotency: "fresh",
		Admitted: t0, HandlerFrom: t0.Add(1500 * time.Microsecond), HandlerTook: 2 * time.Millisecond}
	keys, m := logged(t, func(l *slog.Logger) { r.Log(l, t0.Add(5*time.Millisecond)) })
	if len(keys) != 13 {
		t.Fatalf("keys %v", keys)
	}
	for k, want := range map[string]any{"msg": "audit", "era": "modern", "args_digest": "sha256:ab", "principal": "alice",
		"outcome": "ok", "receipt_action_id": "act", "queue_ms": 1.5, "handler_ms": 2.0, "total_ms": 5.0} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	// A tool error keeps the receipt out; a method other than tools/call has no tool.
	r.ErrCode, r.Method = "forbidden", "prompts/get"
	r.HandlerFrom = time.Time{}
	keys, m = logged(t, func(l *slog.Logger) { r.Log(l, t0) })
	if m["outcome"] != "tool_error:forbidden" || strings.Join(keys, ",") != "request_id,era,revision,method,principal,outcome,idempotency,total_ms" {
		t.Fatalf("keys %v, outcome %v", keys, m["outcome"])
	}
	for _, c := range []struct {
		r    Record
		want string
	}{{Record{Aborted: true, RPCCode: -1}, "aborted"}, {Record{RPCCode: -32602, ErrCode: "x"}, "rpc_error:-32602"}, {Record{}, "ok"}} {
		if got := c.r.Outcome(); got != c.want {
			t.Errorf("Outcome = %s, want %s", got, c.want)
		}
	}
	_, m = logged(t, func(l *slog.Logger) { Rejected(l, "1", Era(false), "tools/call", -32600) })
	if m["era"] != "legacy" || m["outcome"] != "rpc_error:-32600" || m["method"] != "tools/call" {
		t.Fatalf("rejected %v", m)
	}
}
