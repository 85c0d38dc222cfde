package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
)

// listPage is a decoded tools/list result.
type listPage struct {
	Tools []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	} `json:"tools"`
	NextCursor *string `json:"nextCursor"`
	TTLMs      *int64  `json:"ttlMs"`
	CacheScope string  `json:"cacheScope"`
}

// manyTools returns n trivial tools named t0..tn-1.
func manyTools(n int) []*Tool {
	var tools []*Tool
	for i := range n {
		tools = append(tools, simpleTool(fmt.Sprintf("t%d", i), func(context.Context) (*ToolResult, error) {
			return &ToolResult{}, nil
		}))
	}
	return tools
}

func TestToolsListPagination(t *testing.T) {
	for _, modern := range []bool{true, false} {
		t.Run(fmt.Sprintf("modern=%v", modern), func(t *testing.T) {
			c := serveInMemory(t, newTestServer(t, &Options{PageSize: 2}, manyTools(5)...))
			if !modern {
				initialize(t, c, "2025-11-25")
			}
			var names []string
			var cursor *string
			for pages := 0; ; pages++ {
				params := map[string]any{}
				if cursor != nil {
					params["cursor"] = *cursor
				}
				var page listPage
				c.call(modern, "tools/list", params).decodeResult(t, &page)
				for _, tool := range page.Tools {
					names = append(names, tool.Name)
				}
				if modern && (page.TTLMs == nil || page.CacheScope != "public") {
					t.Errorf("modern page without ttlMs/cacheScope: %+v", page)
				}
				if cursor = page.NextCursor; cursor == nil || pages > 5 {
					break
				}
			}
			if want := []string{"t0", "t1", "t2", "t3", "t4"}; !slices.Equal(names, want) {
				t.Errorf("tools over all pages = %v, want %v", names, want)
			}
		})
	}
}

func TestToolsListStable(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, manyTools(3)...))
	first := c.call(true, "tools/list", nil)
	for range 3 {
		if again := c.call(true, "tools/list", nil); string(again.Result) != string(first.Result) {
			t.Errorf("tools/list changed between calls:\n%s\n%s", first.Result, again.Result)
		}
	}
}

func TestToolsListBadCursor(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, &Options{PageSize: 1}, manyTools(2)...))
	unknown := base64.RawURLEncoding.EncodeToString([]byte("after:nope"))
	for _, cursor := range []any{"%%%", "", unknown, 12} {
		if m := c.call(true, "tools/list", map[string]any{"cursor": cursor}); m.errorCode() != CodeInvalidParams {
			t.Errorf("cursor %v: got %s, want -32602", cursor, m.raw)
		}
	}
}

func TestToolsListOutputSchemaPerEra(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, addTool()))
	var modern, legacy listPage
	c.call(true, "tools/list", nil).decodeResult(t, &modern)
	initialize(t, c, "2025-11-25")
	c.call(false, "tools/list", nil).decodeResult(t, &legacy)
	if got := string(modern.Tools[0].OutputSchema); got != intOut {
		t.Errorf("modern outputSchema = %s, want %s", got, intOut)
	}
	if got := string(legacy.Tools[0].OutputSchema); got != wrapOut {
		t.Errorf("legacy outputSchema = %s, want %s", got, wrapOut)
	}
}

// callTool calls a tool in an era and decodes the result.
func callTool(t *testing.T, c *testClient, modern bool, name string, args any) (callResult, *msg) {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	m := c.call(modern, "tools/call", params)
	var res callResult
	if m.Error == nil {
		m.decodeResult(t, &res)
	}
	return res, m
}

func TestCallStructured(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, echoTool(), addTool()))
	res, _ := callTool(t, c, true, "echo", map[string]any{"text": "ab", "repeat": 2})
	if string(res.StructuredContent) != `{"text":"abab"}` || res.Content[0].Text != `{"text":"abab"}` || res.IsError {
		t.Errorf("modern echo = %+v, want structured and text {\"text\":\"abab\"}", res)
	}
	res, _ = callTool(t, c, true, "add", map[string]any{"a": 1, "b": 2})
	if string(res.StructuredContent) != `3` {
		t.Errorf("modern add structuredContent = %s, want 3", res.StructuredContent)
	}
	initialize(t, c, "2025-11-25")
	res, _ = callTool(t, c, false, "add", map[string]any{"a": 1, "b": 2})
	if string(res.StructuredContent) != `{"result":3}` || res.Content[0].Text != `{"result":3}` {
		t.Errorf("legacy add = %+v, want structured {\"result\":3}", res)
	}
	res, _ = callTool(t, c, false, "echo", map[string]any{"text": "x"})
	if string(res.StructuredContent) != `{"text":"x"}` {
		t.Errorf("legacy echo structuredContent = %s", res.StructuredContent)
	}
}

