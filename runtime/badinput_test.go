package runtime_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The bad-input matrix: malformed and hostile messages sent to the everything
// example server over stdio and Streamable HTTP, in both eras. Each case states
// the exact answer owed (JSON-RPC code, HTTP status, isError, or no answer at
// all), and every case is followed by a normal call that must still succeed.

// A want is the answer owed to one bad input.
type want struct {
	none    bool // no JSON-RPC message in answer (stdio: nothing written)
	code    int  // JSON-RPC error code; 0 with !none means a result
	isError bool // the result is a tool error
	status  int  // HTTP only: the response status
	id      idWant
}

// An idWant says what id the answer must carry.
type idWant int

const (
	idAny  idWant = iota // not checked
	idEcho               // the request's own id
	idNone               // no id: the request's could not be read unambiguously
)

// A badCase is one line (stdio) or body (HTTP).
type badCase struct {
	name string
	body string
	want want
	// HTTP only: headers set on top of the defaults for the era (a "" value deletes).
	header map[string]string
	method string // HTTP method; "" is POST
	http   *want  // HTTP only: the answer when it differs from want
}

// Shorthands.
const (
	simpleCallLegacy = `{"jsonrpc":"2.0","id":"ok","method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`
	simpleCallModern = `{"jsonrpc":"2.0","id":"ok","method":"tools/call","params":{"name":"test_simple_text","arguments":{}` + modernMetaParams + `}}`
)

