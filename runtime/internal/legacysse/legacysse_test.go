package legacysse

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// session echoes every POSTed body back on its stream.
type session struct{ ended atomic.Bool }

func newTransport(t *testing.T, release chan struct{}) (*Transport[*session], *httptest.Server, *atomic.Pointer[session]) {
	var last atomic.Pointer[session]
	tr := New(Config[*session]{
		StreamPath: "/sse", MessagePath: "/message", MaxSessions: 1, MaxConcurrentRequests: 1,
		Closed: errors.New("closed"), OtherCaller: "other caller",
		Admit:  func(w http.ResponseWriter, r *http.Request) (*http.Request, bool) { return r, true },
		Caller: func(r *http.Request) string { return r.Header.Get("X-Caller") },
		PeerOf: func(r *http.Request) string { return r.Header.Get("X-Peer") },
		ReadBody: func(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
			b, err := io.ReadAll(r.Body)
			return b, err == nil
		},
		Refuse: func(w http.ResponseWriter, status int, id []byte, msg string) { http.Error(w, msg, status) },
		Busy: func(w http.ResponseWriter, id []byte) {
			http.Error(w, "busy "+string(id), http.StatusServiceUnavailable)
		},
		NewSession: func(out Sink) *session {
			s := &session{}
			last.Store(s)
			return s
		},
		EndSession: func(s *session) { s.ended.Store(true) },
		Post: func(w http.ResponseWriter, ctx context.Context, s *session, body []byte, out Sink, run func(id []byte, f func())) {
			run([]byte("1"), func() {
				<-release
				_ = out.Send(ctx, body)
			})
		},
	})
	ts := httptest.NewServer(tr)
	t.Cleanup(ts.Close)
	return tr, ts, &last
}

func post(t *testing.T, url, caller, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("X-Caller", caller)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestStreamAndMessages: the endpoint event names the message URL; a POST is
// answered 202 and its answer arrives on the stream as a "message" event; the
// bounds (one stream, one running request) and the caller check hold; the
// session ends with its stream.
func TestStreamAndMessages(t *testing.T) {
	release := make(chan struct{})
	tr, ts, last := newTransport(t, release)
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("X-Caller", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	next := func() (string, string) {
		var event, data string
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "" && event != "":
				return event, data
			}
		}
	}
	event, endpoint := next()
	first := last.Load()
	if event != "endpoint" || !strings.HasPrefix(endpoint, "/message?sessionId=") {
		t.Fatalf("first event %q %q", event, endpoint)
	}
	if resp2, err := http.Get(ts.URL + "/sse"); err != nil || resp2.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a second stream beyond MaxSessions: %v %v", resp2.StatusCode, err)
	}
	if code := post(t, ts.URL+"/message?sessionId=nope", "alice", "x"); code != http.StatusNotFound {
		t.Errorf("unknown session: %d", code)
	}
	if code := post(t, ts.URL+endpoint, "mallory", "x"); code != http.StatusForbidden {
		t.Errorf("another caller: %d", code)
	}
	if code := post(t, ts.URL+endpoint, "alice", `{"n":1}`); code != http.StatusAccepted {
		t.Fatalf("message: %d", code)
	}
	if code := post(t, ts.URL+endpoint, "alice", `{"n":2}`); code != http.StatusServiceUnavailable {
		t.Errorf("second running request beyond MaxConcurrentRequests: %d", code)
	}
	close(release)
	if event, data := next(); event != "message" || data != `{"n":1}` {
		t.Errorf("message event %q %q", event, data)
	}
	tr.EndStreams()
	deadline := time.Now().Add(10 * time.Second)
	for !first.ended.Load() {
		if time.Now().After(deadline) {
			t.Fatal("the session did not end with its stream")
		}
		time.Sleep(time.Millisecond)
	}
	if code := post(t, ts.URL+endpoint, "alice", "x"); code != http.StatusNotFound {
		t.Errorf("message after the stream ended: %d", code)
	}
}
