package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// What a handler saw of its context at the call's deadline.
type seenDeadline struct {
	deadline    time.Time
	hasDeadline bool
	err         error // ctx.Err() once Done
	childErr    error // a context derived before the deadline: its Err and Cause
	childCause  error
}

// deadlineServer serves "wait": a handler that records its context at the
// deadline (seen) and then ignores it until release is closed; and "quick",
// which records its deadline and returns at once.
func deadlineServer(timeout time.Duration) (s *Server, seen chan seenDeadline, quick chan time.Time, release chan struct{}) {
	s = NewServer(Implementation{Name: "deadline", Version: "0"}, &Options{Logger: discardLogger(), CallTimeout: timeout})
	seen, quick, release = make(chan seenDeadline, 64), make(chan time.Time, 64), make(chan struct{})
	s.AddTool(&Tool{Name: "wait", Description: "Wait waits.", Annotations: &ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			child, cancel := context.WithCancel(ctx)
			defer cancel()
			var v seenDeadline
			v.deadline, v.hasDeadline = ctx.Deadline()
			<-ctx.Done()
			<-child.Done()
			v.err, v.childErr, v.childCause = ctx.Err(), child.Err(), context.Cause(child)
			seen <- v
			<-release
			return &ToolResult{Content: []Content{Text("too late")}}, nil
		}})
	s.AddTool(&Tool{Name: "quick", Description: "Quick returns.", Annotations: &ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			d, _ := ctx.Deadline()
			quick <- d
			return &ToolResult{Content: []Content{Text("quick")}}, nil
		}})
	return s, seen, quick, release
}

func deadlineCall(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, tool)
}

// checkSeen checks what a handler saw at its deadline.
func checkSeen(t *testing.T, v seenDeadline, sent time.Time, timeout time.Duration) {
	t.Helper()
	if !v.hasDeadline || v.deadline.Before(sent.Add(timeout)) || v.deadline.After(time.Now()) {
		t.Errorf("ctx.Deadline() = %v, %v; want a deadline between %v and now", v.deadline, v.hasDeadline, sent.Add(timeout))
	}
	if v.err != context.DeadlineExceeded {
		t.Errorf("ctx.Err() = %v, want context.DeadlineExceeded", v.err)
	}
	if v.childErr == nil || !errors.Is(v.childCause, context.DeadlineExceeded) {
		t.Errorf("derived context: Err %v, Cause %v; want cancelled with cause DeadlineExceeded", v.childErr, v.childCause)
	}
}

// checkWatchEmpty checks that no concluded call is still watched.
func checkWatchEmpty(t *testing.T, s *Server) {
	t.Helper()
	if !s.deadlines.Empty() {
		t.Error("deadline watch still holds calls")
	}
}

// TestCallDeadlineHandle: through HandleRaw (the handler runs aside), a handler
// sees its deadline, its context ends with DeadlineExceeded at the deadline, the
// call is answered with the timeout result, and quick calls before and after
// leave nothing in the server's deadline watch.
func TestCallDeadlineHandle(t *testing.T) {
	const timeout = 80 * time.Millisecond
	s, seen, quick, release := deadlineServer(timeout)
	defer close(release)
	for i := range 50 {
		sent := time.Now()
		r := s.HandleRaw(t.Context(), []byte(deadlineCall(i, "quick")), nil, nil)
		if !strings.Contains(string(r.Body), `"quick"`) {
			t.Fatalf("quick call: %s", r.Body)
		}
		if d := <-quick; d.Before(sent.Add(timeout)) || d.After(time.Now().Add(timeout)) {
			t.Fatalf("quick call's deadline %v, want %v after its start", d, timeout)
		}
	}
	checkWatchEmpty(t, s)
	sent := time.Now()
	r := s.HandleRaw(t.Context(), []byte(deadlineCall(99, "wait")), nil, nil)
	if !strings.Contains(string(r.Body), "did not finish within") || !strings.Contains(string(r.Body), `"isError":true`) {
		t.Errorf("stuck call: got %s, want the timeout result", r.Body)
	}
	checkSeen(t, <-seen, sent, timeout)
	checkWatchEmpty(t, s)
}

// TestCallDeadlineStdio: over stdio (the handler runs on the connection's
// worker and the deadline answers it), several stuck calls started at
// different times are each answered at their own deadline, quick calls between
// them are answered normally, and the watch ends empty.
func TestCallDeadlineStdio(t *testing.T) {
	const timeout = 150 * time.Millisecond
	s, seen, quick, release := deadlineServer(timeout)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	const stuck = 5
	sent := make([]time.Time, stuck)
	for i := range stuck {
		sent[i] = time.Now()
		if _, err := io.WriteString(inW, deadlineCall(i, "wait")+"\n"+deadlineCall(100+i, "quick")+"\n"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(timeout / 10)
	}
	answered := map[int]string{}
	for len(answered) < 2*stuck {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout closed after %d replies", len(answered))
			}
			var m struct{ ID int }
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("reply %q: %v", l, err)
			}
			answered[m.ID] = l
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d calls answered", len(answered), 2*stuck)
		}
	}
	for i := range stuck {
		if l := answered[i]; !strings.Contains(l, "did not finish within") {
			t.Errorf("stuck call %d: got %s, want the timeout result", i, l)
		}
		if l := answered[100+i]; !strings.Contains(l, `"quick"`) {
			t.Errorf("quick call %d: got %s", 100+i, l)
		}
		<-quick
	}
	for range stuck {
		v := <-seen
		checkSeen(t, v, sent[0], timeout)
	}
	close(release)
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkWatchEmpty(t, s)
}