func TestCallInvalidArguments(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, echoTool()))
	res, _ := callTool(t, c, true, "echo", map[string]any{"txt": "a", "repeat": 9})
	text := res.Content[0].Text
	if !res.IsError {
		t.Fatalf("invalid arguments: got %+v, want isError", res)
	}
	for _, want := range []string{"(root): required", "'text'", "/repeat: maximum", "additionalProperties", "'txt'", "valid arguments: text, repeat"} {
		if !strings.Contains(text, want) {
			t.Errorf("validation text %q lacks %q", text, want)
		}
	}
	// Arguments absent entirely are validated as {}.
	res, _ = callTool(t, c, true, "echo", nil)
	if !res.IsError || !strings.Contains(res.Content[0].Text, "required") {
		t.Errorf("no arguments: got %+v, want a required error", res)
	}
}

func TestCallNoArgumentsTool(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, failTool()))
	res, _ := callTool(t, c, true, "fail", map[string]any{"x": 1})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "takes no arguments") {
		t.Errorf("argument to a tool without arguments: got %+v", res)
	}
}

func TestCallProtocolErrors(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, echoTool()))
	for _, modern := range []bool{true, false} {
		if !modern {
			initialize(t, c, "2025-11-25")
		}
		for name, params := range map[string]map[string]any{
			"unknown tool":  {"name": "nope"},
			"no name":       {"arguments": map[string]any{}},
			"name a number": {"name": 5},
			"args an array": {"name": "echo", "arguments": []int{1}},
		} {
			if m := c.call(modern, "tools/call", params); m.errorCode() != CodeInvalidParams {
				t.Errorf("modern=%v %s: got %s, want -32602", modern, name, m.raw)
			}
		}
	}
	r := newTestServer(t, nil).HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil, nil)
	if r.HTTPStatus() != 200 || r.MetaError {
		t.Errorf("unknown tool HTTPStatus = %d, want 200 (application error)", r.HTTPStatus())
	}
}

func TestCallHandlerErrorAndPanic(t *testing.T) {
	logger, logs := capturingLogger()
	c := serveInMemory(t, newTestServer(t, &Options{Logger: logger}, failTool(), panicTool()))
	res, _ := callTool(t, c, true, "fail", nil)
	if !res.IsError || res.Content[0].Text != errBoom.Error() {
		t.Errorf("handler error: got %+v, want isError %q", res, errBoom)
	}
	res, _ = callTool(t, c, true, "crash", nil)
	if !res.IsError || strings.Contains(res.Content[0].Text, "secret-detail-42") {
		t.Errorf("panic: got %+v, want a generic isError text", res)
	}
	if !strings.Contains(logs.String(), "secret-detail-42") {
		t.Errorf("panic detail missing from the log:\n%s", logs.String())
	}
	// The server keeps serving after a panic.
	if res, _ = callTool(t, c, true, "fail", nil); !res.IsError {
		t.Errorf("after a panic: got %+v", res)
	}
}

func TestCallOutputMismatchAndNilResult(t *testing.T) {
	bad := echoTool()
	bad.Name, bad.InputSchema = "bad", json.RawMessage(noInput)
	bad.Handler = func(context.Context, *ToolRequest) (*ToolResult, error) { return Structured(echoOut{}) }
	nilTool := simpleTool("nil", func(context.Context) (*ToolResult, error) { return nil, nil })
	nilErr := simpleTool("nilerr", func(context.Context) (*ToolResult, error) { return nil, fmt.Errorf("adapter: %w", ErrNilResult) })
	logger, logs := capturingLogger()
	c := serveInMemory(t, newTestServer(t, &Options{Logger: logger}, bad, nilTool, nilErr))
	for _, name := range []string{"bad", "nil", "nilerr"} {
		if _, m := callTool(t, c, true, name, nil); m.errorCode() != CodeInternalError {
			t.Errorf("%s: got %s, want -32603", name, m.raw)
		}
	}
	if !strings.Contains(logs.String(), "does not match the output schema") {
		t.Errorf("output mismatch not logged:\n%s", logs.String())
	}
}

