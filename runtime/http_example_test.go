package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Mount the Streamable HTTP transport in your own mux; here a 2026-07-28
// client lists the tools.
func ExampleServer_HTTPHandler() {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "demo", Version: "1.0.0"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.AddTool(&mcpruntime.Tool{
		Name:        "hello",
		Description: "Hello greets.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("hello")}}, nil
		},
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(nil))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	fmt.Println(resp.StatusCode, out.Result.Tools[0].Name)
	// Output: 200 hello
}
