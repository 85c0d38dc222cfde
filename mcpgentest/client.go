package mcpgentest

// client.go: typed in-process calls (CallTool, ReadResource, GetPrompt, Call)
// through the server's real protocol path: every call is a JSON-RPC message
// given to Server.HandleRaw, answered rounds included.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The protocol revisions a call can be made in (Version).
const (
	// Modern is the stateless 2026-07-28 revision: every request carries its
	// _meta, and a question to the client ends the round with input_required.
	Modern = "2026-07-28"
	// Legacy is the 2025-11-25 revision: an initialized session, and questions
	// travel as server-to-client requests the test client answers.
	Legacy = "2025-11-25"
)

// ConfirmKey is the key of the consent question a tool with confirm="..." asks.
const ConfirmKey = "mcpgen.confirm"

// An Option configures one in-process call.
type Option func(*callConfig)

type callConfig struct {
	version   string
	principal *mcpruntime.Principal
	anonymous bool
	caps      json.RawMessage
	answers   []answer
	ctx       context.Context
}

// An answer is the client's result for the question with key.
type answer struct {
	key    string
	result json.RawMessage
	used   bool
}

// Version makes the call in the given revision: Modern (the default) or Legacy.
// Other revisions the runtime negotiates (2025-06-18, ...) work like Legacy.
func Version(v string) Option { return func(c *callConfig) { c.version = v } }

// As makes the call as subject holding exactly scopes. Without As,
// AsPrincipal, Anonymous or a principal in Context's context, the caller holds
// every scope, as a stdio client does.
func As(subject string, scopes ...string) Option {
	return func(c *callConfig) {
		c.principal = &mcpruntime.Principal{Subject: subject, Scopes: scopes}
		c.anonymous = false
	}
}

// AsPrincipal makes the call as p (claims, client id, ...).
func AsPrincipal(p *mcpruntime.Principal) Option {
	return func(c *callConfig) { c.principal, c.anonymous = p, false }
}

// Anonymous makes the call without a principal, as an HTTP request without a
// token.
func Anonymous() Option { return func(c *callConfig) { c.principal, c.anonymous = nil, true } }

// Capabilities replaces the client capabilities the call declares (by default
// {"elicitation":{"form":{},"url":{}}}): {} declares none, so a question gets
// -32021.
func Capabilities(raw string) Option {
	return func(c *callConfig) { c.caps = json.RawMessage(raw) }
}

// Context sets the context of the call (the default is context.Background);
// a principal it carries (mcpruntime.WithPrincipal) is the caller unless As,
// AsPrincipal or Anonymous say otherwise.
func Context(ctx context.Context) Option { return func(c *callConfig) { c.ctx = ctx } }

// Respond answers the question with key with result, the client's raw result
// (an ElicitResult, a CreateMessageResult, ...; a value is encoded as JSON).
//
// In Modern calls questions carry their keys. In Legacy calls they do not: the
// consent question is recognized by its form, and any other question gets the
// first answer not used yet, in the order the options were given.
func Respond(key string, result any) Option {
	return func(c *callConfig) {
		raw, ok := result.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(result); err != nil {
				panic(fmt.Sprintf("mcpgentest.Respond(%q): %v", key, err))
			}
		}
		c.answers = append(c.answers, answer{key: key, result: raw})
	}
}

// Accept answers the elicitation with key by accepting it with content (a
// struct or map encoded as the form's object).
func Accept(key string, content any) Option {
	return Respond(key, map[string]any{"action": "accept", "content": content})
}

// Decline answers the elicitation with key by declining it.
func Decline(key string) Option {
	return Respond(key, map[string]any{"action": "decline"})
}

// Confirm answers a tool's consent question (confirm="..."): yes accepts it
// with the box ticked, false declines it.
func Confirm(yes bool) Option {
	if !yes {
		return Decline(ConfirmKey)
	}
	return Accept(ConfirmKey, map[string]bool{"confirm": true})
}

