package runtime_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Security defaults: the bound on concurrent requests holds over Streamable
// HTTP in both eras, with the answer stdio gives (-32603 "server busy"), here
// with status 503.

// busyMessage is the error message of a request beyond the bound.
const busyMessage = "server busy: too many requests in flight"

// httpAnswer is a response read without a *testing.T (for goroutines).
type httpAnswer struct {
	status int
	msgs   [][]byte
	err    error
}

// postAsync posts body with the era's headers and reads the whole answer.
func (p *httpPeer) postAsync(modern bool, body, session string) httpAnswer {
	req, err := http.NewRequest(http.MethodPost, p.url, strings.NewReader(body))
	if err != nil {
		return httpAnswer{err: err}
	}
	req.Header = p.headersFor(modern, body)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return httpAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return httpAnswer{err: err}
	}
	a := httpAnswer{status: resp.StatusCode}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		a.msgs = [][]byte{b}
		return a
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if d, ok := strings.CutPrefix(l, "data:"); ok && strings.TrimSpace(d) != "" {
			a.msgs = append(a.msgs, []byte(strings.TrimSpace(d)))
		}
	}
	return a
}

// TestHTTPConcurrencyLimit fills the bound with calls that wait at a gate, then
// checks the exact refusal of one more request, that the bound's scope is right
// (a 2025-11-25 session's bound leaves other sessions alone; the 2026-07-28
// bound is the handler's), and that everything is served once the gate opens.
func TestHTTPConcurrencyLimit(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(eraName(modern), func(t *testing.T) {
			noLeak(t)
			const limit = 3
			s, f := newFaultServer(t, &mcpruntime.Options{MaxConcurrentRequests: limit})
			p := startHTTP(t, s, &mcpruntime.HTTPOptions{MaxStatelessRequests: limit})
			t.Cleanup(f.release) // before the test server's Close, which waits for the held calls
			held := make(chan httpAnswer, limit)
			for i := range limit {
				go func() { held <- p.postAsync(modern, callLine(modern, fmt.Sprint(100+i), "gate", "{}"), "") }()
			}
			for range limit {
				recv(t, f.started, "gate call")
			}

			busy := p.postAsync(modern, reqLine(modern, `"over"`, "tools/list", "{}"), "")
			if busy.err != nil {
				t.Fatal(busy.err)
			}
			if busy.status != http.StatusServiceUnavailable || len(busy.msgs) != 1 {
				t.Fatalf("request beyond the bound: status %d, %d messages; want 503 and one error", busy.status, len(busy.msgs))
			}
			var e struct {
				ID    json.RawMessage
				Error struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(busy.msgs[0], &e); err != nil || e.Error.Code != -32603 ||
				e.Error.Message != busyMessage || string(e.ID) != `"over"` {
				t.Errorf("request beyond the bound: got %s, want -32603 %q with id \"over\"", busy.msgs[0], busyMessage)
			}

			if !modern {
				// Another session has its own bound.
				other := p.post(t, false, legacyInit, nil, "")
				messages(t, other)
				sid := other.Header.Get("Mcp-Session-Id")
				if other.StatusCode != 200 || sid == "" {
					t.Fatalf("second session: status %d, id %q", other.StatusCode, sid)
				}
				p.postAsync(false, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
				if a := p.postAsync(false, simpleCallLegacy, sid); a.err != nil || a.status != 200 || len(a.msgs) != 1 || !okResult(a.msgs[0]) {
					t.Errorf("call in another session while the first is full: %+v", a)
				}
			}

			f.release()
			for range limit {
				a := <-held
				if a.err != nil || a.status != 200 || len(a.msgs) == 0 || !okResult(a.msgs[len(a.msgs)-1]) {
					t.Errorf("held call: status %d err %v messages %q", a.status, a.err, a.msgs)
				}
				recv(t, f.outcome, "gate outcome")
			}
			follow := simpleCallLegacy
			if modern {
				follow = simpleCallModern
			}
			ok := messages(t, p.post(t, modern, follow, nil, ""))
			if len(ok) != 1 || !okResult(ok[0]) {
				t.Errorf("follow-up call: got %q", ok)
			}
		})
	}
}

// okResult reports whether b is a result that is not a tool error.
func okResult(b []byte) bool {
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	return json.Unmarshal(b, &m) == nil && m.Result != nil && !m.Result.IsError
}
