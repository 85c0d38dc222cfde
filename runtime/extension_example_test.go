package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// An extension with a custom method and a tools/call interceptor: the method
// com.example/echo answers with its params' text; the interceptor refuses
// calls of tools whose _meta marks them "frozen" and counts the others.
func ExampleServer_Use() {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "demo", Version: "1.0.0"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	for _, name := range []string{"hello", "deploy"} {
		t := &mcpruntime.Tool{
			Name:        name,
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
			Annotations: &mcpruntime.ToolAnnotations{ReadOnlyHint: true},
			Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
				return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("hello")}}, nil
			},
		}
		if name == "deploy" {
			t.Meta = map[string]any{"com.example/frozen": true}
		}
		s.AddTool(t)
	}
	calls := 0
	err := s.Use(&mcpruntime.Extension{
		ID:       "com.example/demo",
		Settings: json.RawMessage(`{"version":1}`),
		Methods: []mcpruntime.Method{{
			Name: "com.example/echo",
			Handle: func(ctx context.Context, req *mcpruntime.MethodRequest) (json.RawMessage, error) {
				var p struct{ Text string }
				if err := json.Unmarshal(req.Params, &p); err != nil || p.Text == "" {
					return nil, &mcpruntime.RPCError{Code: mcpruntime.CodeInvalidParams, Message: "echo: missing text"}
				}
				_, declared := mcpruntime.ClientExtension(ctx, "com.example/demo")
				return json.Marshal(map[string]any{"text": p.Text, "clientDeclared": declared})
			},
		}},
		ToolCall: func(ctx context.Context, req *mcpruntime.ToolRequest, next mcpruntime.ToolHandler) (*mcpruntime.ToolResult, error) {
			if req.Tool.Meta["com.example/frozen"] == true {
				return nil, &mcpruntime.ToolError{Code: "frozen", Message: req.Name + " is frozen"}
			}
			calls++
			return next(ctx, req)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"extensions":{"com.example/demo":{}}}}`
	send := func(method, params string) {
		raw := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta + `}}`
		r := s.HandleRaw(context.Background(), []byte(raw), nil, nil)
		var out struct {
			Result struct {
				Text           string
				ClientDeclared bool
				IsError        bool
				Content        []struct{ Text string }
				Capabilities   struct{ Extensions map[string]json.RawMessage }
			}
			Error *struct{ Code int }
		}
		_ = json.Unmarshal(r.Body, &out)
		res := out.Result
		switch {
		case out.Error != nil:
			fmt.Println(method, "error", out.Error.Code)
		case method == "server/discover":
			fmt.Println(method, string(res.Capabilities.Extensions["com.example/demo"]))
		case method == "com.example/echo":
			fmt.Println(method, res.Text, res.ClientDeclared)
		default:
			fmt.Println(method, strings.TrimSpace(res.Content[0].Text), res.IsError)
		}
	}
	send("server/discover", "")
	send("com.example/echo", `"text":"hi",`)
	send("com.example/echo", "")
	send("tools/call", `"name":"hello","arguments":{},`)
	send("tools/call", `"name":"deploy","arguments":{},`)
	fmt.Println("calls intercepted:", calls)
	// Output:
	// server/discover {"version":1}
	// com.example/echo hi true
	// com.example/echo error -32602
	// tools/call hello false
	// tools/call deploy is frozen true
	// calls intercepted: 1
}
