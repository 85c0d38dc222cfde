package httpstream

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inlineRig serves each POST with ServeInline, running the test's run with
// the request's exchange; asides counts the pumps started beside a handler.
type inlineRig struct {
	srv    *httptest.Server
	run    func(x *Exchange)
	stream string // the exchanges' event id prefix ("" : not resumable)
	asides atomic.Int32
	served chan bool // what each ServeInline reported (detached)
}

func newInlineRig(t *testing.T, stream string, run func(x *Exchange)) *inlineRig {
	t.Helper()
	rg := &inlineRig{run: run, stream: stream, served: make(chan bool, 16)}
	rg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if !CanServeInline(w, r) {
			t.Error("an HTTP/1.1 response of net/http cannot be served inline")
			return
		}
		x := New(rg.stream, true)
		p := &Pump{X: x, W: w}
		rg.served <- p.ServeInline(r, func() {
			rg.run(x)
			if !x.endInlineIdle() {
				rg.asides.Add(1)
			}
		})
	}))
	t.Cleanup(rg.srv.Close)
	return rg
}

// endInlineIdle reports, without ending it, whether no pump was started.
func (x *Exchange) endInlineIdle() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.inline != nil
}

func (rg *inlineRig) post(t *testing.T) *http.Response {
	t.Helper()
	resp, err := rg.postErr()
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// postErr posts; a response that does not end within 5s is an error.
func (rg *inlineRig) postErr() (*http.Response, error) {
	client := rg.srv.Client()
	client.Timeout = 5 * time.Second
	return client.Post(rg.srv.URL, "application/json", strings.NewReader(`{}`))
}

const reply = `{"jsonrpc":"2.0","id":1,"result":{}}`

// within fails the test unless ch delivers within 10s (longer than a
// client's timeout).
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10s", what)
	}
	var zero T
	return zero
}

