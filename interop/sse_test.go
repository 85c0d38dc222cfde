package interop

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The current clients over the 2024-11-05 HTTP+SSE transport (-sse), speaking
// 2025-11-25 on it: the official Go SDK v1.8.0 (SSEClientTransport) and
// @modelcontextprotocol/sdk 1.32.2 (SSEClientTransport), with the full
// expectations of the other transports (progress, cancellation, logs, questions
// to the client, primitives and list changes).

// sseURL starts example with -http and -sse and returns its /sse URL.
func sseURL(t *testing.T, example string) string {
	return strings.TrimSuffix(startHTTP(t, example, "-sse"), "/mcp") + "/sse"
}

func TestGoSDKSSE(t *testing.T) {
	for _, example := range exampleNames {
		t.Run(example+"/2025-11-25", func(t *testing.T) {
			t.Parallel()
			rev := "2025-11-25"
			// The wire comes from hl, not mcp.LoggingTransport: that logs a write only
			// once it returned, and the POST of a call cancelled on its first progress
			// can return context.Canceled after the server took it.
			hl := &httpLog{base: http.DefaultTransport}
			tr := &mcp.SSEClientTransport{Endpoint: sseURL(t, example), HTTPClient: &http.Client{Transport: hl}}
			cs := goSDKConnectSSE(t, tr, rev)
			conv := goSDKConverse(t, cs, example, rev)
			var seen *primitivesSeen
			if p := primitiveExpectations[example]; p != nil {
				seen = goSDKPrimitives(t, cs, p)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close session: %v", err)
			}
			conv.Wire = hl.messages()
			checkGoSDKWire(t, rev, conv.Wire)
			checkConversation(t, example, rev, conv)
			if p := primitiveExpectations[example]; p != nil {
				checkPrimitives(t, p, seen)
			}
			if t.Failed() {
				t.Logf("wire:\n%s", dumpWire(conv.Wire))
			}
		})
	}
}

func TestTypeScriptSSE(t *testing.T) {
	for _, example := range exampleNames {
		for _, tc := range tsClients {
			if tc.sdk != "sdk" {
				continue // @modelcontextprotocol/client 2.x has no HTTP+SSE client
			}
			t.Run(example+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				runTS(t, example, tc, map[string]any{"transport": "sse", "url": sseURL(t, example)})
			})
		}
	}
}

// goSDKConnectSSE is goSDKConnect for the SSE transport, whose event stream lives
// as long as the context given to Connect: that context ends with the test.
func goSDKConnectSSE(t *testing.T, tr mcp.Transport, rev string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: handleProgress,
		ElicitationHandler:          elicit,
		CreateMessageHandler:        sample,
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect asking for %s: %v", rev, err)
	}
	return cs
}
