package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The CPU that authorization adds to a call (docs/performance.md): the same
// 2026-07-28 tools/call served in process (no network), without authentication
// and with a bearer JWT verified by a ResourceServer whose key set and verified
// tokens are cached, plus the scope check of incident:create:{severity}.
// Compare ns/op of Call/none and Call/jwt; Verify/uncached is the one-time RS256
// verification of a new token.
func BenchmarkCall(b *testing.B) {
	is := newTestIssuer(&testing.T{})
	defer is.ts.Close()
	tool := func(scopes []string) *mcpruntime.Tool {
		return &mcpruntime.Tool{Name: "create_incident", Description: "Opens an incident.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"severity":{"type":"string","enum":["p1","p2"]},"title":{"type":"string"}},"required":["severity","title"],"additionalProperties":false}`),
			Scopes:      scopes,
			Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
				return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("opened")}}, nil
			}}
	}
	quiet := &mcpruntime.Options{Logger: slogTo(discard{})}
	plain := mcpruntime.NewServer(mcpruntime.Implementation{Name: "b", Version: "1"}, quiet)
	plain.AddTool(tool(nil))
	secured := mcpruntime.NewServer(mcpruntime.Implementation{Name: "b", Version: "1"}, quiet)
	secured.AddTool(tool([]string{"incident:create:{severity}"}))
	aud := "http://127.0.0.1/mcp"
	rs, err := New(secured, Config{Issuer: is.ts.URL, Audience: aud, Logger: slogTo(discard{})})
	if err != nil {
		b.Fatal(err)
	}
	token := is.valid(aud, "incident:create:p1")
	body, hdr := modernCall("p1")
	run := func(b *testing.B, h http.Handler, auth bool) {
		h2 := hdr.Clone()
		if auth {
			h2.Set("Authorization", "Bearer "+token)
		}
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header = h2
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 || !strings.Contains(w.Body.String(), "opened") {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
	}
	b.Run("none", func(b *testing.B) { run(b, plain.HTTPHandler(nil), false) })
	b.Run("jwt", func(b *testing.B) { run(b, rs.Handler("/mcp", secured.HTTPHandler(nil)), true) })
	b.Run("verify-uncached", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			rs.verified = verifiedCache{}
			if _, err := rs.Verify(ctx, token); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
