package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestCallHooks: an interceptor that runs the handler under WithCallHooks
// takes its progress reports and log messages, and answers its Ask (which
// may fall back on the round's own, plain, asking).
func TestCallHooks(t *testing.T) {
	s := extServer(t, nil)
	var progress []string
	var plainErr error
	errTook := errors.New("the hook answered")
	hooks := &CallHooks{
		Progress: func(_ context.Context, p, total float64, msg string) bool {
			progress = append(progress, msg)
			return msg == "taken"
		},
		Quiet: func(context.Context) bool { return true },
		Ask: func(_ context.Context, qs []Question, plain func() error) error {
			if len(qs) != 1 {
				t.Errorf("Ask hook saw %d questions", len(qs))
			}
			plainErr = plain()
			return errTook
		},
	}
	s.AddTool(&Tool{Name: "hooked", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if err := Progress(ctx, 1, 2, "taken"); err != nil {
				return nil, err
			}
			if err := Progress(ctx, 2, 2, "passed on"); err != nil {
				return nil, err
			}
			if err := Log(ctx, "error", "", "dropped"); err != nil {
				return nil, err
			}
			var res ElicitResult
			err := Ask(ctx, AskElicitation("q", "Proceed?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`), &res))
			if !errors.Is(err, errTook) {
				t.Errorf("Ask: %v, want the hook's error", err)
			}
			return &ToolResult{Content: []Content{Text("done")}}, nil
		}})
	if err := s.Use(&Extension{ID: "x/hooks", ToolCall: func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error) {
		return next(WithCallHooks(ctx, hooks), req)
	}}); err != nil {
		t.Fatal(err)
	}
	var sent bytes.Buffer
	sink := SinkFunc(func(_ context.Context, m []byte) error { sent.Write(m); sent.WriteByte('\n'); return nil })
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hooked","arguments":{},"_meta":{"progressToken":7,` +
		`"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	r := s.HandleRaw(context.Background(), []byte(req), nil, sink)
	// plain put the question into the request's round: the call ends
	// input_required although the handler returned.
	if !bytes.Contains(r.Body, []byte(`"resultType":"input_required"`)) || !bytes.Contains(r.Body, []byte(`"Proceed?"`)) {
		t.Fatalf("reply: %s", r.Body)
	}
	if len(progress) != 2 {
		t.Errorf("Progress hook saw %q, want both reports", progress)
	}
	if bytes.Contains(sent.Bytes(), []byte(`"taken"`)) || !bytes.Contains(sent.Bytes(), []byte(`"passed on"`)) {
		t.Errorf("progress sent: %s (want only the report the hook did not take)", sent.Bytes())
	}
	if bytes.Contains(sent.Bytes(), []byte("notifications/message")) {
		t.Errorf("a Quiet handler's log went out: %s", sent.Bytes())
	}
	if !errors.Is(plainErr, ErrInputRequired) {
		t.Errorf("plain asking: %v, want ErrInputRequired", plainErr)
	}
}

// TestExtensionListen: an extension's Listen hook narrows or refuses the
// taskIds of a subscriptions/listen filter; without one they are dropped.
func TestExtensionListen(t *testing.T) {
	listen := func(s *Server, ids string) (string, []byte) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var sent bytes.Buffer
		var mu sync.Mutex
		acked := make(chan struct{}, 1)
		sink := SinkFunc(func(_ context.Context, m []byte) error {
			mu.Lock()
			sent.Write(m)
			mu.Unlock()
			select {
			case acked <- struct{}{}:
			default:
			}
			return nil
		})
		done := make(chan []byte, 1)
		go func() {
			r := s.HandleRaw(ctx, modernRaw("subscriptions/listen", `"notifications":{"taskIds":`+ids+`}`, `{}`), nil, sink)
			done <- r.Body
		}()
		select {
		case b := <-done:
			return "", b
		case <-acked:
		}
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return sent.String(), nil
	}
	s := extServer(t, nil)
	if ack, _ := listen(s, `["a","b"]`); !strings.Contains(ack, `"notifications"`) || strings.Contains(ack, "taskIds") {
		t.Errorf("without a Listen hook the taskIds stay: %s", ack)
	}
	s = extServer(t, nil)
	s.MustUse(&Extension{ID: "x/listen", Listen: func(_ context.Context, f *ListenFilter) error {
		if slices.Contains(f.TaskIDs, "bad") {
			return &RPCError{Code: -32099, Message: "no such task"}
		}
		f.TaskIDs = f.TaskIDs[:1]
		return nil
	}})
	if ack, _ := listen(s, `["a","b"]`); !strings.Contains(ack, `"taskIds":["a"]`) {
		t.Errorf("the hook's narrowed filter is not acknowledged: %s", ack)
	}
	if _, b := listen(s, `["bad"]`); !bytes.Contains(b, []byte(`-32099`)) {
		t.Errorf("a refused filter: %s", b)
	}
}
