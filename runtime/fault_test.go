package runtime_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Fault tests: handlers that panic, hang, ignore cancellation or flood; clients
// that disconnect, close stdin, read slowly or send headers slowly. After each,
// the server answers a normal call and no goroutine is left behind.

// faultTools are tools added to the everything server for the fault tests.
type faultTools struct {
	gate      chan struct{} // closing it releases "gate" and "stubborn"
	started   chan string   // the name of each fault tool that started
	outcome   chan string   // "completed" or "cancelled" from "gate" and "hang"
	floodDone chan struct{} // "flood" sent all its notifications
	once      sync.Once
}

// release opens the gate (once).
func (f *faultTools) release() { f.once.Do(func() { close(f.gate) }) }

const faultNoInput = `{"type":"object","additionalProperties":false}`

func newFaultServer(t *testing.T, opts *mcpruntime.Options) (*mcpruntime.Server, *faultTools) {
	t.Helper()
	if opts == nil {
		opts = &mcpruntime.Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	s := everythingServer2(opts)
	f := &faultTools{gate: make(chan struct{}), started: make(chan string, 16), outcome: make(chan string, 16), floodDone: make(chan struct{}, 1)}
	tool := func(name string, h func(ctx context.Context) (*mcpruntime.ToolResult, error)) {
		s.AddTool(&mcpruntime.Tool{Name: name, Description: "fault " + name, InputSchema: json.RawMessage(faultNoInput),
			Handler: func(ctx context.Context, _ *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
				f.started <- name
				return h(ctx)
			}})
	}
	text := func(s string) *mcpruntime.ToolResult {
		return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text(s)}}
	}
	tool("crash", func(context.Context) (*mcpruntime.ToolResult, error) {
		panic("secret-detail /home/build/src/secret.go:42")
	})
	tool("hang", func(ctx context.Context) (*mcpruntime.ToolResult, error) {
		<-ctx.Done()
		f.outcome <- "cancelled"
		return nil, ctx.Err()
	})
	tool("gate", func(ctx context.Context) (*mcpruntime.ToolResult, error) {
		select {
		case <-f.gate:
			f.outcome <- "completed"
			return text("gate passed"), nil
		case <-ctx.Done():
			f.outcome <- "cancelled"
			return nil, ctx.Err()
		}
	})
	tool("stubborn", func(context.Context) (*mcpruntime.ToolResult, error) {
		<-f.gate // ignores its context
		return text("too late"), nil
	})
	tool("flood", func(ctx context.Context) (*mcpruntime.ToolResult, error) {
		for i := 1; i <= 20000; i++ {
			if err := mcpruntime.Progress(ctx, float64(i), 20000, strings.Repeat("p", 200)); err != nil {
				return nil, err
			}
		}
		f.floodDone <- struct{}{}
		return text("flooded"), nil
	})
	t.Cleanup(f.release)
	return s, f
}

// everythingServer2 is everythingServer with options.
func everythingServer2(opts *mcpruntime.Options) *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "everything", Version: "test"}, opts)
	registerEverything(s)
	return s
}

// recv waits for a value on ch.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", what)
	}
	var zero T
	return zero
}

// noLeak checks for leaked goroutines when the test ends.
func noLeak(t *testing.T) {
	t.Helper()
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := goleak.Find(opt); err != nil {
			t.Error(err)
		}
	})
}

// leakFree are the strings no client-visible error may contain.
var leakFree = []string{"secret-detail", "goroutine ", ".go:", "/home/", "panic", "runtime/debug"}

func checkNoLeakText(t *testing.T, b []byte) {
	t.Helper()
	for _, s := range leakFree {
		if strings.Contains(string(b), s) {
			t.Errorf("client saw %q: %.300s", s, b)
		}
	}
}

