package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// httpWait bounds every wait in the HTTP tests.
const httpWait = 10 * time.Second

// regionInput is an input schema with an x-mcp-header annotated parameter.
const regionInput = `{
  "type": "object",
  "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"},
    "count": {"type": "integer", "x-mcp-header": "Count"},
    "query": {"type": "string"}
  },
  "additionalProperties": false
}`

// httpProbe lets a test observe and steer the blocking tools.
type httpProbe struct {
	started   chan struct{} // a wait tool started
	release   chan struct{} // closed to let wait tools finish
	cancelled chan error    // a wait tool saw its context end
}

// newHTTPProbe returns a probe with buffered channels.
func newHTTPProbe() *httpProbe {
	return &httpProbe{started: make(chan struct{}, 16), release: make(chan struct{}), cancelled: make(chan error, 16)}
}

// httpTestTools registers the tools the HTTP tests call, written as generated
// adapters are.
func httpTestTools(s *Server, p *httpProbe) {
	noArgs := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	text := func(s string) *ToolResult { return &ToolResult{Content: []Content{Text(s)}} }
	s.AddTool(&Tool{Name: "hello", Description: "Hello greets.", InputSchema: noArgs,
		Handler: func(context.Context, *ToolRequest) (*ToolResult, error) { return text("hello"), nil }})
	s.AddTool(&Tool{Name: "region", Description: "Region echoes its region.", InputSchema: json.RawMessage(regionInput),
		Handler: func(_ context.Context, req *ToolRequest) (*ToolResult, error) {
			var in struct {
				Region string `json:"region"`
				Count  int    `json:"count"`
				Query  string `json:"query"`
			}
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			return text("region " + in.Region), nil
		}})
	s.AddTool(&Tool{Name: "wait", Description: "Wait reports progress, then waits for the test.", InputSchema: noArgs,
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if err := Progress(ctx, 1, 2, "waiting"); err != nil {
				return nil, err
			}
			p.started <- struct{}{}
			select {
			case <-p.release:
			case <-ctx.Done():
			}
			p.cancelled <- ctx.Err()
			return text("released"), nil
		}})
	s.AddTool(&Tool{Name: "ask", Description: "Ask sends the client a ping request and reports the answer.", InputSchema: noArgs,
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			c := callFrom(ctx)
			if c == nil || c.sess == nil {
				return nil, errors.New("no session")
			}
			res, err := c.sess.Request(ctx, "ping", map[string]any{}, c.out)
			if err != nil {
				return nil, err
			}
			return text("client said " + string(res)), nil
		}})
	s.AddTool(&Tool{Name: "poll", Description: "Poll closes its SSE connection mid-call.", InputSchema: noArgs,
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if !CloseSSEStream(ctx) {
				return text("not closed"), nil
			}
			<-p.release
			return text("polled"), nil
		}})
}

// newHTTPTest starts an httptest server running the transport with opts.
func newHTTPTest(t *testing.T, opts *HTTPOptions) (*httptest.Server, *httpProbe) {
	t.Helper()
	s := NewServer(Implementation{Name: "httptest", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	p := newHTTPProbe()
	httpTestTools(s, p)
	ts := httptest.NewServer(s.HTTPHandler(opts))
	t.Cleanup(func() {
		select {
		case <-p.release:
		default:
			close(p.release)
		}
		ts.Close()
	})
	return ts, p
}

// An httpClient sends MCP messages to one test server and validates every
// message the server sends against the schema of the era it speaks.
type httpClient struct {
	t       *testing.T
	url     string
	schemas *specSchemas
	session string // Mcp-Session-Id once a legacy session is open
}

// newHTTPClient returns a client for ts; a missing spec fails the test.
func newHTTPClient(t *testing.T, ts *httptest.Server) *httpClient {
	t.Helper()
	return &httpClient{t: t, url: ts.URL, schemas: testSpec}
}

// modernMetaFor returns the _meta of a 2026-07-28 request.
func modernMetaFor(extra map[string]any) map[string]any {
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    versionModern,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "http-test", "version": "1"},
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// modernHeaders returns the headers a conforming 2026-07-28 client sends.
func modernHeaders(method, name string) http.Header {
	h := http.Header{}
	h.Set("Mcp-Protocol-Version", versionModern)
	h.Set("Mcp-Method", method)
	if name != "" {
		h.Set("Mcp-Name", name)
	}
	return h
}

// request encodes a JSON-RPC request.
func rpcRequest(id int, method string, params any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return b
}

// post sends one POST with the given extra headers; the caller closes the body.
func (c *httpClient) post(ctx context.Context, hdr http.Header, body []byte) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("POST: %v", err)
	}
	return resp
}