// An Error is a JSON-RPC error response.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Content is one decoded content block of a tool result or prompt message.
type Content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     []byte            `json:"data,omitempty"` // image and audio, decoded
	MIMEType string            `json:"mimeType,omitempty"`
	URI      string            `json:"uri,omitempty"`
	Name     string            `json:"name,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
}

// ResourceContents is one decoded content of a resources/read result.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     []byte `json:"blob,omitempty"` // decoded from base64
}

// A ToolResult is a decoded tools/call result.
type ToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
	Raw               json.RawMessage `json:"-"` // the result as the server sent it
}

// Text returns the text blocks of r, joined by newlines.
func (r *ToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// A PromptMessage is one decoded message of a prompts/get result.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// A PromptResult is a decoded prompts/get result.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// CallTool calls the tool name on s with the arguments in (a struct, a map or
// a json.RawMessage) and returns its structured output decoded into Out, or
// the ToolError of an isError result (a handler's plain error gives a
// ToolError with an empty Code and the error's text). When Out is string, the
// output is the result's text. The call goes through s.HandleRaw as a client's
// would, in the revision Version chooses, answering the server's questions
// (consent, elicitation) with the Respond options; a question without an
// answer, a JSON-RPC error or an undecodable result fails t.
func CallTool[Out any](t TB, s *mcpruntime.Server, name string, in any, opts ...Option) (Out, *mcpruntime.ToolError) {
	t.Helper()
	var out Out
	res := CallToolResult(t, s, name, in, opts...)
	if res == nil {
		return out, nil
	}
	if res.IsError {
		te := &mcpruntime.ToolError{Message: res.Text()}
		if raw, ok := res.Meta[mcpruntime.MetaError]; ok {
			b, _ := json.Marshal(raw)
			if err := json.Unmarshal(b, te); err != nil {
				t.Fatalf("tools/call %s: error object %s: %v", name, b, err)
			}
		}
		return out, te
	}
	if len(res.StructuredContent) == 0 {
		if p, ok := any(&out).(*string); ok {
			*p = res.Text()
			return out, nil
		}
		t.Fatalf("tools/call %s: result has no structuredContent to decode into %T: %s", name, out, res.Raw)
		return out, nil
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("tools/call %s: decode structuredContent into %T: %v", name, out, err)
	}
	return out, nil
}

// CallToolResult is CallTool returning the whole decoded result.
func CallToolResult(t TB, s *mcpruntime.Server, name string, in any, opts ...Option) *ToolResult {
	t.Helper()
	args, err := encodeArgs(in)
	if err != nil {
		t.Fatalf("tools/call %s: encode arguments: %v", name, err)
		return nil
	}
	raw, rerr := Call(t, s, "tools/call", map[string]any{"name": name, "arguments": args}, opts...)
	if rerr != nil {
		t.Fatalf("tools/call %s: %v", name, rerr)
		return nil
	}
	res := &ToolResult{Raw: raw}
	if err := json.Unmarshal(raw, res); err != nil {
		t.Fatalf("tools/call %s: result %s: %v", name, raw, err)
		return nil
	}
	return res
}

// ReadResource reads uri on s (resources/read) and returns its contents, or the
// JSON-RPC error the server answered with (a missing resource is -32002 in
// Legacy calls, -32602 in Modern ones). Options are CallTool's.
func ReadResource(t TB, s *mcpruntime.Server, uri string, opts ...Option) ([]ResourceContents, *Error) {
	t.Helper()
	raw, rerr := Call(t, s, "resources/read", map[string]any{"uri": uri}, opts...)
	if rerr != nil {
		return nil, rerr
	}
	var res struct {
		Contents []ResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("resources/read %s: result %s: %v", uri, raw, err)
	}
	return res.Contents, nil
}

// GetPrompt renders the prompt name on s with args (prompts/get) and returns
// the result, or the JSON-RPC error the server answered with. Options are
// CallTool's.
func GetPrompt(t TB, s *mcpruntime.Server, name string, args map[string]string, opts ...Option) (*PromptResult, *Error) {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	raw, rerr := Call(t, s, "prompts/get", params, opts...)
	if rerr != nil {
		return nil, rerr
	}
	res := new(PromptResult)
	if err := json.Unmarshal(raw, res); err != nil {
		t.Fatalf("prompts/get %s: result %s: %v", name, raw, err)
	}
	return res, nil
}

// Call sends one request for method with params (encoded as JSON) to s and
// returns its final result, after answering every round of questions, or its
// JSON-RPC error. It is what CallTool, ReadResource and GetPrompt use; call it
// for any other method (tools/list, completion/complete, ...).
func Call(t TB, s *mcpruntime.Server, method string, params any, opts ...Option) (json.RawMessage, *Error) {
	t.Helper()
	c := &callConfig{version: Modern, caps: json.RawMessage(`{"elicitation":{"form":{},"url":{}}}`), ctx: context.Background()}
	for _, o := range opts {
		o(c)
	}
	ctx := c.ctx
	switch {
	case c.principal != nil:
		ctx = mcpruntime.WithPrincipal(ctx, c.principal)
	case !c.anonymous && mcpruntime.PrincipalFrom(ctx) == nil:
		ctx = mcpruntime.WithPrincipal(ctx, mcpruntime.UnrestrictedPrincipal("mcpgentest"))
	}
	p, err := encodeObject(params)
	if err != nil {
		t.Fatalf("%s: encode params: %v", method, err)
		return nil, nil
	}
	if c.version == Modern {
		return c.modern(t, ctx, s, method, p)
	}
	return c.legacy(t, ctx, s, method, p)
}

// maxRounds bounds the rounds of one Modern call.
const maxRounds = 20

// modern runs a 2026-07-28 request and its rounds: each input_required result
// is answered from c.answers and the request retried with the state.
func (c *callConfig) modern(t TB, ctx context.Context, s *mcpruntime.Server, method string, params map[string]json.RawMessage) (json.RawMessage, *Error) {
	t.Helper()
	params["_meta"] = mustJSON(map[string]any{
		"io.modelcontextprotocol/protocolVersion":    Modern,
		"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "mcpgentest", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": c.caps,
	})
	for round := 1; round <= maxRounds; round++ {
		result, rerr := send(t, ctx, s, nil, nil, round, method, params)
		if rerr != nil || result == nil {
			return result, rerr
		}
		var ir struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  json.RawMessage            `json:"requestState"`
		}
		if json.Unmarshal(result, &ir) != nil || ir.ResultType != "input_required" {
			return result, nil
		}
		responses := map[string]json.RawMessage{}
		for key, q := range ir.InputRequests {
			a := c.byKey(key)
			if a == nil {
				t.Fatalf("%s: the server asked %q and the call has no answer for it (mcpgentest.Respond, Accept, Confirm): %s", method, key, q)
				return nil, nil
			}
			responses[key] = a.result
		}
		params["inputResponses"] = mustJSON(responses)
		if len(ir.RequestState) > 0 {
			params["requestState"] = ir.RequestState
		}
	}
	t.Fatalf("%s: still asking after %d rounds", method, maxRounds)
	return nil, nil
}

// legacy runs a request in an initialized 2025-11-25 session, answering the
// server-to-client requests it sends.
func (c *callConfig) legacy(t TB, ctx context.Context, s *mcpruntime.Server, method string, params map[string]json.RawMessage) (json.RawMessage, *Error) {
	t.Helper()
	var (
		mu       sync.Mutex
		problems []string
		sess     *mcpruntime.Session
		wg       sync.WaitGroup
	)
	sink := mcpruntime.SinkFunc(func(_ context.Context, msg []byte) error {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || req.Method == "" {
			return nil // a notification (progress, log, list changed)
		}
		mu.Lock()
		a := c.forQuestion(req.Method, req.Params)
		mu.Unlock()
		var reply []byte
		if a == nil {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("the server asked %s %s and the call has no answer for it (mcpgentest.Respond, Accept, Confirm)", req.Method, req.Params))
			mu.Unlock()
			reply = mustJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32603, "message": "mcpgentest: no answer"}})
		} else {
			reply = mustJSON(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": a.result})
		}
		wg.Add(1)
		go func() { // answer after Send returns, as a client reading the stream would
			defer wg.Done()
			s.HandleRaw(ctx, reply, sess, nil)
		}()
		return nil
	})
	sess = s.NewSession(sink)
	defer sess.Close()
	caps := c.caps
	if _, rerr := send(t, ctx, s, sess, sink, 0, "initialize", map[string]json.RawMessage{
		"protocolVersion": mustJSON(c.version),
		"capabilities":    caps,
		"clientInfo":      mustJSON(map[string]string{"name": "mcpgentest", "version": "1"}),
	}); rerr != nil {
		t.Fatalf("initialize %s: %v", c.version, rerr)
		return nil, nil
	}
	s.HandleRaw(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, sink)
	result, rerr := send(t, ctx, s, sess, sink, 1, method, params)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: %s", method, p)
	}
	return result, rerr
}

// byKey returns the answer for the Modern question key, or nil.
func (c *callConfig) byKey(key string) *answer {
	for i := range c.answers {
		if c.answers[i].key == key {
			return &c.answers[i]
		}
	}
	return nil
}

// forQuestion picks the answer of a Legacy question: the consent answer for
// the consent form, else the first unused answer of another key.
func (c *callConfig) forQuestion(method string, params json.RawMessage) *answer {
	if method == "elicitation/create" && isConsent(params) {
		return c.byKey(ConfirmKey)
	}
	for i := range c.answers {
		if a := &c.answers[i]; !a.used && a.key != ConfirmKey {
			a.used = true
			return a
		}
	}
	return nil
}

// isConsent reports whether elicitation params ask the consent form: one
// boolean property "confirm".
func isConsent(params json.RawMessage) bool {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	props := p.RequestedSchema.Properties
	return len(props) == 1 && props["confirm"].Type == "boolean"
}

// send gives one request to s and returns its result or error.
func send(t TB, ctx context.Context, s *mcpruntime.Server, sess *mcpruntime.Session, out mcpruntime.Sink, id int, method string, params map[string]json.RawMessage) (json.RawMessage, *Error) {
	t.Helper()
	msg := mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	reply := s.HandleRaw(ctx, msg, sess, out)
	if reply.Body == nil {
		t.Fatalf("%s: no response", method)
		return nil, nil
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(reply.Body, &resp); err != nil {
		t.Fatalf("%s: response %s: %v", method, reply.Body, err)
		return nil, nil
	}
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

// encodeArgs encodes a tool's arguments: nil is {}.
func encodeArgs(in any) (json.RawMessage, error) {
	if in == nil {
		return json.RawMessage(`{}`), nil
	}
	if raw, ok := in.(json.RawMessage); ok {
		return raw, nil
	}
	if v := reflect.ValueOf(in); v.Kind() == reflect.Pointer && v.IsNil() {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(in)
}

// encodeObject encodes params as a JSON object's members.
func encodeObject(params any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if string(b) == "null" {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("params must be a JSON object: %w", err)
	}
	return m, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