// TestFaultPanic: a panicking handler is an isError result without any detail,
// over stdio and HTTP in both eras, and the server keeps serving.
func TestFaultPanic(t *testing.T) {
	noLeak(t)
	s, _ := newFaultServer(t, nil)
	p := startStdio(t, s)
	p.send(t, legacyInit)
	p.next(t)
	h := startHTTP(t, s, nil)
	for _, modern := range []bool{false, true} {
		p.send(t, callLine(modern, `"c"`, "crash", "{}"))
		got := p.next(t)
		if code, isErr, _ := replyOf(t, got); code != 0 || !isErr || !strings.Contains(string(got), "internal error in tool crash") {
			t.Errorf("stdio %s: got %s, want isError internal error", eraName(modern), got)
		}
		checkNoLeakText(t, got)
		msgs := messages(t, h.post(t, modern, callLine(modern, `"c"`, "crash", "{}"), nil, ""))
		if len(msgs) != 1 {
			t.Fatalf("HTTP %s: got %d messages", eraName(modern), len(msgs))
		}
		if code, isErr, _ := replyOf(t, msgs[0]); code != 0 || !isErr {
			t.Errorf("HTTP %s: got %s, want isError", eraName(modern), msgs[0])
		}
		checkNoLeakText(t, msgs[0])
		p.send(t, simpleCallFor(modern))
		if code, isErr, _ := replyOf(t, p.next(t)); code != 0 || isErr {
			t.Errorf("stdio %s: normal call after a panic failed", eraName(modern))
		}
	}
}

func simpleCallFor(modern bool) string {
	if modern {
		return simpleCallModern
	}
	return simpleCallLegacy
}

// TestFaultIgnoresCancellation: a handler that never returns is cut off at
// Options.CallTimeout with an isError result, over stdio and HTTP in both eras;
// the server keeps serving.
func TestFaultIgnoresCancellation(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, &mcpruntime.Options{CallTimeout: 100 * time.Millisecond})
	p := startStdio(t, s)
	p.send(t, legacyInit)
	p.next(t)
	h := startHTTP(t, s, nil)
	timedOut := func(t *testing.T, got []byte) {
		t.Helper()
		if code, isErr, _ := replyOf(t, got); code != 0 || !isErr || !strings.Contains(string(got), "did not finish within") {
			t.Errorf("got %s, want isError: did not finish", got)
		}
	}
	for _, modern := range []bool{true, false} {
		t.Run("stdio "+eraName(modern), func(t *testing.T) {
			p.send(t, callLine(modern, `"s"`, "stubborn", "{}"))
			timedOut(t, p.next(t))
			p.send(t, simpleCallFor(modern))
			if code, isErr, _ := replyOf(t, p.next(t)); code != 0 || isErr {
				t.Error("normal call after a timed-out one failed")
			}
		})
		t.Run("HTTP "+eraName(modern), func(t *testing.T) {
			msgs := messages(t, h.post(t, modern, callLine(modern, `"s"`, "stubborn", "{}"), nil, ""))
			if len(msgs) != 1 {
				t.Fatalf("got %d messages, want the timeout result", len(msgs))
			}
			timedOut(t, msgs[0])
			msgs = messages(t, h.post(t, modern, simpleCallFor(modern), nil, ""))
			if len(msgs) != 1 {
				t.Fatalf("follow-up got %d messages", len(msgs))
			}
			if code, isErr, _ := replyOf(t, msgs[0]); code != 0 || isErr {
				t.Error("normal call after a timed-out one failed")
			}
		})
	}
	f.release() // the abandoned handlers end, so nothing leaks
}

