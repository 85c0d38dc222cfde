package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/seal"
)

// nameForm is a form; its schema is registered by hand, as mcpgen's RegisterMCP would.
type nameForm struct {
	Name string `json:"name"`
}

// nameFormSchema is nameForm's requestedSchema.
const nameFormSchema = `{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}`

// greetServer is a server with greetTool (plus tools) and nameForm's schema.
func greetServer(t *testing.T, opts *Options, tools ...*Tool) *Server {
	s := newTestServer(t, opts, append([]*Tool{greetTool()}, tools...)...)
	AddForm[nameForm](s, json.RawMessage(nameFormSchema))
	return s
}

// greetTool asks for a name and greets; decline and cancel are reported as such.
// It is the one handler the tests serve to both eras.
func greetTool() *Tool {
	return &Tool{Name: "greet", Description: "Greets the user by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"greeting":{"type":"string"}},"additionalProperties":false}`),
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			var in struct {
				Greeting string `json:"greeting"`
			}
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			form, action, err := Elicit[nameForm](ctx, "user_name", "What is your name?")
			if err != nil {
				return nil, err
			}
			if action != Accept {
				return &ToolResult{Content: []Content{Text("no name: " + string(action))}}, nil
			}
			return &ToolResult{Content: []Content{Text(in.Greeting + ", " + form.Name + "!")}}, nil
		}}
}

// elicitCaps is a _meta declaring form elicitation.
func metaWithCaps(caps map[string]any) map[string]any {
	m := modernMeta()
	m["io.modelcontextprotocol/clientCapabilities"] = caps
	return m
}

// inputRequired is the body of an input_required result.
type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
}

// modernGreet calls greet over stdio with the given extra params.
func modernGreet(c *testClient, caps map[string]any, extra map[string]any) *msg {
	p := map[string]any{"_meta": metaWithCaps(caps), "name": "greet", "arguments": map[string]any{"greeting": "Hello"}}
	for k, v := range extra {
		p[k] = v
	}
	resp, _ := c.await(c.request("tools/call", p))
	return resp
}

// firstRound calls greet and returns its input_required result.
func firstRound(t *testing.T, c *testClient) inputRequired {
	t.Helper()
	resp := modernGreet(c, elicitCaps, nil)
	var ir inputRequired
	resp.decodeResult(t, &ir)
	if ir.ResultType != "input_required" || ir.InputRequests["user_name"].Method != "elicitation/create" || ir.RequestState == "" {
		t.Fatalf("round 1 = %s, want input_required asking user_name with a requestState", resp.raw)
	}
	return ir
}

// elicitCaps declares form elicitation.
var elicitCaps = map[string]any{"elicitation": map[string]any{}}

// accepted is an accepted ElicitResult with a name.
func accepted(name any) map[string]any {
	return map[string]any{"action": "accept", "content": map[string]any{"name": name}}
}

func TestMRTRStdioModern(t *testing.T) {
	c := serveInMemory(t, greetServer(t, nil))
	ir := firstRound(t, c)
	if !strings.Contains(string(ir.InputRequests["user_name"].Params), `"requestedSchema":{"type":"object"`) {
		t.Errorf("params = %s, want the form's requestedSchema", ir.InputRequests["user_name"].Params)
	}
	res, m := callResultOf(t, modernGreet(c, elicitCaps, map[string]any{
		"inputResponses": map[string]any{"user_name": accepted("Alice"), "junk": 1},
		"requestState":   ir.RequestState,
	}))
	if m.Error != nil || res.Content[0].Text != "Hello, Alice!" {
		t.Fatalf("round 2 = %s, want Hello, Alice!", m.raw)
	}
	// Decline reaches the handler.
	res, _ = callResultOf(t, modernGreet(c, elicitCaps, map[string]any{
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "decline"}}, "requestState": ir.RequestState}))
	if res.Content[0].Text != "no name: decline" {
		t.Errorf("decline = %+v, want no name: decline", res)
	}
}

// callResultOf decodes a tools/call response.
func callResultOf(t *testing.T, m *msg) (callResult, *msg) {
	t.Helper()
	var res callResult
	if m.Error == nil {
		m.decodeResult(t, &res)
	}
	return res, m
}