// call builds a tools/call line for the era.
func callLine(modern bool, id, name, args string) string {
	meta := ""
	if modern {
		meta = modernMetaParams
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + meta + `}}`
}

// reqLine builds a request line with raw params (the era's _meta added to an object).
func reqLine(modern bool, id, method, params string) string {
	if modern && strings.HasPrefix(params, "{") {
		if params == "{}" {
			params = `{"_meta":` + modernMeta + `}`
		} else {
			params = strings.TrimSuffix(params, "}") + modernMetaParams + "}"
		}
	}
	p := ""
	if params != "" {
		p = `,"params":` + params
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"` + p + `}`
}

// nested returns n nested arrays.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// commonCases are the cases for both transports in one era.
func commonCases(modern bool) []badCase {
	res := want{}
	modernOnly := func(modernWant, legacyWant want) want {
		if modern {
			return modernWant
		}
		return legacyWant
	}
	cases := []badCase{
		{name: "invalid JSON", body: `{"jsonrpc":"2.0",`, want: want{code: -32700}},
		{name: "truncated line", body: reqLine(modern, "1", "tools/list", "{}")[:30], want: want{code: -32700}},
		{name: "not an object", body: `"hello"`, want: want{code: -32600}},
		{name: "batch", body: `[` + reqLine(modern, "1", "ping", "{}") + `]`, want: want{code: -32600}},
		{name: "empty batch", body: `[]`, want: want{code: -32600}},
		{name: "jsonrpc 1.0", body: strings.Replace(reqLine(modern, "1", "ping", "{}"), `"2.0"`, `"1.0"`, 1), want: want{code: -32600}},
		{name: "jsonrpc missing", body: strings.Replace(reqLine(modern, "1", "ping", "{}"), `"jsonrpc":"2.0",`, ``, 1), want: want{code: -32600}},
		{name: "jsonrpc number", body: strings.Replace(reqLine(modern, "1", "ping", "{}"), `"2.0"`, `2.0`, 1), want: want{code: -32600}},
		{name: "null id", body: reqLine(modern, "null", "ping", "{}"), want: want{code: -32600}},
		{name: "float id", body: reqLine(modern, "1.5", "ping", "{}"), want: want{code: -32600}},
		{name: "object id", body: reqLine(modern, `{"a":1}`, "ping", "{}"), want: want{code: -32600}},
		{name: "array id", body: reqLine(modern, `[1]`, "ping", "{}"), want: want{code: -32600}},
		{name: "bool id", body: reqLine(modern, `true`, "ping", "{}"), want: want{code: -32600}},
		{name: "huge integer id", body: reqLine(modern, `123456789012345678901234567890`, "tools/list", "{}"), want: res},
		{name: "huge string id", body: reqLine(modern, `"`+strings.Repeat("i", 8192)+`"`, "tools/list", "{}"), want: res},
		{name: "missing method", body: `{"jsonrpc":"2.0","id":1}`, want: want{code: -32600}},
		{name: "method number", body: `{"jsonrpc":"2.0","id":1,"method":7}`, want: want{code: -32600}},
		{name: "unknown method", body: reqLine(modern, "1", "tools/frobnicate", "{}"), want: modernOnly(want{code: -32601, status: 404}, want{code: -32601})},
		{name: "params array", body: reqLine(modern, "1", "tools/list", "[1]"), want: want{code: -32602}, http: httpModern(modern, want{code: -32602, status: 400})},
		{name: "params string", body: reqLine(modern, "1", "tools/list", `"x"`), want: want{code: -32602}, http: httpModern(modern, want{code: -32602, status: 400})},
		{name: "tool name number", body: reqLine(modern, "1", "tools/call", `{"name":7}`), want: want{code: -32602}},
		{name: "tool name missing", body: reqLine(modern, "1", "tools/call", `{"arguments":{}}`), want: want{code: -32602}, http: httpModern(modern, want{code: -32020, status: 400})},
		{name: "unknown tool", body: callLine(modern, "1", "no_such_tool", `{}`), want: want{code: -32602}},
		{name: "arguments array", body: callLine(modern, "1", "test_simple_text", `[]`), want: want{code: -32602}},
		{name: "arguments string", body: callLine(modern, "1", "test_simple_text", `"x"`), want: want{code: -32602}},
		{name: "unknown argument", body: callLine(modern, "1", "test_simple_text", `{"x":1}`), want: want{isError: true}},
		{name: "wrong argument type", body: callLine(modern, "1", "test_elicitation", `{"message":7}`), want: want{isError: true}},
		{name: "deeply nested arguments", body: callLine(modern, "1", "test_simple_text", `{"x":`+nested(100000)+`}`), want: want{code: -32700}},
		{name: "nested arguments within bound", body: callLine(modern, "1", "test_simple_text", `{"x":`+nested(50)+`}`), want: want{isError: true}},
		{name: "huge number argument", body: callLine(modern, "1", "test_simple_text", `{"x":0.0000001e1000010}`), want: want{isError: true}},
		{name: "invalid UTF-8 in string", body: callLine(modern, "1", "test_simple_text", "{\"x\":\"\xff\xfe\"}"), want: want{isError: true}},
		{name: "invalid UTF-8 in method", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xff\"}", want: modernOnly(want{code: -32601, status: 404}, want{code: -32601}), http: httpModern(modern, want{code: -32602, status: 400})},
		{name: "unknown notification", body: `{"jsonrpc":"2.0","method":"notifications/frobnicated"}`, want: want{none: true, status: 202}},
		{name: "malformed notification", body: `{"jsonrpc":"2.0","method":7}`, want: want{code: -32600, status: 400}},
		{name: "cancel of unknown id", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`, want: want{none: true, status: 202}},
		{name: "response to nothing", body: `{"jsonrpc":"2.0","id":"srv-999","result":{}}`, want: want{none: true, status: 202}, http: httpModern(modern, want{code: -32600, status: 400})},
		{name: "error response to nothing", body: `{"jsonrpc":"2.0","id":"srv-999","error":{"code":1,"message":"x"}}`, want: want{none: true, status: 202}, http: httpModern(modern, want{code: -32600, status: 400})},
		// C2: a 2026-07-28 request needs params (its _meta); without, a request is 2025-11-25.
		{name: "params missing", body: reqLine(modern, "1", "tools/list", ""), want: res, http: httpModern(modern, want{code: -32602, status: 400})},
		// C4: asking needs the client's elicitation capability (none declared here);
		// the runtime answers -32021 in both eras.
		{name: "capability not declared", body: callLine(modern, "1", "test_elicitation", `{"message":"x"}`), want: want{code: -32021, status: 400}},
		// Neither a request nor a response (JSON-RPC 2.0 §4, §5): -32600 with its id.
		{name: "result and method", body: `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, want: want{code: -32600}},
		{name: "error and method", body: `{"jsonrpc":"2.0","id":1,"method":"ping","error":{"code":1,"message":"x"}}`, want: want{code: -32600}},
		{name: "notification with result", body: `{"jsonrpc":"2.0","method":"notifications/initialized","result":{}}`, want: want{none: true}, http: &want{code: -32600, status: 400}},
	}
	return cases
}

// initializeCases are malformed 2025-11-25 initialize requests:
// InitializeRequestParams requires protocolVersion, capabilities (an object) and
// clientInfo (an Implementation: string name and version). Over stdio they
// arrive on the initialized connection: the params are checked first.
func initializeCases() []badCase {
	init := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + params + `}}`
	}
	const pv, caps, info = `"protocolVersion":"2025-11-25"`, `"capabilities":{}`, `"clientInfo":{"name":"rel","version":"1"}`
	return []badCase{
		{name: "initialize without protocolVersion", body: init(caps + `,` + info), want: want{code: -32602}},
		{name: "initialize without clientInfo", body: init(pv + `,` + caps), want: want{code: -32602}},
		{name: "initialize clientInfo a string", body: init(pv + `,` + caps + `,"clientInfo":"rel"`), want: want{code: -32602}},
		{name: "initialize clientInfo without version", body: init(pv + `,` + caps + `,"clientInfo":{"name":"rel"}`), want: want{code: -32602}},
		{name: "initialize clientInfo name a number", body: init(pv + `,` + caps + `,"clientInfo":{"name":7,"version":"1"}`), want: want{code: -32602}},
		{name: "initialize without capabilities", body: init(pv + `,` + info), want: want{code: -32602}},
		{name: "initialize capabilities an array", body: init(pv + `,"capabilities":[],` + info), want: want{code: -32602}},
	}
}

// repeatedCases repeat a member name in the message, its params or its
// params._meta: parsers keeping the first or the last would read different
// messages, so each is refused with -32600, without an id when the id is the
// repeated member, and without an answer for a notification (HTTP: 400).
func repeatedCases(modern bool) []badCase {
	refused := want{code: -32600, id: idEcho}
	meta := ""
	if modern {
		meta = strings.TrimPrefix(strings.TrimSuffix(modernMeta, "}"), "{") + ","
	}
	return []badCase{
		{name: "repeated method", body: `{"jsonrpc":"2.0","id":1,"method":0,"method":""}`, want: refused},
		{name: "repeated method, both strings", body: reqLine(modern, "1", "ping", "{}")[:len(`{"jsonrpc":"2.0","id":1,`)] + `"method":"tools/list",` + reqLine(modern, "1", "ping", "{}")[len(`{"jsonrpc":"2.0","id":1,`):], want: refused},
		{name: "repeated id", body: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, want: want{code: -32600, id: idNone}},
		{name: "repeated jsonrpc", body: `{"jsonrpc":"1.0","id":1,"jsonrpc":"2.0","method":"ping"}`, want: refused},
		{name: "repeated unknown member", body: `{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":1}`, want: refused},
		{name: "repeated member, escaped", body: `{"jsonrpc":"2.0","id":1,"m\u0065thod":"ping","method":"ping"}`, want: refused},
		{name: "repeated params member", body: reqLine(modern, "1", "tools/call", `{"name":"test_simple_text","arguments":{},"name":"test_error_handling"}`), want: refused},
		{name: "repeated params._meta member", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + meta + `"progressToken":1,"progressToken":2}}}`, want: refused},
		{name: "repeated params._meta", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{` + meta + `"progressToken":1},"_meta":{` + meta + `"progressToken":2}}}`, want: refused},
		{name: "repeated member in a notification", body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"ok","requestId":2}}`,
			want: want{none: true}, http: &want{code: -32600, status: 400, id: idNone}},
	}
}

