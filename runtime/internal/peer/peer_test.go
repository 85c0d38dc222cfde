package peer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// chanSink records what is sent on it.
type chanSink chan []byte

func (c chanSink) Send(_ context.Context, msg []byte) error { c <- msg; return nil }

type call struct{ name string }

func newSession(out Sink) *Session[string, *call] {
	s := &Session[string, *call]{}
	s.Init(out)
	return s
}

// TestHandshakeState: initialize happens once; the log level starts unset.
func TestHandshakeState(t *testing.T) {
	s := newSession(chanSink(make(chan []byte, 1)))
	if ok, v, _, _ := s.Snapshot(); ok || v != "" || s.LogLevel() != -1 {
		t.Fatalf("fresh session: initialized %v, version %q, level %d", ok, v, s.LogLevel())
	}
	if !s.Initialize("2025-11-25", "client", json.RawMessage(`{}`)) {
		t.Fatal("first initialize refused")
	}
	if s.Initialize("2025-06-18", "other", nil) {
		t.Fatal("second initialize accepted")
	}
	ok, v, info, caps := s.Snapshot()
	if !ok || v != "2025-11-25" || info != "client" || string(caps) != "{}" {
		t.Fatalf("snapshot: %v %q %q %s", ok, v, info, caps)
	}
	s.SetLogLevel(3)
	if s.LogLevel() != 3 {
		t.Fatalf("log level %d, want 3", s.LogLevel())
	}
}

// TestInFlight: an id is tracked once; Untrack only removes its own call;
// Close returns what is in flight and refuses new requests.
func TestInFlight(t *testing.T) {
	s := newSession(nil)
	a, b := &call{"a"}, &call{"b"}
	if !s.Track("1", a) || s.Track("1", b) {
		t.Fatal("a duplicate id was tracked")
	}
	s.Untrack("1", b) // not the call under "1"
	if c, ok := s.InFlight("1"); !ok || c != a {
		t.Fatalf("in flight under 1: %v %v", c, ok)
	}
	calls := s.Close()
	if len(calls) != 1 || calls[0] != a || !s.Closed() {
		t.Fatalf("Close returned %v, closed %v", calls, s.Closed())
	}
	if s.Track("2", b) {
		t.Fatal("a closed session tracked a request")
	}
	select {
	case <-s.Done():
	default:
		t.Fatal("Done not closed")
	}
}

// request runs s.Request on a goroutine and returns the message it sent and a
// channel with its outcome.
func request(t *testing.T, s *Session[string, *call], out chanSink, ctx context.Context) (map[string]any, chan error, chan json.RawMessage) {
	t.Helper()
	errc, resc := make(chan error, 1), make(chan json.RawMessage, 1)
	go func() {
		res, err := s.Request(ctx, "roots/list", nil, nil)
		resc <- res
		errc <- err
	}()
	var msg map[string]any
	select {
	case raw := <-out:
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("request %s: %v", raw, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no request sent")
	}
	return msg, errc, resc
}

// TestRequest: a request waits for readiness, goes out with a fresh id and no
// params for nil, and gets the result, a *ClientError, or ErrClosed.
func TestRequest(t *testing.T) {
	out := chanSink(make(chan []byte, 4))
	s := newSession(out)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := s.Request(ctx, "roots/list", nil, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "notifications/initialized") {
		t.Fatalf("before ready: %v", err)
	}
	s.MarkReady()
	s.MarkReady() // twice is fine

	msg, errc, resc := request(t, s, out, context.Background())
	if msg["id"] != float64(1) || msg["method"] != "roots/list" || msg["params"] != nil {
		t.Fatalf("request: %v", msg)
	}
	if !s.Deliver("1", json.RawMessage(`{"roots":[]}`), nil) {
		t.Fatal("Deliver found no pending request")
	}
	if res := <-resc; string(res) != `{"roots":[]}` || <-errc != nil {
		t.Fatalf("result %s", res)
	}
	if s.Deliver("1", nil, nil) {
		t.Fatal("a second answer was delivered")
	}

	_, errc, _ = request(t, s, out, context.Background())
	s.Deliver("2", nil, json.RawMessage(`{"code":-1,"message":"no"}`))
	var ce *ClientError
	if err := <-errc; !errors.As(err, &ce) || ce.Code != -1 || ce.Message != "no" {
		t.Fatalf("client error: %v", err)
	}

	_, errc, _ = request(t, s, out, context.Background())
	s.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := s.Request(context.Background(), "roots/list", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("on a closed session: %v", err)
	}
}

// TestRequestCancelled: giving up sends notifications/cancelled naming the id.
func TestRequestCancelled(t *testing.T) {
	out := chanSink(make(chan []byte, 4))
	s := newSession(out)
	s.MarkReady()
	ctx, cancel := context.WithCancel(context.Background())
	_, errc, _ := request(t, s, out, ctx)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if got := string(<-out); got != `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}` {
		t.Fatalf("cancellation: %s", got)
	}
	if s.Deliver("1", json.RawMessage(`{}`), nil) {
		t.Fatal("a late answer found its abandoned request")
	}
}

// TestEncodeRequest: params that encode to null are left out; bad params fail.
func TestEncodeRequest(t *testing.T) {
	b, err := EncodeRequest("7", "ping", nil)
	if err != nil || string(b) != `{"jsonrpc":"2.0","id":7,"method":"ping"}` {
		t.Fatalf("%s %v", b, err)
	}
	if _, err := EncodeRequest("8", "x", func() {}); err == nil {
		t.Fatal("unencodable params accepted")
	}
}