func TestCallRichContent(t *testing.T) {
	rich := simpleTool("rich", func(context.Context) (*ToolResult, error) {
		link := ResourceLink("file:///n.txt", "n", "text/plain")
		link.Title, link.Size = "N", 12
		return &ToolResult{Content: []Content{
			Text(""), Image([]byte("png"), "image/png"), Audio(nil, "audio/wav"),
			EmbeddedResource(ResourceContents{URI: "file:///a", Text: "a"}),
			EmbeddedResource(ResourceContents{URI: "file:///b", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}),
			link,
		}, Meta: map[string]any{"example.com/k": 1}}, nil
	})
	c := serveInMemory(t, newTestServer(t, nil, rich))
	res, m := callTool(t, c, true, "rich", nil)
	types := []string{}
	for _, b := range res.Content {
		types = append(types, b.Type)
	}
	if want := []string{"text", "image", "audio", "resource", "resource", "resource_link"}; !slices.Equal(types, want) {
		t.Errorf("content types = %v, want %v", types, want)
	}
	if res.Content[1].Data != base64.StdEncoding.EncodeToString([]byte("png")) {
		t.Errorf("image data = %q, want base64", res.Content[1].Data)
	}
	if !strings.Contains(string(m.Result), `"example.com/k":1`) || !strings.Contains(string(m.Result), metaServerInfo) {
		t.Errorf("result _meta lost the handler's key or serverInfo: %s", m.Result)
	}
	initialize(t, c, "2025-11-25")
	if _, m := callTool(t, c, false, "rich", nil); strings.Contains(string(m.Result), metaServerInfo) {
		t.Errorf("legacy result carries serverInfo: %s", m.Result)
	}
}

func TestLazySchemaCompile(t *testing.T) {
	broken := simpleTool("broken", func(context.Context) (*ToolResult, error) { return &ToolResult{}, nil })
	broken.InputSchema = json.RawMessage(`{"type":"object","allOf":[{"type":"nope"}]}`)
	compiled := 0
	failing := func([]byte) (fullhook.Validator, error) { compiled++; return nil, errors.New("no such type") }
	withFullHook(failing, func() {
		s := newTestServer(t, nil, broken) // AddTool does not compile
		if compiled != 0 {
			t.Errorf("AddTool compiled the schema")
		}
		c := serveInMemory(t, s)
		if _, m := callTool(t, c, true, "broken", nil); m.errorCode() != CodeInternalError {
			t.Errorf("uncompilable schema: got %s, want -32603", m.raw)
		}
	})
}

func TestAddToolPanics(t *testing.T) {
	tests := map[string]*Tool{
		"nil handler":  {Name: "x", InputSchema: json.RawMessage(noInput)},
		"no name":      simpleTool("", nil),
		"array schema": {Name: "x", InputSchema: json.RawMessage(`[]`), Handler: echoTool().Handler},
		"string root":  {Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`), Handler: echoTool().Handler},
		"bad output":   {Name: "x", InputSchema: json.RawMessage(noInput), OutputSchema: json.RawMessage(`true`), Handler: echoTool().Handler},
		"invalid json": {Name: "x", InputSchema: json.RawMessage(`{"type":`), Handler: echoTool().Handler},
		"invalid schema": {Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"nope"}}}`),
			Handler: echoTool().Handler},
		"beyond built-in": {Name: "x", InputSchema: json.RawMessage(`{"type":"object","not":{}}`), Handler: echoTool().Handler},
		"output beyond": {Name: "x", InputSchema: json.RawMessage(noInput), OutputSchema: json.RawMessage(`{"allOf":[{}]}`),
			Handler: echoTool().Handler},
		"duplicate":     echoTool(),
		"nil tool":      nil,
		"missing input": {Name: "x", Handler: echoTool().Handler},
	}
	for name, tool := range tests {
		t.Run(name, func(t *testing.T) {
			s := newTestServer(t, nil, echoTool())
			defer func() {
				if recover() == nil {
					t.Errorf("AddTool did not panic")
				}
			}()
			withFullHook(nil, func() { s.AddTool(tool) }) // runtime/fullschema not imported
		})
	}
}

func TestDecode(t *testing.T) {
	var in echoIn
	if err := (&ToolRequest{Name: "echo", Arguments: json.RawMessage(`{"text":"a","extra":1}`)}).Decode(&in); err == nil {
		t.Errorf("Decode accepted an unknown field")
	}
	in = echoIn{Repeat: 3}
	if err := (&ToolRequest{Name: "echo"}).Decode(&in); err != nil || in.Repeat != 3 {
		t.Errorf("Decode of no arguments = %+v, %v; want defaults kept", in, err)
	}
}