// TestServeInlineQuiet: a handler that only computes its reply is answered
// with plain JSON and no pump beside it, and the connection is kept.
func TestServeInlineQuiet(t *testing.T) {
	rg := newInlineRig(t, "", func(x *Exchange) { x.Finish(Reply{Body: []byte(reply), Status: 200}) })
	for range 3 {
		resp := rg.post(t)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != reply || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("got %d %s %q, want the JSON reply", resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		if within(t, rg.served, "ServeInline's return") {
			t.Error("a quiet reply reported detached")
		}
	}
	if n := rg.asides.Load(); n != 0 {
		t.Errorf("%d pumps started beside quiet handlers, want none", n)
	}
}

// TestServeInlineStreams: an event sent while the handler runs reaches the
// client before the handler returns (a pump beside it), then the reply.
func TestServeInlineStreams(t *testing.T) {
	seen := make(chan struct{})
	rg := newInlineRig(t, "", func(x *Exchange) {
		_ = x.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`))
		<-seen // the client read the event: the handler still runs
		x.Finish(Reply{Body: []byte(reply), Status: 200})
	})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(seen) }) }) // before the server's Close
	resp := rg.post(t)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q, want an event stream", resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 8)
	go func() {
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	if l := within(t, lines, "the event"); !strings.Contains(l, "notifications/progress") {
		t.Fatalf("first line %q, want the progress event", l)
	}
	once.Do(func() { close(seen) })
	var rest string
	for l := range lines {
		rest += l
	}
	if !strings.Contains(rest, reply) {
		t.Errorf("after the event: %q, want the reply", rest)
	}
	if within(t, rg.served, "ServeInline's return") || rg.asides.Load() != 1 {
		t.Errorf("asides %d, want one pump, not detached", rg.asides.Load())
	}
}

// TestServeInlineCloseEarly: a close request (CloseSSEStream) ends the
// response while the handler still runs: the client reads the priming event
// and a clean end of the body.
func TestServeInlineCloseEarly(t *testing.T) {
	ended := make(chan struct{})
	rg := newInlineRig(t, "s1", func(x *Exchange) {
		if !x.RequestClose() {
			t.Error("RequestClose refused on a resumable exchange")
		}
		<-ended // the client saw the response end
		x.Finish(Reply{Body: []byte(reply), Status: 200})
	})
	resp := rg.post(t)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	close(ended)
	if err != nil || !strings.Contains(string(b), "id: s1_0") || strings.Contains(string(b), reply) {
		t.Fatalf("POST stream %q, err %v; want only the priming event and a clean end", b, err)
	}
	if !resp.Close {
		t.Error(`the response ended early without "Connection: close": a client may reuse the closed connection`)
	}
	if !within(t, rg.served, "ServeInline's return") {
		t.Error("a stream closed for polling was not reported detached")
	}
}

// TestServeInlineLate: a reply given at the deadline while the handler still
// runs (Late) reaches the client as a complete response at once.
func TestServeInlineLate(t *testing.T) {
	answered, release := make(chan struct{}), make(chan struct{})
	rg := newInlineRig(t, "", func(x *Exchange) {
		go x.Finish(Reply{Body: []byte(reply), Status: 200, Late: true}) // the deadline's goroutine
		select {                                                         // a handler that ignores its deadline
		case <-release:
		case <-answered:
			<-release
		}
	})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the server's Close
	got := make(chan string, 1)
	go func() {
		resp, err := rg.postErr()
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !resp.Close {
			b = append(b, ` (without "Connection: close")`...)
		}
		got <- string(b)
	}()
	b := within(t, got, "the late reply")
	close(answered)
	once.Do(func() { close(release) })
	if b != reply {
		t.Errorf("got %q, want the late reply", b)
	}
	within(t, rg.served, "ServeInline's return")
}

// TestCanServeInline: only responses whose connection can be taken over.
func TestCanServeInline(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	if CanServeInline(httptest.NewRecorder(), r) {
		t.Error("a ResponseRecorder cannot end early, yet CanServeInline")
	}
	h2 := r.Clone(context.Background())
	h2.ProtoMajor, h2.ProtoMinor = 2, 0
	if CanServeInline(hijackable{httptest.NewRecorder()}, h2) {
		t.Error("HTTP/2 served inline")
	}
	if !CanServeInline(wrapper{hijackable{httptest.NewRecorder()}}, r) {
		t.Error("a wrapper with Unwrap over a Hijacker not served inline")
	}
	if CanServeInline(struct{ http.ResponseWriter }{hijackable{httptest.NewRecorder()}}, r) {
		t.Error("a wrapper without Unwrap served inline")
	}
}

type hijackable struct{ http.ResponseWriter }

func (hijackable) Hijack() (c net.Conn, rw *bufio.ReadWriter, err error) { return nil, nil, nil }

type wrapper struct{ http.ResponseWriter }

func (w wrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestServeInlineCut: a close request after events already went out cuts the
// stream (the response could not say "Connection: close" any more, so no
// client may take the connection for another request): the client reads the
// events, then an unexpected end.
func TestServeInlineCut(t *testing.T) {
	seen, ended := make(chan struct{}), make(chan struct{})
	var once sync.Once
	rg := newInlineRig(t, "s1", func(x *Exchange) {
		_ = x.Send(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`))
		<-seen
		x.RequestClose()
		<-ended
		x.Finish(Reply{Body: []byte(reply), Status: 200})
	})
	t.Cleanup(func() { once.Do(func() { close(seen) }); close(ended) })
	resp := rg.post(t)
	br := bufio.NewReader(resp.Body)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("no event before the end: %v", err)
		}
		if strings.Contains(l, "notifications/progress") {
			break
		}
	}
	once.Do(func() { close(seen) })
	rest, err := io.ReadAll(br)
	resp.Body.Close()
	if err == nil || strings.Contains(string(rest), reply) {
		t.Errorf("after the close request: %q, err %v; want the stream cut", rest, err)
	}
}