func TestMRTRStdioLegacy(t *testing.T) {
	c := serveInMemory(t, greetServer(t, nil))
	initialize(t, c, "2025-11-25") // declares {elicitation:{}}
	id := c.request("tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"greeting": "Hi"}})
	ask := c.next()
	if ask.Method != "elicitation/create" || !strings.Contains(string(ask.Params), "What is your name?") {
		t.Fatalf("got %s, want an elicitation/create request", ask.raw)
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": accepted("Bob")})
	c.send(string(answer))
	resp, _ := c.await(id)
	res, _ := callResultOf(t, resp)
	if res.Content[0].Text != "Hi, Bob!" {
		t.Fatalf("legacy result = %s, want Hi, Bob!", resp.raw)
	}
	// An answer breaking the requested schema is an error the model sees.
	id = c.request("tools/call", map[string]any{"name": "greet"})
	ask = c.next()
	answer, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": accepted("")})
	c.send(string(answer))
	resp, _ = c.await(id)
	if res, _ := callResultOf(t, resp); !res.IsError || !strings.Contains(res.Content[0].Text, "invalid answer") {
		t.Errorf("invalid answer = %s, want an isError result", resp.raw)
	}
}

func TestMRTRAnswerValidation(t *testing.T) {
	c := serveInMemory(t, greetServer(t, nil))
	ir := firstRound(t, c)
	// Content that breaks the schema is asked again.
	again := modernGreet(c, elicitCaps, map[string]any{"inputResponses": map[string]any{"user_name": accepted(12)}, "requestState": ir.RequestState})
	var ir2 inputRequired
	again.decodeResult(t, &ir2)
	if ir2.ResultType != "input_required" || ir2.RequestState == ir.RequestState {
		t.Errorf("schema-breaking answer = %s, want a new input_required", again.raw)
	}
	// A response that is no ElicitResult at all is a protocol error.
	bad := modernGreet(c, elicitCaps, map[string]any{"inputResponses": map[string]any{"user_name": 12345}, "requestState": ir.RequestState})
	if bad.errorCode() != CodeInvalidParams {
		t.Errorf("malformed answer = %s, want -32602", bad.raw)
	}
	// A missing answer is asked again, not an error.
	missing := modernGreet(c, elicitCaps, map[string]any{"inputResponses": map[string]any{"other": accepted("x")}})
	var ir3 inputRequired
	missing.decodeResult(t, &ir3)
	if ir3.ResultType != "input_required" {
		t.Errorf("missing answer = %s, want input_required", missing.raw)
	}
}

func TestMRTRCapabilities(t *testing.T) {
	c := serveInMemory(t, greetServer(t, nil))
	for _, caps := range []map[string]any{{}, {"sampling": map[string]any{}}, {"elicitation": map[string]any{"url": map[string]any{}}}} {
		m := modernGreet(c, caps, nil)
		if m.errorCode() != CodeMissingClientCapability || !strings.Contains(string(m.Error.Data), `"requiredCapabilities":{"elicitation":{}}`) {
			t.Errorf("caps %v: got %s, want -32021 requiring elicitation", caps, m.raw)
		}
	}
	for _, caps := range []map[string]any{{"elicitation": map[string]any{"form": map[string]any{}}}, {"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}}} {
		var ir inputRequired
		modernGreet(c, caps, nil).decodeResult(t, &ir)
		if ir.ResultType != "input_required" {
			t.Errorf("caps %v: got %+v, want input_required", caps, ir)
		}
	}
}

func TestRequestStateRejected(t *testing.T) {
	c := serveInMemory(t, greetServer(t, nil, echoTool()))
	ir := firstRound(t, c)
	answer := map[string]any{"user_name": accepted("Eve")}
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"tampered", map[string]any{"name": "greet", "arguments": map[string]any{"greeting": "Hello"}, "requestState": ir.RequestState + "-TAMPERED"}, "invalid requestState"},
		{"flipped", map[string]any{"name": "greet", "arguments": map[string]any{"greeting": "Hello"}, "requestState": flip(ir.RequestState)}, "invalid requestState"},
		{"wrong arguments", map[string]any{"name": "greet", "arguments": map[string]any{"greeting": "Bye"}, "requestState": ir.RequestState}, "another request"},
		{"wrong tool", map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}, "requestState": ir.RequestState}, "another request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.params["_meta"] = metaWithCaps(elicitCaps)
			tt.params["inputResponses"] = answer
			resp, _ := c.await(c.request("tools/call", tt.params))
			if resp.errorCode() != CodeInvalidParams || !strings.Contains(resp.Error.Message, tt.want) {
				t.Errorf("got %s, want -32602 %q", resp.raw, tt.want)
			}
		})
	}
}

