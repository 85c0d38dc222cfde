package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
)

// goroutineID returns the calling goroutine's id, from its stack's header
// ("goroutine N [running]:"); tests only.
func goroutineID() uint64 {
	var b [64]byte
	n := goruntime.Stack(b[:], false)
	f := strings.Fields(string(b[:n]))
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// servedOnKey is the context key of the goroutine that entered ServeHTTP.
type servedOnKey struct{}

// TestHTTPCallInline: over an HTTP/1.1 connection a call's handler runs on
// the goroutine serving its POST (no hand-off to a worker), in both eras,
// while a writer that cannot end a response early (a ResponseRecorder) still
// gets the handler on another goroutine, and both are answered.
func TestHTTPCallInline(t *testing.T) {
	s := NewServer(Implementation{Name: "inline", Version: "1"}, &Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.AddTool(&Tool{Name: "where", Description: "Where reports whether it runs on the goroutine of ServeHTTP.", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if ctx.Value(servedOnKey{}) == goroutineID() {
				return &ToolResult{Content: []Content{Text("same goroutine")}}, nil
			}
			return &ToolResult{Content: []Content{Text("other goroutine")}}, nil
		}})
	h := s.HTTPHandler(nil)
	mark := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), servedOnKey{}, goroutineID())))
	})
	ts := httptest.NewServer(mark)
	t.Cleanup(ts.Close)

	c := newHTTPClient(t, ts)
	if status, msgs := c.modernCall(1, "tools/call", map[string]any{"name": "where"}, nil); status != 200 || len(msgs) != 1 || !bytes.Contains(msgs[0], []byte("same goroutine")) {
		t.Errorf("2026-07-28 call: %d %s, want it served on the POST's goroutine", status, msgs)
	}
	c.initialize()
	resp := c.post(context.Background(), legacyHeaders(), rpcRequest(2, "tools/call", map[string]any{"name": "where"}))
	if msgs := c.messages(resp, versionLegacy, "tools/call"); resp.StatusCode != 200 || len(msgs) != 1 || !bytes.Contains(msgs[0], []byte("same goroutine")) {
		t.Errorf("2025-11-25 call: %d %s, want it served on the POST's goroutine", resp.StatusCode, msgs)
	}

	body := rpcRequest(3, "tools/call", map[string]any{"name": "where", "_meta": modernMetaFor(nil)})
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
	req.Header = modernHeaders("tools/call", "where")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	mark.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "other goroutine") {
		t.Errorf("through a recorder: %d %s, want the handler on a worker", rec.Code, rec.Body)
	}
}
