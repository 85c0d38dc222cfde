package gosdk020

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/olderclient"
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
	olderclient.Main(m, filepath.Join("..", ".."), raceEnabled, &testserverBin)
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
	base := olderclient.StartHTTP(t, testserverBin)
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
	out, err := olderclient.Converse(ctx, olderclient.GoSDK(cs))
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// v0.2.0 does not expose the initialize result: the session's revision is
	// the MCP-Protocol-Version it sent, which must be one.
	sent := slices.Sorted(maps.Keys(rec.versions))
	out.Negotiated = strings.Join(sent, ", ")
	const rev = "2025-06-18"
	olderclient.Check(t, rev, out)
	for _, m := range rec.media {
		if method, ct, _ := strings.Cut(m, ": "); !strings.HasPrefix(method, "notifications/") && ct != "text/event-stream" {
			t.Errorf("%s answered as %q, want text/event-stream", method, ct)
		}
	}
}
