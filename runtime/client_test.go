package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"
)

// waitTimeout bounds every wait for a server message in tests.
const waitTimeout = 10 * time.Second

// A testClient talks to a server over newline-delimited JSON and checks every line the
// server writes: it must be one JSON-RPC message that validates against the schema of
// its era, so stdout holds nothing else.
type testClient struct {
	t    *testing.T
	spec *specSchemas
	// rev is the handshake revision the client negotiates ("" is 2025-11-25):
	// its messages are validated against that revision's schema.
	rev   string
	w     io.Writer
	lines chan []byte // every line the server wrote, in order; closed at EOF
	// readDone is closed when the server's output reached EOF (before lines drains).
	readDone chan struct{}

	// mu guards sent, nextID and seen.
	mu     sync.Mutex
	sent   map[string]sentRequest
	nextID int
	seen   int // lines received
}

// A sentRequest remembers what a request id was used for.
type sentRequest struct {
	method string
	rev    string // revision the request belongs to (by its _meta)
}

// A msg is one decoded server message.
type msg struct {
	raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// newTestClient reads the server's output from r and writes requests to w.
func newTestClient(t *testing.T, w io.Writer, r io.Reader) *testClient {
	c := &testClient{t: t, spec: testSpec, w: w, lines: make(chan []byte, 4096), readDone: make(chan struct{}), sent: map[string]sentRequest{}}
	go c.readLoop(r)
	return c
}

// readLoop splits the server's output into lines.
func (c *testClient) readLoop(r io.Reader) {
	defer close(c.lines)
	defer close(c.readDone)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		c.lines <- bytes.Clone(sc.Bytes())
	}
}

// send writes one raw line and records the request it carries, if any.
func (c *testClient) send(line string) {
	c.t.Helper()
	c.record([]byte(line))
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("write %s: %v", line, err)
	}
}