// TestFaultIgnoresCancellationHandle: the same through Server.Handle, whose caller
// waits for the reply (the handler runs aside): the deadline answers a stuck call,
// a call whose caller cancelled still gets until its deadline, and one returning in
// time is answered normally.
func TestFaultIgnoresCancellationHandle(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, &mcpruntime.Options{CallTimeout: 100 * time.Millisecond})
	for _, modern := range []bool{true, false} {
		t.Run(eraName(modern), func(t *testing.T) {
			var sess *mcpruntime.Session
			if !modern {
				sess = legacySession(t, s)
			}
			r := s.HandleRaw(context.Background(), []byte(callLine(modern, `"s"`, "stubborn", "{}")), sess, nil)
			if code, isErr, _ := replyOf(t, r.Body); code != 0 || !isErr || !strings.Contains(string(r.Body), "did not finish within") {
				t.Errorf("stuck call: got %s, want isError: did not finish", r.Body)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // cancelled before it starts: the handler still runs until the deadline
			r = s.HandleRaw(ctx, []byte(callLine(modern, `"c"`, "stubborn", "{}")), sess, nil)
			if r.Body != nil && !strings.Contains(string(r.Body), "did not finish within") {
				t.Errorf("cancelled stuck call: got %s, want no reply or the timeout result", r.Body)
			}
			r = s.HandleRaw(context.Background(), []byte(simpleCallFor(modern)), sess, nil)
			if code, isErr, _ := replyOf(t, r.Body); code != 0 || isErr {
				t.Errorf("normal call after timed-out ones: got %s", r.Body)
			}
		})
	}
	f.release()
}

// TestFaultCancelledThenOverdue: over stdio with one slot, a 2025-11-25 call
// whose handler ignores cancellation is cancelled: it is never answered, and
// its slot frees at the deadline, so a call waiting for it is answered.
func TestFaultCancelledThenOverdue(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, &mcpruntime.Options{CallTimeout: 200 * time.Millisecond, MaxConcurrentRequests: 1})
	p := startStdio(t, s)
	p.send(t, legacyInit)
	p.next(t)
	p.send(t, callLine(false, `"s"`, "stubborn", "{}"))
	recv(t, f.started, "start of stubborn")
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`)
	p.send(t, simpleCallLegacy) // waits for the only slot
	if l := p.next(t); !strings.Contains(string(l), `"id":"ok"`) {
		t.Errorf("got %s, want only the waiting call's answer", l)
	}
	f.release()
}

// TestFaultHangCancelledStdio: a hanging handler is cancelled by
// notifications/cancelled and answers nothing; a duplicate id while it is in
// flight is refused; the server keeps serving.
func TestFaultHangCancelledStdio(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, nil)
	p := startStdio(t, s)
	p.send(t, legacyInit)
	p.next(t)
	p.send(t, callLine(false, "9", "hang", "{}"))
	recv(t, f.started, "start of hang")
	p.send(t, callLine(false, "9", "test_simple_text", "{}"))
	if code, _, id := replyOf(t, p.next(t)); code != -32600 || string(id) != "9" {
		t.Errorf("duplicate in-flight id: got code %d id %s, want -32600 for id 9", code, id)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"test"}}`)
	if got := recv(t, f.outcome, "cancellation"); got != "cancelled" {
		t.Errorf("handler outcome %q, want cancelled", got)
	}
	p.send(t, simpleCallLegacy)
	if l := p.next(t); !strings.Contains(string(l), `"id":"ok"`) {
		t.Errorf("got %s after cancelling, want only the follow-up's answer", l)
	}
}

// TestFaultStdinClosedInFlight: closing stdin with a call in flight lets it
// finish and be answered before ServeStdio returns nil.
func TestFaultStdinClosedInFlight(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	io.WriteString(inW, callLine(true, `"g"`, "gate", "{}")+"\n")
	recv(t, f.started, "start of gate")
	inW.Close()
	f.release()
	out, _ := io.ReadAll(outR)
	if err := recv(t, done, "ServeStdio return"); err != nil {
		t.Errorf("ServeStdio: %v, want nil", err)
	}
	if !strings.Contains(string(out), "gate passed") {
		t.Errorf("stdout %q, want the in-flight call's answer", out)
	}
}

