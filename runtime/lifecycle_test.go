package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The 2025-11-25 lifecycle: until the client sends notifications/initialized the
// server sends no requests but pings (and logs). The runtime holds a
// server-to-client request back until then.

const (
	elicitInit  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"rel","version":"1"}}}`
	elicitCall  = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who?"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// recordSink keeps what the server sends outside responses.
type recordSink struct {
	mu   sync.Mutex
	msgs []string
	on   func(msg []byte) // called for each message, if set
}

func (r *recordSink) Send(_ context.Context, msg []byte) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, string(msg))
	r.mu.Unlock()
	if r.on != nil {
		r.on(msg)
	}
	return nil
}

// TestNoRequestBeforeInitialized: a call that asks the user, on a session whose
// client never sends notifications/initialized, sends no elicitation/create; the
// question gives up at Options.InputTimeout and the call is answered.
func TestNoRequestBeforeInitialized(t *testing.T) {
	noLeak(t)
	s := everythingServer2(&mcpruntime.Options{Logger: quietLogger(), InputTimeout: 50 * time.Millisecond})
	sess := s.NewSession(nil)
	defer sess.Close()
	if r := s.HandleRaw(context.Background(), []byte(elicitInit), sess, nil); r.Code != 0 {
		t.Fatalf("initialize: %s", r.Body)
	}
	var out recordSink
	r := s.HandleRaw(context.Background(), []byte(elicitCall), sess, &out)
	for _, m := range out.msgs {
		if strings.Contains(m, `"method":"elicitation/create"`) {
			t.Errorf("server sent a request before notifications/initialized: %s", m)
		}
	}
	if r.Body == nil {
		t.Fatal("the call was not answered")
	}
	checkNoLeakText(t, r.Body)
}

// TestRequestAfterInitialized: a call made before notifications/initialized asks
// its question once the notification arrives, and completes with the answer.
func TestRequestAfterInitialized(t *testing.T) {
	noLeak(t)
	s := everythingServer2(&mcpruntime.Options{Logger: quietLogger()})
	sess := s.NewSession(nil)
	defer sess.Close()
	if r := s.HandleRaw(context.Background(), []byte(elicitInit), sess, nil); r.Code != 0 {
		t.Fatalf("initialize: %s", r.Body)
	}
	var notified atomic.Bool
	early := make(chan string, 1)
	out := &recordSink{on: func(msg []byte) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(msg, &req) != nil || req.Method != "elicitation/create" {
			return
		}
		if !notified.Load() {
			early <- string(msg)
		}
		answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"decline"}}`
		go s.HandleRaw(context.Background(), []byte(answer), sess, nil)
	}}
	done := make(chan mcpruntime.Reply, 1)
	go func() { done <- s.HandleRaw(context.Background(), []byte(elicitCall), sess, out) }()
	notified.Store(true)
	s.HandleRaw(context.Background(), []byte(initialized), sess, nil)
	r := recv(t, done, "the call's answer")
	select {
	case m := <-early:
		t.Errorf("elicitation/create before notifications/initialized: %s", m)
	default:
	}
	if code, isErr, _ := replyOf(t, r.Body); code != 0 || isErr {
		t.Errorf("call: got %s, want a result", r.Body)
	}
	asked := 0
	out.mu.Lock()
	for _, m := range out.msgs {
		if strings.Contains(m, `"method":"elicitation/create"`) {
			asked++
		}
	}
	out.mu.Unlock()
	if asked != 1 {
		t.Errorf("elicitation/create sent %d times, want once", asked)
	}
}

// TestRequestWaitingForInitializedEndsOnClose: a server-to-client request waiting
// for notifications/initialized under a context that never ends returns
// ErrSessionClosed when the session closes, instead of waiting forever.
func TestRequestWaitingForInitializedEndsOnClose(t *testing.T) {
	noLeak(t)
	s := everythingServer2(&mcpruntime.Options{Logger: quietLogger()})
	sess := s.NewSession(nil)
	if r := s.HandleRaw(context.Background(), []byte(elicitInit), sess, nil); r.Code != 0 {
		t.Fatalf("initialize: %s", r.Body)
	}
	done := make(chan error, 1)
	go func() {
		_, err := sess.Request(context.Background(), "roots/list", nil, nil)
		done <- err
	}()
	sess.Close()
	if err := <-done; !errors.Is(err, mcpruntime.ErrSessionClosed) {
		t.Fatalf("Request on a closed session: %v, want ErrSessionClosed", err)
	}
}
