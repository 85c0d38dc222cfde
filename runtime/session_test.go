package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// A recordingSink keeps every message sent to it.
type recordingSink struct {
	mu   sync.Mutex
	msgs [][]byte
	sent chan []byte
}

func newRecordingSink() *recordingSink { return &recordingSink{sent: make(chan []byte, 16)} }

func (r *recordingSink) Send(_ context.Context, msg []byte) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, msg)
	r.mu.Unlock()
	r.sent <- msg
	return nil
}

// initSession runs initialize on a fresh session through Handle.
func initSession(t *testing.T, s *Server, sink Sink) *Session {
	t.Helper()
	sess := s.NewSession(sink)
	r := s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`), sess, nil)
	if r.Code != 0 || !sess.Initialized() || sess.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("initialize: %s", r.Body)
	}
	s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, nil)
	return sess
}

func TestSessionRequestRoundTrip(t *testing.T) {
	s := newTestServer(t, nil)
	sink := newRecordingSink()
	sess := initSession(t, s, sink)
	type answer struct {
		res json.RawMessage
		err error
	}
	answers := make(chan answer, 2)
	go func() {
		res, err := sess.Request(t.Context(), "elicitation/create", map[string]any{"message": "name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}, nil)
		answers <- answer{res, err}
	}()
	req := <-sink.sent
	if err := testSpec.validate(revLegacy, "ElicitRequest", req); err != nil {
		t.Errorf("server-to-client request %s: %v", req, err)
	}
	id := rawMember(req, "id")
	resp := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"decline"}}`
	if r := s.HandleRaw(t.Context(), []byte(resp), sess, nil); r.Body != nil {
		t.Errorf("a client response got a reply: %s", r.Body)
	}
	if a := <-answers; a.err != nil || string(a.res) != `{"action":"decline"}` {
		t.Errorf("Request = %s, %v", a.res, a.err)
	}
	// An error response becomes a *ClientError; ids are fresh.
	go func() {
		res, err := sess.Request(t.Context(), "roots/list", nil, nil)
		answers <- answer{res, err}
	}()
	req2 := <-sink.sent
	if string(rawMember(req2, "id")) == string(id) {
		t.Errorf("server reused request id %s", id)
	}
	s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":`+string(rawMember(req2, "id"))+`,"error":{"code":-32601,"message":"no roots"}}`), sess, nil)
	var ce *ClientError
	if a := <-answers; !errors.As(a.err, &ce) || ce.Code != -32601 {
		t.Errorf("error response: %v, want a ClientError -32601", a.err)
	}
}

func TestSessionRequestCancelAndClose(t *testing.T) {
	s := newTestServer(t, nil)
	sink := newRecordingSink()
	sess := initSession(t, s, sink)
	ctx, cancel := context.WithCancel(t.Context())
	errs := make(chan error, 1)
	go func() {
		_, err := sess.Request(ctx, "sampling/createMessage", map[string]any{}, nil)
		errs <- err
	}()
	<-sink.sent
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Request: %v", err)
	}
	select {
	case note := <-sink.sent:
		if err := testSpec.validate(revLegacy, "CancelledNotification", note); err != nil {
			t.Errorf("cancel notification %s: %v", note, err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("no notifications/cancelled after abandoning a request")
	}
	go func() {
		_, err := sess.Request(t.Context(), "roots/list", nil, nil)
		errs <- err
	}()
	<-sink.sent
	sess.Close()
	if err := <-errs; !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Request on a closed session: %v, want ErrSessionClosed", err)
	}
	if _, err := sess.Request(t.Context(), "roots/list", nil, nil); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Request after Close: %v, want ErrSessionClosed", err)
	}
}

func TestSessionCancelByID(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	s := newTestServer(t, nil, blockTool(started, cancelled))
	sess := initSession(t, s, nil)
	replies := make(chan Reply, 1)
	go func() {
		replies <- s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"block"}}`), sess, nil)
	}()
	<-started
	if sess.Cancel(json.RawMessage(`"y"`)) {
		t.Errorf("Cancel of an unknown id reported true")
	}
	if !sess.Cancel(json.RawMessage(`"x"`)) {
		t.Errorf("Cancel of the in-flight id reported false")
	}
	if r := <-replies; r.Body != nil {
		t.Errorf("cancelled request got a reply: %s", r.Body)
	}
	<-cancelled
}

func TestHandleContextCancel(t *testing.T) {
	started, cancelled := make(chan struct{}, 1), make(chan error, 1)
	s := newTestServer(t, nil, blockTool(started, cancelled))
	ctx, cancel := context.WithCancel(t.Context())
	replies := make(chan Reply, 1)
	go func() {
		replies <- s.HandleRaw(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil, nil)
	}()
	<-started
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context = %v", err)
	}
	if r := <-replies; !strings.Contains(string(r.Body), `"cancelled"`) {
		t.Errorf("reply after transport cancel = %s (the transport decides whether to send it)", r.Body)
	}
}

func TestSpecValidatorRejects(t *testing.T) {
	bad := map[string]struct{ rev, def, raw string }{
		"modern list without ttlMs":       {revModern, "ListToolsResult", `{"tools":[],"resultType":"complete"}`},
		"modern result without type":      {revModern, "DiscoverResult", `{"supportedVersions":[],"capabilities":{},"ttlMs":1,"cacheScope":"public"}`},
		"null id":                         {revLegacy, "JSONRPCResponse", `{"jsonrpc":"2.0","id":null,"result":{}}`},
		"legacy non-object structured":    {revLegacy, "CallToolResult", `{"content":[],"structuredContent":3}`},
		"legacy output schema not object": {revLegacy, "Tool", `{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"integer"}}`},
	}
	for name, tt := range bad {
		if err := testSpec.validate(tt.rev, tt.def, []byte(tt.raw)); err == nil {
			t.Errorf("%s: validated, want a schema error", name)
		}
	}
	if err := checkResultEra(revLegacy, json.RawMessage(`{"resultType":"complete"}`)); err == nil {
		t.Errorf("legacy result with resultType passed checkResultEra")
	}
}
