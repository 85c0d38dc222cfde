package runtime

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/stdioconn"
)

func TestStdioFraming(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil))
	tests := []struct {
		line   string
		code   int
		wantID string // "" means no id
	}{
		{`{bad json`, CodeParseError, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, CodeInvalidRequest, ""},
		{`{"id":3,"method":"ping"}`, CodeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":4}`, CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":5,"method":7}`, CodeInvalidRequest, "5"},
		{`"just a string"`, CodeInvalidRequest, ""},
	}
	for _, tt := range tests {
		c.send(tt.line)
		m := c.next()
		if m.errorCode() != tt.code || string(m.ID) != tt.wantID {
			t.Errorf("%s: got %s, want code %d and id %q", tt.line, m.raw, tt.code, tt.wantID)
		}
	}
	// A trailing \r, blank lines and string ids are fine.
	c.send("\r\n   \n" + `{"jsonrpc":"2.0","id":"abc","method":"ping"}` + "\r")
	if m := c.next(); string(m.ID) != `"abc"` || string(m.Result) != "{}" {
		t.Errorf("ping with \\r: got %s, want result {} for id \"abc\"", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","id":-12,"method":"ping"}`)
	if m := c.next(); string(m.ID) != `-12` {
		t.Errorf("negative id: got %s", m.raw)
	}
}

func TestStdioLargeLine(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil))
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", MaxMessageSize) + `"}}`
	c.send(big)
	if m := c.next(); m.errorCode() != CodeInvalidRequest || m.ID != nil || !strings.Contains(m.Error.Message, "too large") {
		t.Errorf("oversized line: got %s, want -32600 message too large", m.raw)
	}
	if m := c.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping after an oversized line: got %s", m.raw)
	}
	// A line just under the limit is accepted.
	ok := `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"` + strings.Repeat("y", 1<<20) + `"}}`
	c.send(ok)
	if m := c.next(); string(m.ID) != `"big"` || m.Error != nil {
		t.Errorf("1 MiB ping: got %.200s", m.raw)
	}
}

func TestStdioEOFLetsInflightFinish(t *testing.T) {
	release := make(chan struct{})
	slow := simpleTool("slow", func(context.Context) (*ToolResult, error) {
		<-release
		return &ToolResult{Content: []Content{Text("finished")}}, nil
	})
	s := newTestServer(t, nil, slow)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	c := newTestClient(t, inW, outR)
	id := c.modern("tools/call", map[string]any{"name": "slow"})
	time.Sleep(50 * time.Millisecond) // let the call start
	inW.Close()
	select {
	case err := <-done:
		t.Fatalf("ServeStdio returned %v while a call was in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	resp, _ := c.await(id)
	var res callResult
	resp.decodeResult(t, &res)
	if len(res.Content) != 1 || res.Content[0].Text != "finished" {
		t.Errorf("in-flight call after EOF: got %s", resp.raw)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeStdio after EOF = %v, want nil", err)
	}
	c.drain()
}

func TestStdioConcurrentRequests(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	c := serveInMemory(t, newTestServer(t, nil, blockTool(started, cancelled)))
	id := c.modern("tools/call", map[string]any{"name": "block"})
	<-started
	// The blocked call does not hold up other requests.
	if m := c.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping while a call blocks: got %s", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `}}`)
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context: %v, want canceled", err)
	}
	c.expectQuiet(200 * time.Millisecond)
}

func TestStdioDrainOnStop(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	s := newTestServer(t, &Options{DrainTimeout: 100 * time.Millisecond}, blockTool(started, cancelled))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	c := newTestClient(t, inW, outR)
	c.modern("tools/call", map[string]any{"name": "block"})
	<-started
	start := time.Now()
	stop()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context after drain timeout: %v, want canceled", err)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeStdio after stop = %v, want nil", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("stopped after %v, want at least the 100ms drain timeout", d)
	}
	inW.Close() // ends the reading goroutine
	c.drain()
}

func TestStdioDuplicateInflightID(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	c := serveInMemory(t, newTestServer(t, nil, blockTool(started, cancelled)))
	line := `{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"block","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	c.send(line)
	<-started
	c.send(`{"jsonrpc":"2.0","id":"dup","method":"ping"}`)
	m := c.next()
	for m.Method != "" { // skip the block tool's progress, if any
		m = c.next()
	}
	if m.errorCode() != CodeInvalidRequest || string(m.ID) != `"dup"` {
		t.Errorf("reused in-flight id: got %s, want -32600", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dup"}}`)
	<-cancelled
}

func TestStdioBusy(t *testing.T) {
	started, cancelled := make(chan struct{}, 32), make(chan error, 32)
	c := serveInMemory(t, newTestServer(t, &Options{MaxConcurrentRequests: 1}, blockTool(started, cancelled)))
	ids := []string{string(c.modern("tools/call", map[string]any{"name": "block"}))}
	<-started // the first runs, the others wait for its slot
	for range stdioconn.QueueFactor - 1 {
		ids = append(ids, string(c.modern("tools/call", map[string]any{"name": "block"})))
	}
	busy := c.call(false, "ping", nil)
	if busy.errorCode() != CodeInternalError || !strings.Contains(busy.Error.Message, "busy") {
		t.Errorf("request beyond the queue: got %s, want -32603 server busy", busy.raw)
	}
	// Cancelling the waiting calls first: they never run and are not answered.
	for _, id := range ids[1:] {
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + ids[0] + `}}`)
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("running call: %v, want canceled", err)
	}
	c.expectQuiet(200 * time.Millisecond)
	if len(started) != 0 {
		t.Errorf("%d cancelled waiting calls ran", len(started))
	}
	if m := c.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping after the cancellations: %s", m.raw)
	}
}

func TestStdioAnswersReachBusyHandlers(t *testing.T) {
	answered := make(chan error, 1)
	asker := simpleTool("ask", func(ctx context.Context) (*ToolResult, error) {
		c := callFrom(ctx)
		_, err := c.sess.Request(ctx, "roots/list", nil, c.out)
		answered <- err
		return &ToolResult{Content: []Content{Text("asked")}}, nil
	})
	c := serveInMemory(t, newTestServer(t, &Options{MaxConcurrentRequests: 1}, asker))
	initialize(t, c, "2025-11-25")
	id := c.request("tools/call", map[string]any{"name": "ask"})
	req := c.next() // the server's roots/list request
	if req.Method != "roots/list" {
		t.Fatalf("got %s, want a roots/list request", req.raw)
	}
	ping := c.request("ping", nil) // waits for the only slot
	c.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[]}}`)
	if err := <-answered; err != nil {
		t.Fatalf("Request: %v", err)
	}
	if m, _ := c.await(id); m.Error != nil {
		t.Errorf("tools/call: %s", m.raw)
	}
	if m, _ := c.await(ping); string(m.Result) != "{}" {
		t.Errorf("ping: %s", m.raw)
	}
}
