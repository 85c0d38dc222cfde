package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// extServer returns a quiet server with a readonly tool "hello" and a
// prompt and a resource.
func extServer(t *testing.T, opts *Options) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := NewServer(Implementation{Name: "ext", Version: "1"}, opts)
	s.AddTool(&Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`),
		Annotations: &ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			return &ToolResult{Content: []Content{Text("hello")}}, nil
		}})
	s.AddResource(&Resource{URI: "demo://a", Name: "a", Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) {
		return TextResource("A"), nil
	}})
	s.AddPrompt(&Prompt{Name: "p", Handler: func(context.Context, *PromptRequest) (*PromptResult, error) {
		return Messages(UserMessage(Text("P"))), nil
	}})
	return s
}

// modernRaw is a 2026-07-28 request with the given client capabilities.
func modernRaw(method, params, caps string) []byte {
	if params != "" {
		params += ","
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`)
}

// legacySession initializes a 2025-11-25 session with caps and returns it
// and the initialize result.
func legacySession(t *testing.T, s *Server, caps string) (*Session, []byte) {
	t.Helper()
	sess := s.NewSession(nil)
	r := s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`), sess, nil)
	s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, nil)
	return sess, r.Body
}

func legacyRaw(method, params string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{` + params + `}}`)
}

func TestUseRefusesShadowAndDuplicates(t *testing.T) {
	s := extServer(t, nil)
	h := func(context.Context, *MethodRequest) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }
	for _, tc := range []struct {
		x    *Extension
		want string
	}{
		{&Extension{ID: "a/x", Methods: []Method{{Name: "tools/call", Handle: h}}}, "core method"},
		{&Extension{ID: "a/x", Methods: []Method{{Name: "notifications/cancelled", Notification: true, Handle: h}}}, "core method"},
		{&Extension{ID: "a/x", Methods: []Method{{Name: "", Handle: h}}}, "without a name"},
		{&Extension{ID: "a/x", Methods: []Method{{Name: "a/m"}}}, "no Handle"},
		{&Extension{ID: "a/x", Settings: json.RawMessage(`[1]`)}, "JSON object"},
		{&Extension{ID: "a/x", Settings: json.RawMessage(`{"a":`)}, "JSON object"},
	} {
		err := s.Use(tc.x)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Use(%v) = %v, want an error containing %q", tc.x.Methods, err, tc.want)
		}
	}
	if len(s.Extensions()) != 0 {
		t.Fatalf("a failed Use registered something: %d", len(s.Extensions()))
	}
	if err := s.Use(&Extension{ID: "a/x", Methods: []Method{{Name: "a/m", Handle: h}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Use(&Extension{ID: "a/x"}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate ID: %v", err)
	}
	if err := s.Use(&Extension{ID: "a/y", Methods: []Method{{Name: "a/m", Handle: h}}}); err == nil || !strings.Contains(err.Error(), "another extension") {
		t.Errorf("duplicate method: %v", err)
	}
	// tasks/* are no core methods: the tasks extension (runtime/tasks) serves
	// them, and without it another extension may.
	if err := s.Use(&Extension{ID: "a/z", Methods: []Method{{Name: "tasks/get", Handle: h}}}); err != nil {
		t.Errorf("tasks/get without the tasks extension: %v", err)
	}
}

// TestTaskToolNeedsTheTasksExtension: the core runs no task itself, so a
// task tool (Tool.Task) without the tasks extension registered is refused
// at AddTool and PutTool (it would silently run as a plain tool), and
// accepted once an extension with its ID is registered.
func TestTaskToolNeedsTheTasksExtension(t *testing.T) {
	s := extServer(t, nil)
	task := func() *Tool {
		return &Tool{Name: "slow", Task: TaskOptional, InputSchema: json.RawMessage(`{"type":"object"}`),
			Handler: func(context.Context, *ToolRequest) (*ToolResult, error) { return &ToolResult{}, nil }}
	}
	for name, add := range map[string]func(*Tool){"AddTool": s.AddTool, "PutTool": s.PutTool} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "tasks extension (io.modelcontextprotocol/tasks) is not registered") {
					t.Errorf("%s of a task tool without the tasks extension: %v", name, r)
				}
			}()
			add(task())
		}()
	}
	if s.Tool("slow") != nil {
		t.Fatal("a refused task tool was registered")
	}
	s.MustUse(&Extension{ID: "io.modelcontextprotocol/tasks"})
	s.AddTool(task())
	if got := s.Tool("slow"); got == nil || got.Task != TaskOptional {
		t.Errorf("task tool with the extension: %+v", got)
	}
}

