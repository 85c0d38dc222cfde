// Command notes-ext-server is the generated notes server with a third-party
// extension registered on it (docs/extensions.md): the extension
// com.example/notes-stats counts the tools/call requests it intercepts,
// refuses searches for a blocked keyword, stamps each result it passes with
// the count, and answers the custom method com.example/notes/stats with the
// count and the client's settings for the extension. interop/ext_test.go
// drives it with the official TypeScript client over stdio and both HTTP eras.
package main

import (
	"context"
	"encoding/json"
	"os"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/examples/notes"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/serve"
)

// extensionID identifies the extension in capabilities.extensions.
const extensionID = "com.example/notes-stats"

func main() {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "dev"}, nil)
	notes.RegisterMCP(s)
	s.MustUse(statsExtension())
	os.Exit(serve.Main(s))
}

// statsExtension returns the extension.
func statsExtension() *mcpruntime.Extension {
	var calls atomic.Int64
	return &mcpruntime.Extension{
		ID:       extensionID,
		Settings: json.RawMessage(`{"counts":["tools/call"]}`),
		Methods: []mcpruntime.Method{{
			Name: "com.example/notes/stats",
			Handle: func(ctx context.Context, _ *mcpruntime.MethodRequest) (json.RawMessage, error) {
				settings, declared := mcpruntime.ClientExtension(ctx, extensionID)
				return json.Marshal(map[string]any{"calls": calls.Load(), "clientDeclared": declared, "clientSettings": settings})
			},
		}},
		ToolCall: func(ctx context.Context, req *mcpruntime.ToolRequest, next mcpruntime.ToolHandler) (*mcpruntime.ToolResult, error) {
			var in struct{ Keyword string }
			_ = json.Unmarshal(req.Arguments, &in)
			if in.Keyword == "forbidden" {
				return nil, &mcpruntime.ToolError{Code: "blocked_keyword", Message: "the stats extension blocks this keyword"}
			}
			n := calls.Add(1)
			res, err := next(ctx, req)
			if err != nil || res == nil {
				return res, err
			}
			out := *res
			out.Meta = map[string]any{"com.example/call": n}
			for k, v := range res.Meta {
				out.Meta[k] = v
			}
			return &out, nil
		},
	}
}