// flip changes one character in the middle of a token.
func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestStateKeyFromEnv(t *testing.T) {
	t.Setenv(StateKeyEnv, "replica-shared-secret-123, older-shared-secret-456")
	a := newTestServer(t, nil)
	t.Setenv(StateKeyEnv, "older-shared-secret-456")
	b := newTestServer(t, nil)
	want := &seal.State{Method: "tools/call", Name: "x", Digest: seal.ArgsDigest(nil)}
	token, err := b.sealer.Seal(&seal.State{Method: "tools/call", Name: "x", Digest: seal.ArgsDigest(nil)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.sealer.Open(token, want, time.Now()); err != nil {
		t.Errorf("a second key from %s does not open: %v", StateKeyEnv, err)
	}
	t.Setenv(StateKeyEnv, "")
	if _, err := newTestServer(t, nil).sealer.Open(token, want, time.Now()); err == nil {
		t.Error("a random key opened a token sealed with another key")
	}
}

func TestRoundLimit(t *testing.T) {
	s := greetServer(t, &Options{MaxInputRounds: 2})
	c := serveInMemory(t, s)
	ir := firstRound(t, c)
	resp := modernGreet(c, elicitCaps, map[string]any{"requestState": ir.RequestState})
	if resp.errorCode() != CodeInvalidParams || !strings.Contains(resp.Error.Message, "too many input rounds") {
		t.Errorf("round 2 of 2 without an answer = %s, want -32602 too many input rounds", resp.raw)
	}
}

func TestAskOutsideRound(t *testing.T) {
	if err := Ask(context.Background(), AskRoots("r", new([]Root))); !errors.Is(err, ErrNoInput) {
		t.Errorf("Ask outside a request = %v, want ErrNoInput", err)
	}
}

func TestElicitUnregisteredForm(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, greetTool())) // no AddForm
	res, m := callResultOf(t, modernGreet(c, elicitCaps, nil))
	if !res.IsError || !strings.Contains(res.Content[0].Text, "no elicitation schema") {
		t.Errorf("unregistered form = %s, want an isError result naming the missing schema", m.raw)
	}
}