func TestExtensionAdvertisedAndClientSettings(t *testing.T) {
	s := extServer(t, nil)
	var seen []string
	var mu sync.Mutex
	err := s.Use(&Extension{ID: "com.example/ui", Settings: json.RawMessage(`{"mimeTypes":["text/html"]}`),
		Methods: []Method{{Name: "com.example/who", Handle: func(ctx context.Context, req *MethodRequest) (json.RawMessage, error) {
			v, ok := ClientExtension(ctx, "com.example/ui")
			mu.Lock()
			seen = append(seen, string(v))
			mu.Unlock()
			if !ok {
				return nil, &RPCError{Code: CodeMissingClientCapability, Message: "no ui"}
			}
			return json.RawMessage(`{"ok":true}`), nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	// 2026-07-28: server/discover advertises; the method reads per request.
	r := s.HandleRaw(context.Background(), modernRaw("server/discover", "", `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"extensions":{"com.example/ui":{"mimeTypes":["text/html"]}}`)) {
		t.Errorf("discover: %s", r.Body)
	}
	r = s.HandleRaw(context.Background(), modernRaw("com.example/who", "", `{"extensions":{"com.example/ui":{"v":2}}}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"result":{"ok":true,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo"`)) {
		t.Errorf("modern custom method: %s", r.Body)
	}
	r = s.HandleRaw(context.Background(), modernRaw("com.example/who", "", `{}`), nil, nil)
	if code, _ := rpcErrorOf(t, r.Body); code != CodeMissingClientCapability {
		t.Errorf("without the client's extension: %s", r.Body)
	}
	// 2025-11-25: initialize advertises; the session's capabilities are read.
	sess, init := legacySession(t, s, `{"extensions":{"com.example/ui":{"v":1}}}`)
	if !bytes.Contains(init, []byte(`"com.example/ui":{"mimeTypes":["text/html"]}`)) {
		t.Errorf("initialize: %s", init)
	}
	r = s.HandleRaw(context.Background(), legacyRaw("com.example/who", ""), sess, nil)
	if !bytes.Contains(r.Body, []byte(`"result":{"ok":true}`)) {
		t.Errorf("legacy custom method: %s", r.Body)
	}
	// An older revision gets no extensions member.
	old := s.NewSession(nil)
	r = s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`), old, nil)
	if bytes.Contains(r.Body, []byte(`extensions`)) {
		t.Errorf("2025-06-18 initialize advertises extensions: %s", r.Body)
	}
	if want := []string{`{"v":2}`, ``, `{"v":1}`}; strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("client settings seen %q, want %q", seen, want)
	}
}

func TestExtensionMethodEraAndErrors(t *testing.T) {
	s := extServer(t, nil)
	var notified []string
	err := s.Use(&Extension{ID: "a/b", Methods: []Method{
		{Name: "a/modern", Modern: true, Handle: func(context.Context, *MethodRequest) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		}},
		{Name: "a/fail", Handle: func(context.Context, *MethodRequest) (json.RawMessage, error) {
			return nil, errors.New("boom")
		}},
		{Name: "a/panic", Handle: func(context.Context, *MethodRequest) (json.RawMessage, error) {
			panic("secret")
		}},
		{Name: "a/bad", Handle: func(context.Context, *MethodRequest) (json.RawMessage, error) {
			return json.RawMessage(`[1]`), nil
		}},
		{Name: "a/note", Notification: true, Handle: func(_ context.Context, req *MethodRequest) (json.RawMessage, error) {
			notified = append(notified, string(req.Params))
			return nil, nil
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := s.HandleRaw(context.Background(), modernRaw("a/modern", "", `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"result":{"resultType":"complete"`)) {
		t.Errorf("empty modern result: %s", r.Body)
	}
	sess, _ := legacySession(t, s, `{}`)
	r = s.HandleRaw(context.Background(), legacyRaw("a/modern", ""), sess, nil)
	if code, _ := rpcErrorOf(t, r.Body); code != CodeInvalidParams { // as server/discover
		t.Errorf("a modern-only method in 2025-11-25: %s", r.Body)
	}
	for method, want := range map[string]string{"a/fail": "a/fail: boom", "a/panic": "internal error in a/fail", "a/bad": "no result object"} {
		if method == "a/panic" {
			want = "internal error in a/panic"
		}
		r = s.HandleRaw(context.Background(), modernRaw(method, "", `{}`), nil, nil)
		if code, _ := rpcErrorOf(t, r.Body); code != CodeInternalError || !bytes.Contains(r.Body, []byte(want)) || bytes.Contains(r.Body, []byte("secret")) {
			t.Errorf("%s: %s (want -32603 %q)", method, r.Body, want)
		}
	}
	r = s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"a/note","params":{"x":1}}`), sess, nil)
	if r.Body != nil || len(notified) != 1 || notified[0] != `{"x":1}` {
		t.Errorf("notification: reply %s, handled %q", r.Body, notified)
	}
	// A request to a notification method is not found.
	r = s.HandleRaw(context.Background(), modernRaw("a/note", "", `{}`), nil, nil)
	if code, _ := rpcErrorOf(t, r.Body); code != CodeMethodNotFound {
		t.Errorf("request to a notification method: %s", r.Body)
	}
}

func TestExtensionInterceptorsOrderAndOutcomes(t *testing.T) {
	s := extServer(t, nil)
	var order []string
	mk := func(name string) ToolInterceptor {
		return func(ctx context.Context, req *ToolRequest, next ToolHandler) (*ToolResult, error) {
			order = append(order, name+">")
			if req.Tool == nil || req.Tool.Name != req.Name {
				t.Errorf("interceptor sees tool %v", req.Tool)
			}
			var who struct{ Who string }
			_ = json.Unmarshal(req.Arguments, &who)
			switch who.Who {
			case "answer-" + name:
				return &ToolResult{Content: []Content{Text("answered by " + name)}}, nil
			case "refuse-" + name:
				return nil, &ToolError{Code: "refused", Message: "refused by " + name}
			case "rpc-" + name:
				return nil, &RPCError{Code: -32099, Message: "rpc by " + name}
			case "panic-" + name:
				panic("x")
			}
			res, err := next(ctx, req)
			order = append(order, "<"+name)
			return res, err
		}
	}
	for _, n := range []string{"a", "b"} {
		if err := s.Use(&Extension{ID: "x/" + n, ToolCall: mk(n)}); err != nil {
			t.Fatal(err)
		}
	}
	call := func(who string) []byte {
		order = nil
		return s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"hello","arguments":{"who":"`+who+`"}`, `{}`), nil, nil).Body
	}
	if b := call("x"); !bytes.Contains(b, []byte(`"text":"hello"`)) || strings.Join(order, "") != "a>b><b<a" {
		t.Errorf("plain: %s, order %v", b, order)
	}
	if b := call("answer-b"); !bytes.Contains(b, []byte(`answered by b`)) || strings.Join(order, "") != "a>b><a" {
		t.Errorf("answer: %s, order %v", b, order)
	}
	if b := call("refuse-a"); !bytes.Contains(b, []byte(`"isError":true`)) || !bytes.Contains(b, []byte(`"code":"refused"`)) || strings.Join(order, "") != "a>" {
		t.Errorf("refuse: %s, order %v", b, order)
	}
	if b := call("rpc-b"); !bytes.Contains(b, []byte(`"error":{"code":-32099,"message":"rpc by b"`)) {
		t.Errorf("rpc error: %s", b)
	}
	if b := call("panic-a"); !bytes.Contains(b, []byte(`"isError":true`)) || !bytes.Contains(b, []byte(`internal error in tool hello`)) {
		t.Errorf("panic: %s", b)
	}
	// Invalid arguments never reach an interceptor.
	order = nil
	b := s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"hello","arguments":{"who":1}`, `{}`), nil, nil).Body
	if !bytes.Contains(b, []byte(`invalid_arguments`)) || len(order) != 0 {
		t.Errorf("invalid arguments: %s, order %v", b, order)
	}
}

func TestExtensionResourceAndPromptInterceptors(t *testing.T) {
	s := extServer(t, nil)
	err := s.Use(&Extension{ID: "x/rp",
		ResourceRead: func(ctx context.Context, req *ResourceRequest, next ResourceHandler) (*ResourceResult, error) {
			if req.URI == "demo://a" && RequestFrom(ctx) != nil && RequestFrom(ctx).Modern {
				return nil, &RPCError{Code: CodeForbidden, Message: "not today"}
			}
			return next(ctx, req)
		},
		PromptGet: func(ctx context.Context, req *PromptRequest, next PromptHandler) (*PromptResult, error) {
			res, err := next(ctx, req)
			if err == nil {
				res.Description = "wrapped"
			}
			return res, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := s.HandleRaw(context.Background(), modernRaw("resources/read", `"uri":"demo://a"`, `{}`), nil, nil)
	if code, _ := rpcErrorOf(t, r.Body); code != CodeForbidden {
		t.Errorf("resource interceptor refusal: %s", r.Body)
	}
	sess, _ := legacySession(t, s, `{}`)
	r = s.HandleRaw(context.Background(), legacyRaw("resources/read", `"uri":"demo://a"`), sess, nil)
	if !bytes.Contains(r.Body, []byte(`"text":"A"`)) {
		t.Errorf("resource through the interceptor: %s", r.Body)
	}
	r = s.HandleRaw(context.Background(), modernRaw("prompts/get", `"name":"p"`, `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"description":"wrapped"`)) {
		t.Errorf("prompt interceptor: %s", r.Body)
	}
}

func TestExtensionToolsViewVariantsCached(t *testing.T) {
	s := extServer(t, nil)
	s.AddTool(&Tool{Name: "app", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &ToolAnnotations{ReadOnlyHint: true},
		Meta: map[string]any{"ui": map[string]any{"resourceUri": "ui://app", "visibility": []string{"app"}}},
		Handler: func(context.Context, *ToolRequest) (*ToolResult, error) {
			return &ToolResult{Content: []Content{Text("app")}}, nil
		}})
	shows := 0
	plain := map[*Tool]*Tool{}
	var mu sync.Mutex
	err := s.Use(&Extension{ID: "io.modelcontextprotocol/ui", ToolsList: &ToolsView{
		Variant: func(info *RequestInfo) uint8 {
			if _, ok := ClientExtensionOf(info, "io.modelcontextprotocol/ui"); ok {
				return 0
			}
			return 1
		},
		Show: func(v uint8, t *Tool) *Tool {
			mu.Lock()
			defer mu.Unlock()
			shows++
			if t.Meta["ui"] == nil {
				return t
			}
			if p, ok := plain[t]; ok {
				return p
			}
			return nil // app-only: hidden
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ui := `{"extensions":{"io.modelcontextprotocol/ui":{}}}`
	r := s.HandleRaw(context.Background(), modernRaw("tools/list", "", ui), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"name":"app"`)) || !bytes.Contains(r.Body, []byte(`"_meta":{"ui":{"resourceUri":"ui://app","visibility":["app"]}}`)) {
		t.Errorf("ui client: %s", r.Body)
	}
	for i := 0; i < 3; i++ {
		r = s.HandleRaw(context.Background(), modernRaw("tools/list", "", `{}`), nil, nil)
		if bytes.Contains(r.Body, []byte(`"app"`)) || !bytes.Contains(r.Body, []byte(`"name":"hello"`)) {
			t.Errorf("plain client: %s", r.Body)
		}
	}
	if shows != 2 {
		t.Errorf("Show ran %d times for 3 plain lists of 2 tools, want 2 (one page built, then cached)", shows)
	}
	sess, _ := legacySession(t, s, `{}`)
	r = s.HandleRaw(context.Background(), legacyRaw("tools/list", ""), sess, nil)
	if bytes.Contains(r.Body, []byte(`"app"`)) {
		t.Errorf("plain 2025-11-25 client: %s", r.Body)
	}
	// Hidden from the list, still callable.
	r = s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"app","arguments":{}`, `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"text":"app"`)) {
		t.Errorf("hidden tool call: %s", r.Body)
	}
}

func TestExtensionObserveAuditAndLifecycle(t *testing.T) {
	var audit bytes.Buffer
	s := extServer(t, &Options{Audit: slog.New(slog.NewJSONHandler(&audit, nil))})
	type traceKey struct{}
	var mu sync.Mutex
	var events []string
	var started, stopped int
	err := s.Use(&Extension{ID: "x/otel",
		Observe: func(ctx context.Context, m *MessageInfo) (context.Context, func(Outcome)) {
			tp, _ := m.Meta("traceparent")
			hdr := ""
			if m.Header != nil {
				hdr = m.Header.Get("X-Test")
			}
			mu.Lock()
			if m.Method == "tools/call" && m.Revision != "2026-07-28" {
				t.Errorf("MessageInfo.Revision = %q", m.Revision)
			}
			events = append(events, "start "+m.Method+" "+string(tp)+" "+hdr)
			mu.Unlock()
			return context.WithValue(ctx, traceKey{}, "t-1"), func(o Outcome) {
				mu.Lock()
				events = append(events, "end "+m.Method+" "+o.ToolError+" "+itoa(o.Code))
				mu.Unlock()
			}
		},
		AuditAttrs: func(ctx context.Context) []slog.Attr {
			if v, _ := ctx.Value(traceKey{}).(string); v != "" {
				return []slog.Attr{slog.String("trace_id", v)}
			}
			return nil
		},
		Start:    func(context.Context, *Server) error { started++; return nil },
		Shutdown: func(context.Context) error { stopped++; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	s.AddTool(&Tool{Name: "ctx", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &ToolAnnotations{ReadOnlyHint: true},
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if ctx.Value(traceKey{}) != "t-1" {
				return nil, &ToolError{Code: "no_trace", Message: "the observer's value did not reach the handler"}
			}
			return &ToolResult{Content: []Content{Text("ok")}}, nil
		}})
	h := s.HTTPHandler(nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ctx","arguments":{},"_meta":{"traceparent":"00-abc-def-01",
		"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	hdr := modernHeaders("tools/call", "ctx")
	hdr.Set("X-Test", "hdr")
	resp := newHTTPClient(t, ts).post(context.Background(), hdr, []byte(body))
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(out, []byte(`"text":"ok"`)) {
		t.Errorf("call: %s", out)
	}
	// stdio-like path: a refused request and a failing tool call.
	s.HandleRaw(context.Background(), modernRaw("no/such", "", `{}`), nil, nil)
	s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"hello","arguments":{"who":1}`, `{}`), nil, nil)
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`start tools/call "00-abc-def-01" hdr`, `end tools/call  0`,
		`start no/such  `, `end no/such  -32601`,
		`start tools/call  `, `end tools/call invalid_arguments 0`,
	}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(audit.String(), `"trace_id":"t-1"`) {
		t.Errorf("audit records lack the extension's attribute: %s", audit.String())
	}
	if started != 1 || stopped != 1 {
		t.Errorf("Start ran %d times, Shutdown %d, want 1 each", started, stopped)
	}
}

func itoa(n int) string { return strings.TrimSpace(string(json.RawMessage(mustMarshal(n)))) }

// writeServer is extServer with a keyed write "write" (idempotency key "key").
func writeServer(t *testing.T) *Server {
	s := extServer(t, nil)
	s.AddTool(&Tool{Name: "write", IdempotencyKey: "key",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"},"n":{"type":"integer"}}}`),
		Handler: func(context.Context, *ToolRequest) (*ToolResult, error) {
			return &ToolResult{Content: []Content{Text("done")}}, nil
		}})
	return s
}

func TestExtensionStages(t *testing.T) {
	s := writeServer(t)
	var mu sync.Mutex
	var got []string
	err := s.Use(&Extension{ID: "x/stages", Stages: func(_ context.Context, st Stage) func(error) {
		mu.Lock()
		got = append(got, st.String())
		mu.Unlock()
		return func(err error) {
			mu.Lock()
			defer mu.Unlock()
			var te *ToolError
			if errors.As(err, &te) {
				got = append(got, "/"+st.String()+":"+te.Code)
				return
			}
			got = append(got, "/"+st.String())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(args string) string {
		got = nil
		s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"write","arguments":`+args, `{}`), nil, nil)
		return strings.Join(got, " ")
	}
	if g, want := run(`{"key":"k1","n":1}`), "validate /validate authorize /authorize claim /claim handler /handler receipt /receipt"; g != want {
		t.Errorf("keyed write: %s, want %s", g, want)
	}
	if g, want := run(`{"n":"x"}`), "validate /validate:invalid_arguments"; g != want {
		t.Errorf("invalid: %s, want %s", g, want)
	}
}

func TestNotifyFromAnExtensionMethod(t *testing.T) {
	s := extServer(t, nil)
	err := s.Use(&Extension{ID: "x/n", Methods: []Method{{Name: "x/ping", Handle: func(ctx context.Context, _ *MethodRequest) (json.RawMessage, error) {
		if err := Notify(ctx, "notifications/x/pong", map[string]int{"n": 1}); err != nil {
			return nil, err
		}
		return json.RawMessage(`{}`), nil
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var mu sync.Mutex
	out := SinkFunc(func(_ context.Context, msg []byte) error {
		mu.Lock()
		got = append(got, string(msg))
		mu.Unlock()
		return nil
	})
	sess, _ := legacySession(t, s, `{}`)
	r := s.HandleRaw(context.Background(), legacyRaw("x/ping", ""), sess, out)
	if !bytes.Contains(r.Body, []byte(`"result":{}`)) || len(got) != 1 || got[0] != `{"jsonrpc":"2.0","method":"notifications/x/pong","params":{"n":1}}` {
		t.Errorf("reply %s, notifications %q", r.Body, got)
	}
	if err := Notify(context.Background(), "x", nil); err != nil {
		t.Errorf("Notify outside a request: %v", err)
	}
}

func TestAdvertiseThatFailsIsSkipped(t *testing.T) {
	s := extServer(t, nil)
	for _, x := range []*Extension{
		{ID: "a/panic", Advertise: func(string, map[string]any) { panic("no") }},
		{ID: "a/chan", Advertise: func(_ string, caps map[string]any) { caps["bad"] = make(chan int) }},
		{ID: "a/good", Advertise: func(_ string, caps map[string]any) { AdvertiseExtension(caps, "a/good", nil) }},
	} {
		if err := s.Use(x); err != nil {
			t.Fatal(err)
		}
	}
	r := s.HandleRaw(context.Background(), modernRaw("server/discover", "", `{}`), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"extensions":{"a/good":{}}`)) || bytes.Contains(r.Body, []byte("bad")) {
		t.Errorf("discover: %s", r.Body)
	}
}

func TestExtensionMethodAsks(t *testing.T) {
	s := extServer(t, nil)
	err := s.Use(&Extension{ID: "x/ask", Methods: []Method{{Name: "x/ask", Handle: func(ctx context.Context, _ *MethodRequest) (json.RawMessage, error) {
		var res ElicitResult
		if err := Ask(ctx, AskElicitation("q", "Proceed?", json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`), &res)); err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"action": res.Action})
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	caps := `{"elicitation":{}}`
	r := s.HandleRaw(context.Background(), modernRaw("x/ask", "", caps), nil, nil)
	var ir struct {
		Result struct {
			ResultType   string
			RequestState string
		}
	}
	if err := json.Unmarshal(r.Body, &ir); err != nil || ir.Result.ResultType != "input_required" {
		t.Fatalf("first round: %s", r.Body)
	}
	r = s.HandleRaw(context.Background(), modernRaw("x/ask", `"inputResponses":{"q":{"action":"accept","content":{"ok":true}}},"requestState":"`+ir.Result.RequestState+`"`, caps), nil, nil)
	if !bytes.Contains(r.Body, []byte(`"action":"accept"`)) || !bytes.Contains(r.Body, []byte(`"resultType":"complete"`)) {
		t.Errorf("answered round: %s", r.Body)
	}
}

func TestOutcomeIdempotency(t *testing.T) {
	s := writeServer(t)
	var got []string
	var mu sync.Mutex
	err := s.Use(&Extension{ID: "x/o", Observe: func(ctx context.Context, _ *MessageInfo) (context.Context, func(Outcome)) {
		return ctx, func(o Outcome) {
			mu.Lock()
			got = append(got, o.Idempotency)
			mu.Unlock()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"key":"k","n":1}`, `{"key":"k","n":1}`, `{"key":"k","n":2}`, `{"n":3}`} {
		s.HandleRaw(context.Background(), modernRaw("tools/call", `"name":"write","arguments":`+args, `{}`), nil, nil)
	}
	if want := "fresh replayed conflict "; strings.Join(got, " ") != want {
		t.Errorf("idempotency outcomes %q, want %q", strings.Join(got, " "), want)
	}
}
