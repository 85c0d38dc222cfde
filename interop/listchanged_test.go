package interop

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKToolListChanged has the Go SDK client listen for tool-list changes
// (2025-11-25: notifications on the session, over HTTP on the standalone SSE stream;
// 2026-07-28: a subscriptions/listen stream the SDK opens when it connects), makes
// examples/everything register a tool at run time, and waits to hear of it.
func TestGoSDKToolListChanged(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		for _, rev := range revisions {
			t.Run(transport+"/"+rev, func(t *testing.T) {
				t.Parallel()
				changed := make(chan struct{}, 10)
				c := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
					ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
				})
				// The wire: LoggingTransport on stdio, the HTTP exchanges on HTTP (see httpLog).
				var tr mcp.Transport
				wire := new(syncBuffer)
				hl := &httpLog{base: http.DefaultTransport}
				if transport == "stdio" {
					tr = &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: serverCmd(t, "everything"), TerminateDuration: 10 * time.Second}, Writer: wire}
				} else {
					tr = &mcp.StreamableClientTransport{Endpoint: startHTTP(t, "everything"), MaxRetries: -1, HTTPClient: &http.Client{Transport: hl}}
					defer func() {
						if t.Failed() {
							t.Logf("HTTP exchanges:\n%s", hl.buf.String())
						}
					}()
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer func() {
					if err := cs.Close(); err != nil {
						t.Errorf("close session: %v", err)
					}
					msgs := parseGoSDKLog(t, wire.String())
					if transport == "http" {
						msgs = hl.messages()
					}
					checkWire(t, rev, msgs)
					if t.Failed() {
						t.Logf("wire:\n%s", dumpWire(msgs))
					}
				}()
				if got := cs.InitializeResult().ProtocolVersion; got != rev {
					t.Fatalf("negotiated %s, want %s", got, rev)
				}
				if hasTool(t, ctx, cs, "test_transient_tool") {
					t.Fatalf("test_transient_tool is listed before it was registered")
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_trigger_tool_change"}); err != nil {
					t.Fatalf("tools/call test_trigger_tool_change: %v", err)
				}
				select {
				case <-changed:
				case <-time.After(10 * time.Second):
					t.Fatalf("no notifications/tools/list_changed within 10s")
				}
				if !hasTool(t, ctx, cs, "test_transient_tool") {
					t.Errorf("test_transient_tool is not listed after the change")
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_transient_tool"})
				if err != nil || res.IsError {
					t.Errorf("tools/call test_transient_tool: %v %+v", err, res)
				}
			})
		}
	}
}

func hasTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string) bool {
	t.Helper()
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if tool.Name == name {
			return true
		}
	}
	return false
}