// TestFaultHTTPDisconnect: a client that drops the connection mid-call cancels
// a 2026-07-28 handler, while a 2025-11-25 handler runs on (its answer stays
// available on the session); the server keeps serving both eras.
func TestFaultHTTPDisconnect(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, nil)
	h := startHTTP(t, s, nil)
	for _, modern := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		body := callLine(modern, `"g"`, "gate", "{}")
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(body))
		req.Header = h.headersFor(modern, body)
		errc := make(chan error, 1)
		go func() {
			resp, err := h.client.Do(req)
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			errc <- err
		}()
		recv(t, f.started, "start of gate")
		cancel()
		recv(t, errc, "client return")
		if modern {
			if got := recv(t, f.outcome, "handler end"); got != "cancelled" {
				t.Errorf("2026-07-28: handler %s after disconnect, want cancelled", got)
			}
		} else {
			f.release()
			if got := recv(t, f.outcome, "handler end"); got != "completed" {
				t.Errorf("2025-11-25: handler %s after disconnect, want completed", got)
			}
		}
		msgs := messages(t, h.post(t, modern, simpleCallFor(modern), nil, ""))
		if len(msgs) != 1 {
			t.Fatalf("%s: follow-up got %d messages", eraName(modern), len(msgs))
		}
	}
}

// TestFaultSlowSSEReader: a handler sends 20000 progress notifications (4 MB)
// to a client that reads nothing until the handler is done; the server
// survives and still delivers the result. How many notifications arrive
// depends on the kernel's socket buffers, so the bound itself is tested
// directly, on the stream: TestExchangeBacklogBound.
func TestFaultSlowSSEReader(t *testing.T) {
	noLeak(t)
	s, f := newFaultServer(t, nil)
	h := startHTTP(t, s, nil)
	body := `{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"pt","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"rel","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp := h.post(t, true, body, nil, "")
	recv(t, f.floodDone, "end of flood") // nothing read so far
	msgs := messages(t, resp)
	if len(msgs) == 0 {
		t.Fatal("no messages")
	}
	if !strings.Contains(string(msgs[len(msgs)-1]), "flooded") {
		t.Errorf("last message %.200s, want the result", msgs[len(msgs)-1])
	}
	if n := len(msgs) - 1; n >= 20000 {
		t.Errorf("got all %d notifications to a reader that read nothing: buffering is unbounded", n)
	} else {
		t.Logf("slow reader got %d of 20000 notifications", n)
	}
}

// TestFaultSlowloris: a client that sends its headers slowly is disconnected
// at ReadHeaderTimeout and the server keeps serving.
func TestFaultSlowloris(t *testing.T) {
	noLeak(t)
	s, _ := newFaultServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	logs := &urlLog{url: make(chan string, 1)}
	_ = slog.New(logs)
	s2 := everythingServer2(&mcpruntime.Options{Logger: slog.New(logs)})
	_ = s
	done := make(chan error, 1)
	go func() {
		done <- s2.ListenAndServe(ctx, "127.0.0.1:0", &mcpruntime.HTTPOptions{ReadHeaderTimeout: 200 * time.Millisecond})
	}()
	defer func() {
		cancel()
		if err := recv(t, done, "ListenAndServe return"); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ListenAndServe: %v", err)
		}
	}()
	url := recv(t, logs.url, "listen URL")
	host := strings.TrimPrefix(strings.SplitN(url, "/mcp", 2)[0], "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nX-Slow: ", host)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = bufio.NewReader(conn).ReadString('\n')
	if err == nil {
		// Go may answer 408 before closing; either way the connection ends.
		_, err = io.ReadAll(conn)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept a slowloris connection open for 30s")
	}
	p := &httpPeer{url: url, client: &http.Client{}}
	defer p.client.CloseIdleConnections()
	msgs := messages(t, p.post(t, true, simpleCallModern, nil, ""))
	if len(msgs) != 1 {
		t.Fatalf("follow-up got %d messages", len(msgs))
	}
}

// urlLog is a slog handler that reports the url attribute of log records.
type urlLog struct{ url chan string }

func (l *urlLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *urlLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "url" {
			select {
			case l.url <- a.Value.String():
			default:
			}
		}
		return true
	})
	return nil
}
func (l *urlLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *urlLog) WithGroup(string) slog.Handler      { return l }
