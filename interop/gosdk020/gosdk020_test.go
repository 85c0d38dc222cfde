package gosdk020

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK v0.2.0 client against runtime/internal/testserver over
// Streamable HTTP. Its client reads a POST's answer only when it is an event
// stream (an application/json answer is dropped unread, and the call never
// returns), so every answer it is owed, initialize's included, must come as
// one. It speaks 2025-06-18, whose messages the older Go clients' cells
// (../older) validate against the schema.

var testserverBin string

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	tmp, err := os.MkdirTemp("", "mcpgen-interop-gosdk020-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(tmp)
	testserverBin = filepath.Join(tmp, "testserver")
	args := []string{"build", "-o", testserverBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./runtime/internal/testserver")...)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("go build testserver: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// A wire records what the client sends and the media type of each answer.
type wire struct {
	mu       sync.Mutex
	versions map[string]bool // MCP-Protocol-Version headers sent
	media    []string        // method: Content-Type of its answer
}

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	var method string
	if r.Body != nil && r.Method == http.MethodPost {
		body, err := r.GetBody()
		if err == nil {
			var m struct{ Method string }
			buf := new(bytes.Buffer)
			_, _ = buf.ReadFrom(body)
			_ = json.Unmarshal(buf.Bytes(), &m)
			method = m.Method
		}
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	w.mu.Lock()
	defer w.mu.Unlock()
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		w.versions[v] = true
	}
	if err == nil && method != "" {
		w.media = append(w.media, method+": "+resp.Header.Get("Content-Type"))
	}
	return resp, err
}

// TestGoSDK020OverHTTP: initialize, ping, tools/list and four tool calls, each
// answered as an event stream; the session speaks 2025-06-18.
func TestGoSDK020OverHTTP(t *testing.T) {
	base := startHTTP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rec := &wire{versions: map[string]bool{}}
	tr := gosdk.NewStreamableClientTransport(base+"/mcp", &gosdk.StreamableClientTransportOptions{HTTPClient: &http.Client{Transport: rec}})
	c := gosdk.NewClient(&gosdk.Implementation{Name: "gosdk-v0.2.0", Version: "1"}, nil)
	// The client waits for an answer it cannot read without regard to ctx:
	// a watchdog turns that hang into a failure.
	type connected struct {
		cs  *gosdk.ClientSession
		err error
	}
	done := make(chan connected, 1)
	go func() {
		cs, err := c.Connect(ctx, tr)
		done <- connected{cs, err}
	}()
	var cs *gosdk.ClientSession
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("connect: %v", r.err)
		}
		cs = r.cs
	case <-time.After(30 * time.Second):
		rec.mu.Lock()
		defer rec.mu.Unlock()
		t.Fatalf("connect: no answer after 30 s (answers: %q); the client reads only event streams", rec.media)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	tools := 0
	for cursor := ""; ; {
		page, err := cs.ListTools(ctx, &gosdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools += len(page.Tools)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if tools < 5 {
		t.Errorf("listed %d tools", tools)
	}
	type out struct {
		types, texts []string
		structured   bool
		isError      bool
	}
	got := map[string]out{}
	for _, call := range []struct {
		name string
		args map[string]any
	}{{"whoami", nil}, {"echo", map[string]any{"text": "hi"}}, {"rich", nil}, {"fail", nil}} {
		res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: call.name, Arguments: call.args})
		if err != nil {
			t.Fatalf("tools/call %s: %v", call.name, err)
		}
		o := out{structured: res.StructuredContent != nil, isError: res.IsError}
		for _, b := range res.Content {
			raw, _ := json.Marshal(b)
			var blk struct{ Type, Text string }
			_ = json.Unmarshal(raw, &blk)
			o.types = append(o.types, blk.Type)
			if blk.Type == "text" {
				o.texts = append(o.texts, blk.Text)
			}
		}
		got[call.name] = o
	}
	const rev = "2025-06-18"
	if w := got["whoami"]; len(w.texts) != 1 || !strings.Contains(w.texts[0], "version="+rev) {
		t.Errorf("whoami: %q, want version=%s", w.texts, rev)
	}
	if e := got["echo"]; len(e.texts) != 1 || e.texts[0] != `{"text":"hi"}` || !e.structured {
		t.Errorf("echo: text %q, structured %v", e.texts, e.structured)
	}
	if r := strings.Join(got["rich"].types, " "); r != "text image audio resource resource resource_link" {
		t.Errorf("rich: %s", r)
	}
	if !got["fail"].isError {
		t.Error("fail: isError false")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.versions) != 1 || !rec.versions[rev] {
		t.Errorf("MCP-Protocol-Version sent: %v, want only %s (the negotiated revision)", rec.versions, rev)
	}
	for _, m := range rec.media {
		if method, ct, _ := strings.Cut(m, ": "); !strings.HasPrefix(method, "notifications/") && ct != "text/event-stream" {
			t.Errorf("%s answered as %q, want text/event-stream", method, ct)
		}
	}
}

// startHTTP starts the test server on a free loopback port and returns its base
// URL; it gets SIGTERM when the test ends and must exit 0.
func startHTTP(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(testserverBin, "-http", addr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server after SIGTERM: %v\n%s", err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("server still running 15s after SIGTERM")
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not listening: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