// do sends a method without a body (GET, DELETE) on the client's session.
func (c *httpClient) do(method string, hdr http.Header) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, nil)
	if err != nil {
		c.t.Fatalf("new request: %v", err)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// An sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, data string
	retry    bool
}

// readEvents parses SSE events from r until it ends or stop returns true.
func readEvents(r io.Reader, stop func(sseEvent) bool) ([]sseEvent, error) {
	var evs []sseEvent
	var cur sseEvent
	seen := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if seen {
				evs = append(evs, cur)
				if stop != nil && stop(cur) {
					return evs, nil
				}
			}
			cur, seen = sseEvent{}, false
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			cur.id, seen = value, true
		case "data":
			if cur.data != "" {
				return evs, fmt.Errorf("event with several data lines: %q", line)
			}
			cur.data, seen = value, true
		case "retry":
			cur.retry, seen = true, true
		}
	}
	return evs, sc.Err()
}

// messages reads every JSON-RPC message of a response, JSON or SSE, and
// validates each against rev's schema; method names the request they answer.
func (c *httpClient) messages(resp *http.Response, rev, method string) []json.RawMessage {
	c.t.Helper()
	defer resp.Body.Close()
	var out []json.RawMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		evs, err := readEvents(resp.Body, nil)
		if err != nil {
			c.t.Fatalf("read SSE: %v", err)
		}
		for _, ev := range evs {
			if ev.data != "" {
				out = append(out, json.RawMessage(ev.data))
			}
		}
	} else {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			c.t.Fatalf("read body: %v", err)
		}
		if len(bytes.TrimSpace(body)) > 0 {
			out = append(out, body)
		}
	}
	for _, m := range out {
		c.validate(rev, method, m)
	}
	return out
}

// validate checks one server message against rev's schema: a response to
// method, a notification, or a server-to-client request.
func (c *httpClient) validate(rev, method string, raw []byte) {
	c.t.Helper()
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		c.t.Fatalf("server sent invalid JSON %s: %v", raw, err)
	}
	var err error
	switch {
	case env.Method != "" && env.ID == nil:
		err = c.schemas.validate(rev, notificationDef(env.Method), raw)
	case env.Method != "":
		err = c.schemas.validate(rev, "JSONRPCRequest", raw)
	case env.Error != nil:
		err = c.schemas.validate(rev, envelopeDef(rev, "JSONRPCErrorResponse"), raw)
	default:
		err = c.schemas.validate(rev, envelopeDef(rev, "JSONRPCResultResponse"), raw)
		if def := mrtrResultDef(rev, resultDef(rev, method), env.Result); err == nil && def != "" {
			err = c.schemas.validate(rev, def, env.Result)
		}
	}
	if err != nil {
		c.t.Errorf("server message breaks the %s schema: %v\n%s", rev, err, raw)
	}
}

// rpcErrorOf returns the error code and id of a JSON-RPC error response.
func rpcErrorOf(t *testing.T, raw []byte) (int, json.RawMessage) {
	t.Helper()
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Error == nil {
		t.Fatalf("got %s, want a JSON-RPC error response", raw)
	}
	return r.Error.Code, r.ID
}

// modernCall sends a 2026-07-28 request with conforming headers, adjusted by
// edit, and returns the HTTP status and the validated messages.
func (c *httpClient) modernCall(id int, method string, params map[string]any, edit func(http.Header)) (int, []json.RawMessage) {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["_meta"]; !ok {
		params["_meta"] = modernMetaFor(nil)
	}
	name, _ := params["name"].(string)
	hdr := modernHeaders(method, name)
	if edit != nil {
		edit(hdr)
	}
	resp := c.post(context.Background(), hdr, rpcRequest(id, method, params))
	return resp.StatusCode, c.messages(resp, versionModern, method)
}

// initialize opens a 2025-11-25 session and sends notifications/initialized.
func (c *httpClient) initialize() {
	c.t.Helper()
	resp := c.post(context.Background(), nil, rpcRequest(1, "initialize", map[string]any{
		"protocolVersion": versionLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "http-test", "version": "1"},
	}))
	msgs := c.messages(resp, versionLegacy, "initialize")
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 {
		c.t.Fatalf("initialize: got status %d, %d messages", resp.StatusCode, len(msgs))
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if c.session == "" {
		c.t.Fatal("initialize: no Mcp-Session-Id")
	}
	resp = c.post(context.Background(), legacyHeaders(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: got status %d, want 202", resp.StatusCode)
	}
}

// legacyHeaders returns the headers of a 2025-11-25 request after initialize.
func legacyHeaders() http.Header {
	h := http.Header{}
	h.Set("Mcp-Protocol-Version", versionLegacy)
	return h
}

// waitFor receives from ch or fails the test after httpWait.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(httpWait):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// collect runs f n times concurrently and returns its results in order.
func collect[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = f(i) })
	}
	wg.Wait()
	return out
}