// record remembers the method and revision of a request line.
func (c *testClient) record(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method any             `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if len(line) > 4<<20 { // too slow to decode under -race; such lines get no result
		return
	}
	if json.Unmarshal(line, &m) != nil || m.ID == nil {
		return
	}
	rev := c.legacyRev()
	if _, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		rev = revModern
	}
	if _, ok := m.Params.Meta["io.modelcontextprotocol/clientCapabilities"]; ok {
		rev = revModern
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	method, _ := m.Method.(string)
	c.sent[string(m.ID)] = sentRequest{method: method, rev: rev}
}

// modernMeta is the _meta of a well-formed 2026-07-28 request.
func modernMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test-client", "version": "1.0.0"},
	}
}

// request sends a request with a fresh id and returns the id. params may be nil.
func (c *testClient) request(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := json.RawMessage(strconv.Itoa(c.nextID))
	c.mu.Unlock()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
	return id
}

// modern sends a 2026-07-28 request (params plus a valid _meta) and returns its id.
func (c *testClient) modern(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	p := map[string]any{"_meta": modernMeta()}
	for k, v := range params {
		p[k] = v
	}
	return c.request(method, p)
}

// next returns the next server message, validated, failing the test on timeout or EOF.
func (c *testClient) next() *msg {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server closed its output")
		}
		return c.check(line)
	case <-time.After(waitTimeout):
		c.t.Fatal("timed out waiting for a server message")
	}
	return nil
}

// await reads messages until the response to id, returning it and the messages seen
// before it.
func (c *testClient) await(id json.RawMessage) (*msg, []*msg) {
	c.t.Helper()
	var before []*msg
	for {
		m := c.next()
		if m.Method == "" && string(m.ID) == string(id) {
			return m, before
		}
		before = append(before, m)
	}
}

// call sends a modern or legacy request and returns its response.
func (c *testClient) call(modern bool, method string, params map[string]any) *msg {
	c.t.Helper()
	var id json.RawMessage
	if modern {
		id = c.modern(method, params)
	} else {
		id = c.request(method, params)
	}
	resp, _ := c.await(id)
	return resp
}

// check decodes and validates one line the server wrote.
func (c *testClient) check(line []byte) *msg {
	c.t.Helper()
	c.mu.Lock()
	c.seen++
	c.mu.Unlock()
	m := &msg{raw: line}
	if err := json.Unmarshal(line, m); err != nil || !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
		c.t.Fatalf("server wrote a line that is not a JSON object: %q (%v)", line, err)
	}
	if err := c.validate(m); err != nil {
		c.t.Errorf("invalid server message %s:\n%v", line, err)
	}
	return m
}

// legacyRev is the handshake revision the client speaks.
func (c *testClient) legacyRev() string {
	if c.rev == "" {
		return revLegacy
	}
	return c.rev
}

// validate checks a message against the schema of its era.
func (c *testClient) validate(m *msg) error {
	switch {
	case m.Method != "" && m.ID != nil:
		if def := serverRequestDef(m.Method); def != "" && olderRev(c.legacyRev()) {
			return c.spec.validate(c.legacyRev(), def, m.raw)
		}
		return c.spec.validate(c.legacyRev(), "JSONRPCRequest", m.raw) // only legacy servers may send requests
	case m.Method != "" && olderRev(c.legacyRev()):
		return c.spec.validate(c.legacyRev(), notificationDef(m.Method), m.raw)
	case m.Method != "":
		return c.validateBoth(notificationDef(m.Method), m.raw)
	}
	c.mu.Lock()
	req, ok := c.sent[string(m.ID)]
	c.mu.Unlock()
	if !ok {
		if m.ID != nil || m.Error == nil {
			return fmt.Errorf("response to unknown id %s", m.ID)
		}
		return c.validateBoth("JSONRPCErrorResponse", m.raw)
	}
	return c.validateResponse(req, m)
}

// validateBoth validates against a definition of both revisions.
func (c *testClient) validateBoth(def string, raw []byte) error {
	for _, rev := range []string{revLegacy, revModern} {
		if err := c.spec.validate(rev, def, raw); err != nil {
			return err
		}
	}
	return nil
}

// validateResponse validates a response against its era's envelope and result type,
// and checks the era-specific result rules (resultType and serverInfo only in 2026).
func (c *testClient) validateResponse(req sentRequest, m *msg) error {
	if olderRev(req.rev) && m.Error != nil {
		return c.spec.validate(req.rev, "JSONRPCError", m.raw)
	}
	if err := c.spec.validate(req.rev, "JSONRPCResponse", m.raw); err != nil {
		return err
	}
	if m.Error != nil {
		if m.Error.Code == CodeUnsupportedVersion && req.rev == revModern {
			return c.spec.validate(revModern, "UnsupportedProtocolVersionError", m.raw)
		}
		return c.spec.validate(req.rev, "JSONRPCErrorResponse", m.raw)
	}
	def := mrtrResultDef(req.rev, resultDef(req.rev, req.method), m.Result)
	if def == "" {
		return fmt.Errorf("a result for %s, which %s does not have", req.method, req.rev)
	}
	if err := c.spec.validate(req.rev, def, m.Result); err != nil {
		return err
	}
	return checkResultEra(req.rev, m.Result)
}

// checkResultEra checks resultType and _meta serverInfo: required in 2026-07-28 results,
// absent from 2025-11-25 ones.
func checkResultEra(rev string, result json.RawMessage) error {
	var r struct {
		ResultType *string                    `json:"resultType"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return err
	}
	if rev != revModern {
		if r.ResultType != nil {
			return fmt.Errorf("%s result carries resultType", rev)
		}
		return nil
	}
	if r.ResultType == nil || *r.ResultType != "complete" && *r.ResultType != "input_required" {
		return fmt.Errorf("2026-07-28 result without resultType complete")
	}
	if r.Meta["io.modelcontextprotocol/serverInfo"] == nil {
		return fmt.Errorf("2026-07-28 result without _meta serverInfo")
	}
	return nil
}

// drain reads and validates every remaining line until the server closes its output.
func (c *testClient) drain() {
	c.t.Helper()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return
			}
			c.check(line)
		case <-time.After(waitTimeout):
			c.t.Fatal("timed out waiting for the server to close its output")
			return
		}
	}
}

// expectQuiet fails if the server writes anything within d.
func (c *testClient) expectQuiet(d time.Duration) {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if ok {
			c.t.Errorf("unexpected server message: %s", line)
		}
	case <-time.After(d):
	}
}

// errorCode returns the error code of a response (0 for a result).
func (m *msg) errorCode() int {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// decodeResult decodes a response's result into v, failing on an error response.
func (m *msg) decodeResult(t *testing.T, v any) {
	t.Helper()
	if m.Error != nil {
		t.Fatalf("got error %d %q, want a result", m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		t.Fatalf("decode result %s: %v", m.Result, err)
	}
}

// callResult is the decoded shape of CallToolResult used by the tests.
type callResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	ResultType        string          `json:"resultType"`
}
