package httpstream

import (
	"context"
	"testing"
)

// TestExchangeBacklogBound: a stream nobody reads keeps at most maxBacklog
// undelivered notifications; server-to-client requests are never dropped, the
// reply still ends the stream, and delivered events make room again.
func TestExchangeBacklogBound(t *testing.T) {
	x := New("", true)
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	for range 3 * maxBacklog {
		if err := x.Send(context.Background(), note); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Send(context.Background(), ping); err != nil {
		t.Fatal(err)
	}
	st := x.state(0, 0)
	if got := len(st.events); got != maxBacklog+1 {
		t.Fatalf("an unread stream buffers %d events, want %d notifications and the request", got, maxBacklog)
	}
	if string(st.events[len(st.events)-1]) != string(ping) {
		t.Fatalf("the request was dropped: last event %s", st.events[len(st.events)-1])
	}
	x.markDelivered(maxBacklog + 1)
	if err := x.Send(context.Background(), note); err != nil {
		t.Fatal(err)
	}
	st = x.state(maxBacklog+1, 0)
	if len(st.events) != 1 {
		t.Fatalf("after delivery: %d new events, want the one sent", len(st.events))
	}
	x.Finish(Reply{Body: []byte(`{"jsonrpc":"2.0","id":"f","result":{}}`)})
	if st = x.state(maxBacklog+2, 0); !st.done || len(st.events) != 1 {
		t.Fatalf("after the reply: done %v, %d events; want the reply as the last event", st.done, len(st.events))
	}
}
