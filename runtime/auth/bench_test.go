package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The CPU that authorization adds to a call (docs/performance.md): the same
// 2026-07-28 tools/call served in process (no network), without authentication
// and with a bearer JWT verified by a ResourceServer whose key set and verified
// tokens are cached, plus the scope check of incident:create:{severity}.
// Compare cpu-ns/op (process CPU per call; run with -cpu 1) of Call/none and
// Call/jwt; Call/verify-uncached is the one-time RS256 verification of a new token.
func BenchmarkCall(b *testing.B) {
	is := newTestIssuer(&testing.T{})
	defer is.Close()
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
	rs, err := New(secured, Config{Issuer: is.URL(), Audience: aud, Logger: slogTo(discard{})})
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
		cpu0, ok := cpuTime()
		defer func() {
			// CPU per call, not wall time: on a shared machine the wall clock
			// measures the neighbours.
			if cpu1, ok1 := cpuTime(); ok && ok1 && b.N > 0 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
		}()
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
	// Both as Main serves them: one ServeMux, the endpoint mounted at /mcp (with
	// authentication, by HTTPOptions.Mount).
	b.Run("none", func(b *testing.B) {
		mux := http.NewServeMux()
		mux.Handle("/mcp", plain.HTTPHandler(nil))
		run(b, mux, false)
	})
	b.Run("jwt", func(b *testing.B) {
		mux := http.NewServeMux()
		rs.Mount(mux, "/mcp", secured.HTTPHandler(nil))
		run(b, mux, true)
	})
	// paired: blocks of calls alternate between the two, so the machine's load
	// drifts over both alike; reports each one's CPU per call and the share added.
	b.Run("paired", func(b *testing.B) {
		plainMux, authMux := http.NewServeMux(), http.NewServeMux()
		plainMux.Handle("/mcp", plain.HTTPHandler(nil))
		rs.Mount(authMux, "/mcp", secured.HTTPHandler(nil))
		authHdr := hdr.Clone()
		authHdr.Set("Authorization", "Bearer "+token)
		one := func(h http.Handler, hd http.Header) {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
			req.Header = hd
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("%d %s", w.Code, w.Body)
			}
		}
		const block = 100
		var cpuPlain, cpuAuth time.Duration
		n := 0
		for b.Loop() {
			t0, _ := cpuTime()
			for range block {
				one(plainMux, hdr)
			}
			t1, _ := cpuTime()
			for range block {
				one(authMux, authHdr)
			}
			t2, _ := cpuTime()
			cpuPlain += t1 - t0
			cpuAuth += t2 - t1
			n += block
		}
		if n > 0 && cpuPlain > 0 {
			b.ReportMetric(float64(cpuPlain)/float64(n), "none-cpu-ns/call")
			b.ReportMetric(float64(cpuAuth)/float64(n), "jwt-cpu-ns/call")
			b.ReportMetric(100*float64(cpuAuth-cpuPlain)/float64(cpuPlain), "%added")
		}
	})
	b.Run("verify-uncached", func(b *testing.B) {
		ctx := context.Background()
		cpu0, ok := cpuTime()
		defer func() {
			if cpu1, ok1 := cpuTime(); ok && ok1 && b.N > 0 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
		}()
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
