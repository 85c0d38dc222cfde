package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRawToolResult: an interceptor answers a tools/call with a result of
// another type: completed for 2026-07-28 (resultType, the server's _meta),
// sent as is for 2025-11-25, -32603 when it is no JSON object.
func TestRawToolResult(t *testing.T) {
	raw := json.RawMessage(`{"queued":true}`)
	s := extServer(t, nil)
	s.MustUse(&Extension{ToolCall: func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error) {
		return RawToolResult(raw), nil
	}})
	r := s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"hello"`, `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"result":{"queued":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":`)) {
		t.Errorf("2026-07-28: %s", r.Body)
	}
	sess, _ := legacySession(t, s, `{}`)
	r = s.HandleRaw(context.Background(), legacyRaw("tools/call", `"name":"hello"`), sess, nil)
	if !bytes.Contains(r.Body, []byte(`"result":{"queued":true}}`)) {
		t.Errorf("2025-11-25: %s", r.Body)
	}
	raw = json.RawMessage(`[1]`)
	r = s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"hello"`, `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"code":-32603`)) {
		t.Errorf("a raw result that is no object: %s", r.Body)
	}
}

// TestDetachedCall: an interceptor answers at once and runs the rest of the
// call after the answer under Detach: the handler sees the request's
// principal and values but not its cancellation, AnswerTool encodes what it
// returned as the era's CallToolResult (or the error a call would get), and
// Audit writes a second record under the request's id.
func TestDetachedCall(t *testing.T) {
	var buf syncBuffer
	s := extServer(t, &Options{Audit: slog.New(slog.NewJSONHandler(&buf, nil))})
	type key struct{}
	s.AddTool(&Tool{Name: "later", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			time.Sleep(20 * time.Millisecond) // after the answer
			if ctx.Err() != nil || PrincipalFrom(ctx) == nil || ctx.Value(key{}) != "kept" {
				return nil, &ToolError{Code: "lost", Message: "the request's context did not carry over"}
			}
			return &ToolResult{Content: []Content{Text("done later")}}, nil
		}})
	answers := make(chan ToolAnswer, 2)
	s.MustUse(&Extension{ToolCall: func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error) {
		if req.Name != "later" {
			return next(ctx, req)
		}
		dctx := Detach(context.WithValue(ctx, key{}, "kept"))
		go func() {
			res, err := next(dctx, req)
			a := AnswerTool(dctx, res, err)
			Audit(dctx, AuditEnd{TaskID: "t-1", TaskStatus: "completed"})
			answers <- a
		}()
		return RawToolResult(json.RawMessage(`{"queued":true}`)), nil
	}})
	ctx := WithPrincipal(context.Background(), &Principal{Subject: "alice"})
	r := s.HandleRaw(ctx, modernRaw("tools/call", `"name":"later"`, `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"queued":true`)) {
		t.Fatalf("answer: %s", r.Body)
	}
	var a ToolAnswer
	select {
	case a = <-answers:
	case <-time.After(10 * time.Second):
		t.Fatal("the detached call never ended")
	}
	if a.Error != nil || a.IsError || string(a.Result) != `{"content":[{"type":"text","text":"done later"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ext","version":"1"}}}` {
		t.Errorf("AnswerTool: %s (error %v)", a.Result, a.Error)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"request_id":"1"`) || !strings.Contains(lines[1], `"task_id":"t-1"`) ||
		!strings.Contains(lines[1], `"handler_ms"`) || !strings.Contains(lines[1], `"principal":"alice"`) {
		t.Errorf("audit records:\n%s", buf.String())
	}
	// Outside a request, Detach only drops the cancellation, and AnswerTool
	// says it has no tools/call.
	dctx := Detach(ctx)
	if a := AnswerTool(dctx, nil, nil); a.Error == nil {
		t.Errorf("AnswerTool outside a tools/call: %+v", a)
	}
}