// progressNotes splits the notifications seen before a response.
func progressNotes(t *testing.T, before []*msg) (progress []float64, logs []string) {
	t.Helper()
	for _, m := range before {
		var p struct {
			Progress float64 `json:"progress"`
			Level    string  `json:"level"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		switch m.Method {
		case "notifications/progress":
			progress = append(progress, p.Progress)
		case "notifications/message":
			logs = append(logs, p.Level)
		default:
			t.Errorf("unexpected message before the response: %s", m.raw)
		}
	}
	return progress, logs
}

func TestProgressAndLogModern(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, progressTool(3)))
	meta := modernMeta()
	meta["progressToken"] = "tok"
	meta[metaLogLevel] = "info"
	id := c.request("tools/call", map[string]any{"name": "steps", "_meta": meta})
	_, before := c.await(id)
	progress, logs := progressNotes(t, before)
	if !slices.Equal(progress, []float64{1, 2, 3}) || !slices.Equal(logs, []string{"info", "error", "info", "error", "info", "error"}) {
		t.Errorf("progress %v, logs %v; want 1,2,3 and info/error per step", progress, logs)
	}
	// Without progressToken and logLevel: nothing but the result.
	id = c.modern("tools/call", map[string]any{"name": "steps"})
	if _, before = c.await(id); len(before) != 0 {
		t.Errorf("notifications without opt-in: %d", len(before))
	}
}

func TestProgressAndLogLegacy(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, progressTool(2)))
	initialize(t, c, "2025-11-25")
	call := func() (progress []float64, logs []string) {
		id := c.request("tools/call", map[string]any{"name": "steps", "_meta": map[string]any{"progressToken": 7}})
		_, before := c.await(id)
		return progressNotes(t, before)
	}
	if progress, logs := call(); len(logs) != 0 || !slices.Equal(progress, []float64{1, 2}) {
		t.Errorf("before setLevel: progress %v logs %v; want progress only", progress, logs)
	}
	c.call(false, "logging/setLevel", map[string]any{"level": "error"})
	if _, logs := call(); !slices.Equal(logs, []string{"error", "error"}) {
		t.Errorf("after setLevel error: logs %v, want error only", logs)
	}
}

func TestProgressMustIncrease(t *testing.T) {
	errs := make(chan error, 1)
	tool := simpleTool("p", func(ctx context.Context) (*ToolResult, error) {
		_ = Progress(ctx, 2, 0, "")
		errs <- Progress(ctx, 2, 0, "")
		return &ToolResult{}, nil
	})
	c := serveInMemory(t, newTestServer(t, nil, tool))
	meta := modernMeta()
	meta["progressToken"] = 1
	c.await(c.request("tools/call", map[string]any{"name": "p", "_meta": meta}))
	if err := <-errs; !errors.Is(err, ErrNoProgress) {
		t.Errorf("repeated progress: %v, want ErrNoProgress", err)
	}
}

func TestLogOutsideRequest(t *testing.T) {
	if err := Log(context.Background(), "info", "", "x"); err != nil {
		t.Errorf("Log outside a request = %v, want nil", err)
	}
	if err := Log(context.Background(), "chatty", "", "x"); !errors.Is(err, ErrInvalidLogLevel) {
		t.Errorf("Log with a bad level = %v, want ErrInvalidLogLevel", err)
	}
	if err := Progress(context.Background(), 1, 2, ""); err != nil {
		t.Errorf("Progress outside a request = %v, want nil", err)
	}
	if RequestFrom(context.Background()) != nil {
		t.Errorf("RequestFrom outside a request is not nil")
	}
}

func TestCancellation(t *testing.T) {
	for _, modern := range []bool{true, false} {
		t.Run(fmt.Sprintf("modern=%v", modern), func(t *testing.T) {
			started, cancelled := make(chan struct{}, 1), make(chan error, 1)
			c := serveInMemory(t, newTestServer(t, nil, blockTool(started, cancelled)))
			meta := map[string]any{"progressToken": "p"}
			if modern {
				meta = modernMeta()
				meta["progressToken"] = "p"
			} else {
				initialize(t, c, "2025-11-25")
			}
			id := c.request("tools/call", map[string]any{"name": "block", "_meta": meta})
			<-started
			if m := c.next(); m.Method != "notifications/progress" {
				t.Fatalf("got %s, want the first progress", m.raw)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `,"reason":"user"}}`)
			if err := <-cancelled; !errors.Is(err, context.Canceled) {
				t.Errorf("handler context = %v, want canceled", err)
			}
			c.expectQuiet(200 * time.Millisecond) // no progress, no response
			if m := c.call(false, "ping", nil); string(m.Result) != "{}" {
				t.Errorf("ping after cancel: %s", m.raw)
			}
		})
	}
}

func TestRequestInfo(t *testing.T) {
	got := make(chan RequestInfo, 1)
	who := simpleTool("who", func(ctx context.Context) (*ToolResult, error) {
		got <- *RequestFrom(ctx)
		return &ToolResult{}, nil
	})
	c := serveInMemory(t, newTestServer(t, nil, who))
	callTool(t, c, true, "who", nil)
	if info := <-got; !info.Modern || info.ProtocolVersion != "2026-07-28" || info.ClientInfo.Name != "test-client" || string(info.ClientCapabilities) != "{}" {
		t.Errorf("modern RequestInfo = %+v", info)
	}
	initialize(t, c, "2026-07-28")
	callTool(t, c, false, "who", nil)
	if info := <-got; info.Modern || info.ProtocolVersion != "2025-11-25" || info.ClientInfo.Name != "legacy-client" || !strings.Contains(string(info.ClientCapabilities), "elicitation") {
		t.Errorf("legacy RequestInfo = %+v", info)
	}
}