// httpModern returns w for 2026-07-28 HTTP requests (whose headers name the
// modern version, so a body without _meta is refused), else nil.
func httpModern(modern bool, w want) *want {
	if modern {
		return &w
	}
	return nil
}

// metaCases are the malformed _meta cases of 2026-07-28 requests.
func metaCases() []badCase {
	const pv, ci, cc = `"io.modelcontextprotocol/protocolVersion"`, `"io.modelcontextprotocol/clientInfo"`, `"io.modelcontextprotocol/clientCapabilities"`
	info, caps := `{"name":"rel","version":"1"}`, `{}`
	line := func(meta string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + meta + `}}`
	}
	return []badCase{
		{name: "_meta not an object", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":7}}`, want: want{code: -32602, status: 400}},
		{name: "_meta version only", body: line(`{` + pv + `:"2026-07-28"}`), want: want{code: -32602, status: 400}},
		{name: "_meta without version", body: line(`{` + ci + `:` + info + `,` + cc + `:` + caps + `}`), want: want{code: -32602, status: 400}},
		{name: "_meta version number", body: line(`{` + pv + `:20260728,` + ci + `:` + info + `,` + cc + `:` + caps + `}`), want: want{code: -32602, status: 400}},
		{name: "_meta unknown version", body: line(`{` + pv + `:"2099-01-01",` + ci + `:` + info + `,` + cc + `:` + caps + `}`), want: want{code: -32022, status: 400}, http: &want{code: -32020, status: 400}},
		{name: "_meta legacy version", body: line(`{` + pv + `:"2025-11-25",` + ci + `:` + info + `,` + cc + `:` + caps + `}`), want: want{code: -32022, status: 400}, http: &want{code: -32020, status: 400}},
		{name: "_meta capabilities not object", body: line(`{` + pv + `:"2026-07-28",` + ci + `:` + info + `,` + cc + `:"all"}`), want: want{code: -32602, status: 400}},
		{name: "_meta clientInfo not object", body: line(`{` + pv + `:"2026-07-28",` + ci + `:7,` + cc + `:` + caps + `}`), want: want{}},
		{name: "_meta without clientInfo", body: line(`{` + pv + `:"2026-07-28",` + cc + `:` + caps + `}`), want: want{}},
		{name: "modern initialize", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":` + info + `,"_meta":` + modernMeta + `}}`, want: want{code: -32601, status: 404}},
	}
}

// replyOf summarises a JSON-RPC message: its error code, or 0 and isError.
func replyOf(t *testing.T, b []byte) (code int, isError bool, id json.RawMessage) {
	t.Helper()
	var m struct {
		ID     json.RawMessage     `json:"id"`
		Error  *struct{ Code int } `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer is not JSON: %v: %.200s", err, b)
	}
	if m.Error != nil {
		return m.Error.Code, false, m.ID
	}
	if m.Result == nil {
		t.Fatalf("answer is neither result nor error: %.200s", b)
	}
	return 0, m.Result.IsError, m.ID
}

// everythingServer returns the everything example server.
func everythingServer() *mcpruntime.Server {
	return everythingServer2(&mcpruntime.Options{Logger: quietLogger()})
}

// A stdioPeer drives ServeStdio through pipes.
type stdioPeer struct {
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
}

func startStdio(t *testing.T, s *mcpruntime.Server) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{in: inW, lines: make(chan []byte, 64), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		p.done <- err
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.lines <- bytes.Clone(sc.Bytes())
		}
		io.Copy(io.Discard, outR)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		for range p.lines {
		}
	})
	return p
}

func (p *stdioPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// next returns the next line the server writes.
func (p *stdioPeer) next(t *testing.T) []byte {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("server closed stdout")
		}
		return l
	case <-time.After(30 * time.Second):
		t.Fatal("no answer within 30s")
	}
	return nil
}

// until reads lines up to the answer with id "ok" (and, when another answer is
// owed, up to that one too) and returns the other lines.
func (p *stdioPeer) until(t *testing.T, owed bool) (other [][]byte, ok []byte) {
	t.Helper()
	for ok == nil || owed && len(other) == 0 {
		l := p.next(t)
		if strings.Contains(string(l), `"id":"ok"`) {
			ok = l
			continue
		}
		other = append(other, l)
	}
	return other, ok
}

// uniqueID gives a case's request the id n instead of 1.
func uniqueID(body string, n int) string {
	return strings.Replace(body, `"id":1,`, fmt.Sprintf(`"id":%d,`, n), 1)
}

func eraName(modern bool) string {
	if modern {
		return "2026-07-28"
	}
	return "2025-11-25"
}

var observe = false // set true to print what the server answers instead of checking

// A caseFigure counts a bad-input run's cases by era and group: the figure
// docs/reliability.md quotes in the run's row.
type caseFigure struct{ eras []*caseGroups }

// caseGroups are the cases of one era, in order, and their counts by group.
type caseGroups struct {
	era    string
	groups []string
	cases  []badCase
}

// era starts the cases of one era.
func (f *caseFigure) era(modern bool) *caseGroups {
	g := &caseGroups{era: eraName(modern)}
	f.eras = append(f.eras, g)
	return g
}

// add appends a group of cases.
func (g *caseGroups) add(group string, cases ...badCase) {
	g.groups = append(g.groups, fmt.Sprintf("%d %s", len(cases), group))
	g.cases = append(g.cases, cases...)
}

// String is the figure: "122 cases (2025-11-25: 42 common, ...; 2026-07-28: ...)".
func (f *caseFigure) String() string {
	n := 0
	eras := make([]string, len(f.eras))
	for i, g := range f.eras {
		n += len(g.cases)
		eras[i] = g.era + ": " + strings.Join(g.groups, ", ")
	}
	return fmt.Sprintf("%d cases (%s)", n, strings.Join(eras, "; "))
}

// check logs the figure and fails t unless the row of docs/reliability.md
// quotes it as it is.
func (f *caseFigure) check(t *testing.T, row string) {
	t.Helper()
	t.Logf("%s", f)
	mcpruntime.CheckReliabilityFigure(t, row, f.String())
}

// TestBadInputStdio runs the matrix over stdio in both eras on one connection:
// the server must answer each case as owed and then a normal call.
func TestBadInputStdio(t *testing.T) {
	s := everythingServer()
	p := startStdio(t, s)
	p.send(t, legacyInit)
	p.next(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	n := 0
	var figure caseFigure
	for _, modern := range []bool{false, true} {
		m := figure.era(modern)
		m.add("common", commonCases(modern)...)
		m.add("repeated names", repeatedCases(modern)...)
		if modern {
			m.add("malformed _meta", metaCases()...)
		} else {
			m.add("malformed initialize", initializeCases()...)
			// The handshake happens once per connection.
			m.add("second initialize", badCase{name: "second initialize", body: legacyInit, want: want{code: -32600}})
		}
		follow := simpleCallLegacy
		if modern {
			follow = simpleCallModern
		}
		for _, c := range m.cases {
			n++
			t.Run(eraName(modern)+"/"+c.name, func(t *testing.T) {
				// A unique id per case: requests run concurrently, so answers
				// may come in any order.
				p.send(t, uniqueID(c.body, n))
				p.send(t, follow)
				before, ok := p.until(t, !c.want.none)
				if code, isErr, _ := replyOf(t, ok); code != 0 || isErr {
					t.Errorf("follow-up call: got code %d isError %v: %.300s", code, isErr, ok)
				}
				checkAnswer(t, c, before, 0, fmt.Sprint(n))
			})
		}
	}
	figure.check(t, "Bad input, stdio")
}

// checkAnswer compares the messages answered to c with c.want; echo is the id
// the case's request was sent with.
func checkAnswer(t *testing.T, c badCase, before [][]byte, status int, echo string) {
	t.Helper()
	if observe {
		for _, b := range before {
			code, isErr, _ := replyOf(t, b)
			t.Logf("OBSERVE %q: status %d code %d isError %v %.200s", c.name, status, code, isErr, b)
		}
		if len(before) == 0 {
			t.Logf("OBSERVE %q: status %d none", c.name, status)
		}
		return
	}
	if c.want.none {
		if len(before) != 0 {
			t.Errorf("got %d answers (%.200s), want none", len(before), before[0])
		}
		return
	}
	if len(before) != 1 {
		t.Fatalf("got %d answers, want 1", len(before))
	}
	code, isErr, id := replyOf(t, before[0])
	if code != c.want.code || isErr != c.want.isError {
		t.Errorf("got code %d isError %v, want code %d isError %v: %.300s", code, isErr, c.want.code, c.want.isError, before[0])
	}
	switch {
	case c.want.id == idEcho && string(id) != echo:
		t.Errorf("got id %s, want the request's id %s: %.300s", id, echo, before[0])
	case c.want.id == idNone && id != nil:
		t.Errorf("got id %s, want none: %.300s", id, before[0])
	}
}

// An httpPeer posts to the everything server's Streamable HTTP handler.
type httpPeer struct {
	url     string
	client  *http.Client
	session string // the 2025-11-25 session
}

func startHTTP(t *testing.T, s *mcpruntime.Server, opts *mcpruntime.HTTPOptions) *httpPeer {
	t.Helper()
	ts := httptest.NewServer(s.HTTPHandler(opts))
	t.Cleanup(ts.Close)
	p := &httpPeer{url: ts.URL, client: ts.Client()}
	t.Cleanup(p.client.CloseIdleConnections)
	resp := p.post(t, false, legacyInit, nil, "")
	messages(t, resp)
	p.session = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || p.session == "" {
		t.Fatalf("initialize: status %d session %q", resp.StatusCode, p.session)
	}
	messages(t, p.post(t, false, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil, ""))
	return p
}

// headersFor returns the headers a well-behaved client sends with body.
func (p *httpPeer) headersFor(modern bool, body string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if !modern {
		h.Set("MCP-Protocol-Version", "2025-11-25")
		if !strings.Contains(body, `"initialize"`) {
			h.Set("Mcp-Session-Id", p.session)
		}
		return h
	}
	h.Set("MCP-Protocol-Version", "2026-07-28")
	var m struct {
		Method any `json:"method"`
		Params struct {
			Name any `json:"name"`
			URI  any `json:"uri"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &m)
	if method, ok := m.Method.(string); ok {
		h.Set("Mcp-Method", method)
	}
	if name, ok := m.Params.Name.(string); ok {
		h.Set("Mcp-Name", name)
	} else if uri, ok := m.Params.URI.(string); ok {
		h.Set("Mcp-Name", uri)
	}
	return h
}

// post sends body with the era's headers changed by extra ("" deletes a header).
func (p *httpPeer) post(t *testing.T, modern bool, body string, extra map[string]string, method string) *http.Response {
	t.Helper()
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequest(method, p.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = p.headersFor(modern, body)
	for k, v := range extra {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// messages reads the JSON-RPC messages of a response (JSON or SSE).
func messages(t *testing.T, resp *http.Response) [][]byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return [][]byte{b}
	}
	var msgs [][]byte
	for l := range strings.SplitSeq(string(b), "\n") {
		if d, ok := strings.CutPrefix(l, "data:"); ok && strings.TrimSpace(d) != "" {
			msgs = append(msgs, []byte(strings.TrimSpace(d)))
		}
	}
	return msgs
}

// httpCases are the cases only HTTP has: methods, headers, sessions and sizes.
func httpCases(modern bool) []badCase {
	call := callLine(modern, "1", "test_simple_text", "{}")
	list := reqLine(modern, "1", "tools/list", "{}")
	read := reqLine(modern, "1", "resources/read", `{"uri":"test://static-text"}`)
	prompt := reqLine(modern, "1", "prompts/get", `{"name":"test_simple_prompt"}`)
	region := callLine(modern, "1", "test_custom_header", `{"region":"eu"}`)
	cases := []badCase{
		{name: "PUT", method: http.MethodPut, body: list, want: want{code: -32600, status: 405}},
		{name: "PATCH", method: http.MethodPatch, body: list, want: want{code: -32600, status: 405}},
		{name: "foreign Origin", body: list, header: map[string]string{"Origin": "https://evil.example"}, want: want{code: -32600, status: 403}},
		{name: "foreign Host", body: list, header: map[string]string{"Host": "evil.example"}, want: want{code: -32600, status: 403}},
		{name: "text/plain body", body: list, header: map[string]string{"Content-Type": "text/plain"}, want: want{code: -32600, status: 415}},
		{name: "no Content-Type", body: list, header: map[string]string{"Content-Type": ""}, want: want{status: 200}},
		{name: "empty body", body: ``, want: want{code: -32700, status: 400}},
		{name: "body over 4 MiB", body: callLine(modern, "1", "test_simple_text", `{"x":"`+strings.Repeat("a", 5<<20)+`"}`), want: want{code: -32600, status: 413}},
		{name: "accept JSON only", body: list, header: map[string]string{"Accept": "application/json"}, want: want{status: 200}},
	}
	if modern {
		return append(cases,
			badCase{name: "version header missing", body: list, header: map[string]string{"MCP-Protocol-Version": ""}, want: want{code: -32020, status: 400}},
			badCase{name: "version header mismatch", body: list, header: map[string]string{"MCP-Protocol-Version": "2025-11-25"}, want: want{code: -32020, status: 400}},
			badCase{name: "version header unknown", body: list, header: map[string]string{"MCP-Protocol-Version": "2099-01-01"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Method missing", body: list, header: map[string]string{"Mcp-Method": ""}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Method mismatch", body: list, header: map[string]string{"Mcp-Method": "tools/call"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name missing", body: call, header: map[string]string{"Mcp-Name": ""}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name mismatch", body: call, header: map[string]string{"Mcp-Name": "test_error_handling"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name base64", body: call, header: map[string]string{"Mcp-Name": "=?base64?dGVzdF9zaW1wbGVfdGV4dA==?="}, want: want{status: 200}},
			badCase{name: "Mcp-Name bad base64", body: call, header: map[string]string{"Mcp-Name": "=?base64?***?="}, want: want{code: -32020, status: 400}},
			badCase{name: "modern with session id", body: list, header: map[string]string{"Mcp-Session-Id": "whatever"}, want: want{status: 200}},
			// J4: Mcp-Name for resources/read and prompts/get; values are case-sensitive,
			// and so are the base64 markers.
			badCase{name: "Mcp-Name missing, resources/read", body: read, header: map[string]string{"Mcp-Name": ""}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name mismatch, resources/read", body: read, header: map[string]string{"Mcp-Name": "test://static-binary"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name missing, prompts/get", body: prompt, header: map[string]string{"Mcp-Name": ""}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name mismatch, prompts/get", body: prompt, header: map[string]string{"Mcp-Name": "test_prompt_with_image"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Method other case", body: list, header: map[string]string{"Mcp-Method": "TOOLS/LIST"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Name base64 markers upper case", body: call, header: map[string]string{"Mcp-Name": "=?BASE64?dGVzdF9zaW1wbGVfdGV4dA==?="}, want: want{code: -32020, status: 400}},
			// J4: Mcp-Param-* for x-mcp-header parameters (test_custom_header's region).
			badCase{name: "Mcp-Param present", body: region, header: map[string]string{"Mcp-Param-Region": "eu"}, want: want{status: 200}},
			badCase{name: "Mcp-Param missing", body: region, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Param mismatch", body: region, header: map[string]string{"Mcp-Param-Region": "us"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Param base64", body: region, header: map[string]string{"Mcp-Param-Region": "=?base64?ZXU=?="}, want: want{status: 200}},
			badCase{name: "Mcp-Param bad base64", body: region, header: map[string]string{"Mcp-Param-Region": "=?base64?***?="}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Param non-ASCII byte", body: region, header: map[string]string{"Mcp-Param-Region": "e\xe9"}, want: want{code: -32020, status: 400}},
			badCase{name: "Mcp-Param not expected for an absent argument", body: callLine(modern, "1", "test_custom_header", `{"query":"x"}`), want: want{isError: true}},
			// B13: Last-Event-ID means nothing to a 2026-07-28 POST.
			badCase{name: "Last-Event-ID on a POST", body: list, header: map[string]string{"Last-Event-ID": "1_1"}, want: want{status: 200}},
		)
	}
	return append(cases,
		badCase{name: "no session id", body: list, header: map[string]string{"Mcp-Session-Id": ""}, want: want{code: -32600, status: 400}},
		badCase{name: "unknown session id", body: list, header: map[string]string{"Mcp-Session-Id": "nope"}, want: want{code: -32600, status: 404}},
		// A version the server does not know is not a legacy one: _meta is owed.
		badCase{name: "version header unknown", body: list, header: map[string]string{"MCP-Protocol-Version": "1999-01-01"}, want: want{code: -32602, status: 400}},
		// Clients before 2025-06-18 send no version header.
		badCase{name: "version header missing", body: list, header: map[string]string{"MCP-Protocol-Version": ""}, want: want{status: 200}},
		badCase{name: "GET without Accept SSE", method: http.MethodGet, body: "", header: map[string]string{"Accept": "application/json"}, want: want{code: -32600, status: 406}},
		badCase{name: "DELETE unknown session", method: http.MethodDelete, body: "", header: map[string]string{"Mcp-Session-Id": "nope"}, want: want{code: -32600, status: 404}},
		// The handshake happens once per session.
		badCase{name: "second initialize in session", body: legacyInit, header: map[string]string{"Mcp-Session-Id": "SESSION"}, want: want{code: -32600, status: 400}},
	)
}

// TestBadInputHTTP runs the matrix over Streamable HTTP in both eras: each
// case gets the status and answer owed, and a normal call succeeds after it.
func TestBadInputHTTP(t *testing.T) {
	s := everythingServer()
	p := startHTTP(t, s, nil)
	var figure caseFigure
	for _, modern := range []bool{false, true} {
		m := figure.era(modern)
		m.add("common", commonCases(modern)...)
		m.add("repeated names", repeatedCases(modern)...)
		m.add("HTTP", httpCases(modern)...)
		if modern {
			m.add("malformed _meta", metaCases()...)
		} else {
			m.add("malformed initialize", initializeCases()...) // each would open a session: none does
		}
		follow := simpleCallLegacy
		if modern {
			follow = simpleCallModern
		}
		for _, c := range m.cases {
			t.Run(eraName(modern)+"/"+c.name, func(t *testing.T) {
				if c.header["Mcp-Session-Id"] == "SESSION" {
					c.header = map[string]string{"Mcp-Session-Id": p.session}
				}
				if c.http != nil {
					c.want = *c.http
				}
				resp := p.post(t, modern, c.body, c.header, c.method)
				msgs := messages(t, resp)
				checkAnswer(t, c, msgs, resp.StatusCode, "1")
				if !observe {
					st := c.want.status
					if st == 0 {
						st = 200 // results and errors of the method itself
						if c.want.code == -32700 || c.want.code == -32600 {
							st = 400
						}
					}
					if resp.StatusCode != st {
						t.Errorf("got status %d, want %d", resp.StatusCode, st)
					}
				}
				ok := messages(t, p.post(t, modern, follow, nil, ""))
				if len(ok) != 1 {
					t.Fatalf("follow-up call: got %d messages", len(ok))
				}
				if code, isErr, _ := replyOf(t, ok[0]); code != 0 || isErr {
					t.Errorf("follow-up call: got code %d isError %v: %.300s", code, isErr, ok[0])
				}
			})
		}
	}
	figure.check(t, "Bad input, HTTP")
}

// aReader yields n bytes of 'a'.
type aReader struct{ n int }

var aBlock = bytes.Repeat([]byte("a"), 64<<10)

func (r *aReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.n)], aBlock)
	r.n -= n
	return n, nil
}

// TestBadInputStdioLongLine sends a 256 MiB line, 16 times the 16 MiB limit:
// the server answers -32600 (without an id, as the schema's JSONRPCErrorResponse
// allows when none can be read; the limit in the message), then answers
// the next call. The reader keeps at most the limit of a line: everything the
// process allocated while serving is less than half the line (about 95 MiB with
// Go 1.26: growing a buffer to 16 MiB in steps, then dropping it).
func TestBadInputStdioLongLine(t *testing.T) {
	const size = 256 << 20
	s := everythingServer()
	in := io.MultiReader(
		strings.NewReader(legacyInit+"\n"+`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"x":"`),
		&aReader{n: size},
		strings.NewReader(`"}}}`+"\n"+simpleCallLegacy+"\n"))
	var out bytes.Buffer
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatalf("ServeStdio: %v", err)
	}
	goruntime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/2 {
		t.Errorf("serving a %d MiB line allocated %d MiB: the line was buffered", size>>20, alloc>>20)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3 (initialize, error, call): %.300q", len(lines), lines)
	}
	var e struct {
		ID    json.RawMessage
		Error struct {
			Code    int
			Message string
		}
	}
	wantMsg := fmt.Sprintf("%v: %v (limit %d bytes)", mcpruntime.ErrInvalidRequest, mcpruntime.ErrMessageTooLarge, mcpruntime.MaxMessageSize)
	if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e.Error.Code != -32600 || e.ID != nil || e.Error.Message != wantMsg {
		t.Errorf("long line: got %s, want -32600 %q without an id", lines[1], wantMsg)
	}
	if code, isErr, id := replyOf(t, []byte(lines[2])); code != 0 || isErr || string(id) != `"ok"` {
		t.Errorf("call after the long line: got %s", lines[2])
	}
}

// initLine is an initialize asking for version (a raw JSON value).
func initLine(version string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":` + version + `,"capabilities":{},"clientInfo":{"name":"rel","version":"1"}}}`
}

// TestBadInputRevisions: the revision-specific cases. Over stdio: a batch on a
// 2025-03-26 session (served, one array; initialize refused inside it; only
// notifications: nothing) and on a 2025-11-25 one (-32600); a protocolVersion
// that is not a date or is empty. Over HTTP, also a version header from another
// revision than the session's, one that is not a date, and an empty one.
func TestBadInputRevisions(t *testing.T) {
	negotiated := func(t *testing.T, b []byte) string {
		t.Helper()
		var r struct {
			Result struct{ ProtocolVersion string } `json:"result"`
			Error  *struct{ Code int }              `json:"error"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if r.Error != nil {
			return fmt.Sprint(r.Error.Code)
		}
		return r.Result.ProtocolVersion
	}
	for asked, want := range map[string]string{`"2025-03-26"`: "2025-03-26", `"not-a-date"`: "2025-11-25", `"2025-13-45"`: "2025-11-25",
		`""`: "-32602", `20250326`: "-32602", `null`: "-32602"} {
		p := startStdio(t, everythingServer())
		p.send(t, initLine(asked))
		if got := negotiated(t, p.next(t)); got != want {
			t.Errorf("initialize asking for %s: got %s, want %s", asked, got, want)
		}
	}

	ping, call := `{"jsonrpc":"2.0","id":"b1","method":"ping"}`, `{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`
	note := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}`
	batchCases := []struct {
		rev, name, body, want string // want: the answer's ids and codes, or "" for none
	}{
		{"2025-03-26", "batch", `[` + ping + `,` + note + `,` + call + `]`, `b1:0 b2:0`},
		{"2025-03-26", "batch with initialize", `[` + initLine(`"2025-03-26"`) + `,` + ping + `]`, `0:-32600 b1:0`},
		{"2025-03-26", "batch with a bad element", `[1,` + ping + `]`, `null:-32600 b1:0`},
		{"2025-03-26", "notifications only", `[` + note + `]`, ``},
		{"2025-03-26", "empty batch", `[]`, `null:-32600`},
		{"2025-11-25", "batch", `[` + ping + `]`, `null:-32600`},
		{"2025-06-18", "batch", `[` + ping + `]`, `null:-32600`},
	}
	summary := func(t *testing.T, b []byte) string {
		t.Helper()
		var list []json.RawMessage
		if json.Unmarshal(b, &list) != nil {
			list = []json.RawMessage{b}
		}
		var parts []string
		for _, m := range list {
			var r struct {
				ID    json.RawMessage     `json:"id"`
				Error *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal(m, &r); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			code := 0
			if r.Error != nil {
				code = r.Error.Code
			}
			id := strings.Trim(string(r.ID), `"`)
			if id == "" {
				id = "null"
			}
			parts = append(parts, fmt.Sprintf("%s:%d", id, code))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range batchCases {
		t.Run("stdio/"+c.rev+"/"+c.name, func(t *testing.T) {
			p := startStdio(t, everythingServer())
			p.send(t, initLine(`"`+c.rev+`"`))
			p.next(t)
			p.send(t, c.body)
			p.send(t, simpleCallLegacy)
			other, ok := p.until(t, c.want != "")
			if ok == nil {
				t.Fatal("the follow-up call got no answer")
			}
			got := ""
			if len(other) > 0 {
				got = summary(t, other[0])
			}
			if got != c.want {
				t.Errorf("answer %q, want %q", got, c.want)
			}
		})
		t.Run("http/"+c.rev+"/"+c.name, func(t *testing.T) {
			ts := httptest.NewServer(everythingServer().HTTPHandler(nil))
			defer ts.Close()
			session := revisionSession(t, ts.URL, c.rev)
			status, body := rawPost(t, ts.URL, session, c.rev, c.body)
			got := ""
			if status != http.StatusAccepted {
				got = summary(t, body)
			}
			if got != c.want {
				t.Errorf("answer %d %q, want %q", status, got, c.want)
			}
		})
	}

	// Version headers on a session.
	headerCases := []struct {
		rev, header string
		status      int
	}{
		{"2025-03-26", "", http.StatusOK}, // 2025-03-26 clients send none
		{"2025-03-26", "2025-06-18", http.StatusBadRequest},
		{"2025-06-18", "2025-06-18", http.StatusOK},
		{"2025-06-18", "2025-03-26", http.StatusBadRequest},
		{"2025-06-18", "2025-11-25", http.StatusBadRequest},
		{"2025-11-25", "2025-06-18", http.StatusBadRequest},
		{"2025-11-25", "not-a-date", http.StatusBadRequest},
		{"2025-11-25", "empty", http.StatusBadRequest},
	}
	ts := httptest.NewServer(everythingServer().HTTPHandler(nil))
	defer ts.Close()
	for _, c := range headerCases {
		session := revisionSession(t, ts.URL, c.rev)
		status, body := rawPost(t, ts.URL, session, c.header, simpleCallLegacy)
		if status != c.status {
			t.Errorf("%s session, header %q: status %d, want %d: %s", c.rev, c.header, status, c.status, body)
		}
	}
}

// revisionSession initializes a Streamable HTTP session of rev.
func revisionSession(t *testing.T, url, rev string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initLine(`"`+rev+`"`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize %s: %d", rev, resp.StatusCode)
	}
	return id
}

// rawPost POSTs body on a session with MCP-Protocol-Version header ("" sends none,
// "empty" an empty one) and returns the status and the JSON-RPC message(s).
func rawPost(t *testing.T, url, session, header, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Session-Id", session)
	switch header {
	case "", "2025-03-26-none":
	case "empty":
		req.Header["Mcp-Protocol-Version"] = []string{""}
	default:
		if header != "2025-03-26" || !strings.HasPrefix(body, "[") {
			req.Header.Set("Mcp-Protocol-Version", header)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