// httpGreetServer serves greetTool over Streamable HTTP.
func httpGreetServer(t *testing.T) *httpClient {
	s := greetServer(t, nil)
	ts := httptest.NewServer(s.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	return newHTTPClient(t, ts)
}

func TestMRTRHTTPModern(t *testing.T) {
	c := httpGreetServer(t)
	params := func(extra map[string]any) map[string]any {
		p := map[string]any{"_meta": modernMetaFor(map[string]any{"io.modelcontextprotocol/clientCapabilities": elicitCaps}),
			"name": "greet", "arguments": map[string]any{"greeting": "Hey"}}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	status, msgs := c.modernCall(1, "tools/call", params(nil), nil)
	var env struct{ Result inputRequired }
	if status != http.StatusOK || len(msgs) != 1 || json.Unmarshal(msgs[0], &env) != nil || env.Result.ResultType != "input_required" {
		t.Fatalf("round 1: status %d, %s; want 200 input_required", status, msgs)
	}
	status, msgs = c.modernCall(2, "tools/call", params(map[string]any{
		"inputResponses": map[string]any{"user_name": accepted("Carol")}, "requestState": env.Result.RequestState}), nil)
	if status != http.StatusOK || len(msgs) != 1 || !strings.Contains(string(msgs[0]), `"text":"Hey, Carol!"`) {
		t.Fatalf("round 2: status %d, %s; want Hey, Carol!", status, msgs)
	}
	status, msgs = c.modernCall(3, "tools/call", params(map[string]any{"requestState": env.Result.RequestState + "x"}), nil)
	if code, _ := rpcErrorOf(t, msgs[0]); status != http.StatusOK || code != CodeInvalidParams {
		t.Errorf("tampered: status %d, %s; want -32602", status, msgs)
	}
	status, msgs = c.modernCall(4, "tools/call", map[string]any{"name": "greet"}, nil) // no capabilities
	if code, _ := rpcErrorOf(t, msgs[0]); status != http.StatusBadRequest || code != CodeMissingClientCapability {
		t.Errorf("no elicitation capability: status %d, %s; want 400 -32021", status, msgs)
	}
}

func TestMRTRHTTPLegacy(t *testing.T) {
	c := httpGreetServer(t)
	resp := c.post(context.Background(), nil, rpcRequest(1, "initialize", map[string]any{
		"protocolVersion": versionLegacy, "capabilities": elicitCaps,
		"clientInfo": map[string]any{"name": "http-test", "version": "1"},
	}))
	c.messages(resp, versionLegacy, "initialize")
	c.session = resp.Header.Get("Mcp-Session-Id")
	resp = c.post(context.Background(), legacyHeaders(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	resp.Body.Close()
	call := c.post(context.Background(), legacyHeaders(), rpcRequest(2, "tools/call", map[string]any{"name": "greet", "arguments": map[string]any{"greeting": "Yo"}}))
	defer call.Body.Close()
	var ask *msg
	_, err := readEvents(call.Body, func(ev sseEvent) bool {
		m := &msg{}
		if json.Unmarshal([]byte(ev.data), m) == nil && m.Method == "elicitation/create" {
			c.validate(versionLegacy, "", []byte(ev.data))
			ask = m
		}
		return ask != nil
	})
	if err != nil || ask == nil {
		t.Fatalf("no elicitation/create on the call's stream (err %v)", err)
	}
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": accepted("Dan")})
	ack := c.post(context.Background(), legacyHeaders(), answer)
	ack.Body.Close()
	if ack.StatusCode != http.StatusAccepted {
		t.Errorf("answer POST: got status %d, want 202", ack.StatusCode)
	}
	evs, err := readEvents(call.Body, func(ev sseEvent) bool { return strings.Contains(ev.data, `"result"`) })
	if err != nil || len(evs) == 0 || !strings.Contains(evs[len(evs)-1].data, `"text":"Yo, Dan!"`) {
		t.Fatalf("result: %+v (err %v), want Yo, Dan!", evs, err)
	}
	c.validate(versionLegacy, "tools/call", []byte(evs[len(evs)-1].data))
}

// mrtrResultDef returns the schema definition a result is checked against: an
// InputRequiredResult when a 2026-07-28 result says input_required, else def.
func mrtrResultDef(rev, def string, result json.RawMessage) string {
	var r struct {
		ResultType string `json:"resultType"`
	}
	switch def {
	case "CallToolResult", "GetPromptResult", "ReadResourceResult":
	default:
		return def // no other request may end with input_required
	}
	if rev == versionModern && json.Unmarshal(result, &r) == nil && r.ResultType == "input_required" {
		return "InputRequiredResult"
	}
	return def
}

// rootsResource is a resource that lists the client's roots.
func rootsResource(uri string) *Resource {
	return &Resource{URI: uri, Name: uri, MIMEType: "text/plain",
		Handler: func(ctx context.Context, req *ResourceRequest) (*ResourceResult, error) {
			roots, err := ListRoots(ctx, "roots")
			if err != nil {
				return nil, err
			}
			return &ResourceResult{Contents: []ResourceContents{{Text: fmt.Sprintf("%d roots, first %s", len(roots), roots[0].URI)}}}, nil
		}}
}

func TestMRTRResourceRead(t *testing.T) {
	s := newTestServer(t, nil)
	s.AddResource(rootsResource("test://roots"))
	s.AddResource(rootsResource("test://other"))
	c := serveInMemory(t, s)
	read := func(uri string, extra map[string]any) *msg {
		p := map[string]any{"_meta": metaWithCaps(map[string]any{"roots": map[string]any{}}), "uri": uri}
		for k, v := range extra {
			p[k] = v
		}
		resp, _ := c.await(c.request("resources/read", p))
		return resp
	}
	var ir inputRequired
	read("test://roots", nil).decodeResult(t, &ir)
	if ir.ResultType != "input_required" || ir.InputRequests["roots"].Method != "roots/list" {
		t.Fatalf("round 1 = %+v, want input_required asking roots/list", ir)
	}
	answer := map[string]any{"roots": map[string]any{"roots": []any{map[string]any{"uri": "file:///w", "name": "w"}}}}
	done := read("test://roots", map[string]any{"inputResponses": answer, "requestState": ir.RequestState})
	if done.Error != nil || !strings.Contains(string(done.Result), "1 roots, first file:///w") {
		t.Fatalf("round 2 = %s, want the contents", done.raw)
	}
	if other := read("test://other", map[string]any{"inputResponses": answer, "requestState": ir.RequestState}); other.errorCode() != CodeInvalidParams {
		t.Errorf("state of another URI = %s, want -32602", other.raw)
	}
	// resources/list is never answered with input_required.
	resp, _ := c.await(c.request("resources/list", map[string]any{"_meta": metaWithCaps(map[string]any{"roots": map[string]any{}})}))
	if strings.Contains(string(resp.Result), "input_required") {
		t.Errorf("resources/list = %s", resp.raw)
	}
}
