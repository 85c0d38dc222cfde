package httpstream

// inline.go: serving a request's handler on the goroutine of its POST, with a
// pump of its own only for what cannot wait for the handler to return.

import "net/http"

// The states of an inline response (Pump.inlineState): whichever of the
// handler's return and an early end comes first claims the response.
const (
	inlineRunning  int32 = iota // the handler runs on the response's goroutine
	inlineReturned              // it returned: the response ends as usual
	inlineEnded                 // the pump ended the response early (endEarly)
)

// CanServeInline reports whether a request's response can be served by
// ServeInline: an HTTP/1.x response whose connection can be taken over
// (http.Hijacker, reached through the Unwrap methods of wrappers), so that it
// can end before the handler returns. HTTP/2 responses, and writers that
// cannot be taken over (httptest.ResponseRecorder, wrappers without Unwrap),
// are served with the handler on another goroutine instead.
func CanServeInline(w http.ResponseWriter, r *http.Request) bool {
	if r.ProtoMajor != 1 {
		return false
	}
	for {
		switch t := w.(type) {
		case http.Hijacker:
			return true
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return false
		}
	}
}

// ServeInline runs the exchange's handler, run, on the calling goroutine (the
// one serving r), then answers r as ServeRequest does; it reports the same.
// A call that only computes its reply thus costs no goroutine switch. Until
// run returns, what must reach the client sooner starts a goroutine that pumps
// the exchange in the caller's place: an event (progress, a log message, a
// server-to-client request), a close request (CloseSSEStream) or a reply
// given at the call's deadline while the handler still runs. When the
// response must end before run returns (after a close request, when a GET
// resumed the stream, or after a late reply), that goroutine ends it by
// taking the connection over and closing it (endEarly): the client sees a
// complete response marked "Connection: close" when nothing was written
// before, else a cut stream, which it resumes with GET and Last-Event-ID.
// Use it only where CanServeInline(w, r) holds.
func (p *Pump) ServeInline(r *http.Request, run func()) (detached bool) {
	p.req = r
	p.X.setInline(p)
	run()
	if p.X.endInline() {
		return p.ServeRequest(r.Context())
	}
	p.inlineState.CompareAndSwap(inlineRunning, inlineReturned)
	p.aside.Wait()
	return p.asideDetached
}

// setInline makes p the pump to start when the exchange needs one before the
// handler serving inline returns.
func (x *Exchange) setInline(p *Pump) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.inline = p
}

// endInline ends the inline handler's run: it reports true when no pump was
// started meanwhile (and none will be), so the caller pumps.
func (x *Exchange) endInline() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	idle := x.inline != nil
	x.inline = nil
	return idle
}

// wakeInline starts the inline pump, if any, on a goroutine of its own; x.mu
// must be held.
func (x *Exchange) wakeInline() {
	if p := x.inline; p != nil {
		x.inline = nil
		p.aside.Add(1)
		go p.serveAside()
	}
}

// serveAside pumps the exchange while its handler still runs inline, and ends
// the response early when it must (see ServeInline).
func (p *Pump) serveAside() {
	defer p.aside.Done()
	// Started for a close request or a late reply, the response will end
	// before the handler: nothing is written yet, so it says the connection
	// closes (a client must not send its next request on it).
	closing := p.X.endsEarly()
	if closing {
		p.W.Header().Set("Connection", "close")
	}
	ctx := p.req.Context()
	detached, cut := p.serveRequest(ctx)
	p.asideDetached = detached
	if (cut || p.X.isLate()) && ctx.Err() == nil && p.inlineState.CompareAndSwap(inlineRunning, inlineEnded) {
		endEarly(p.W, p.req, closing)
	}
}

// endsEarly reports whether the exchange has a close request or a late reply.
func (x *Exchange) endsEarly() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.closeReq || x.late
}

// isLate reports whether the exchange's reply came at the call's deadline.
func (x *Exchange) isLate() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.late
}

// endEarly ends r's response while its handler still runs: it flushes what
// was written, takes the connection over and closes it. A response that said
// "Connection: close" (announced) gets the end of its chunked body first
// (HTTP/1.1: it has no Content-Length), so the client reads it complete; one
// whose headers went out without it is cut, as a dropped connection is, so
// that no client sends another request on the closed connection (an SSE
// client resumes the stream with Last-Event-ID).
func endEarly(w http.ResponseWriter, r *http.Request, announced bool) {
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	conn, buf, err := rc.Hijack()
	if err != nil {
		return
	}
	if announced && r.ProtoAtLeast(1, 1) {
		_, _ = buf.WriteString("0\r\n\r\n")
		_ = buf.Flush()
	}
	_ = conn.Close()
}
