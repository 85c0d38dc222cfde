package interop

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTypeScriptExtension drives a generated server with a third-party
// extension registered on it (examples/notes/cmd/notes-ext-server: a custom
// method and a tools/call interceptor, docs/extensions.md) with the official
// TypeScript client 2.x over stdio and both HTTP eras: the extension is
// advertised where the era carries it, the interceptor stamps the results it
// passes and refuses a blocked keyword, and the custom method answers with
// the count and the client's settings for the extension.
func TestTypeScriptExtension(t *testing.T) {
	for _, tc := range []struct {
		name, transport, mode, rev string
	}{
		{"stdio/2025-11-25", "stdio", "legacy", "2025-11-25"},
		{"stdio/2026-07-28", "stdio", "2026-07-28", "2026-07-28"},
		{"http/2025-11-25", "http", "legacy", "2025-11-25"},
		{"http/2026-07-28", "http", "2026-07-28", "2026-07-28"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requireNode(t)
			plan := map[string]any{"sdk": "client", "mode": tc.mode, "transport": tc.transport, "timeoutMs": 60000,
				"clientExtensions": map[string]any{"com.example/notes-stats": map[string]any{"want": "counts"}},
				"calls": []map[string]any{
					{"name": "search_notes", "arguments": map[string]any{"keyword": "MCP", "limit": 1}},
					{"name": "search_notes", "arguments": map[string]any{"keyword": "forbidden"}},
					{"name": "search_notes", "arguments": map[string]any{"keyword": 42}},
					{"name": "search_notes", "arguments": map[string]any{"keyword": "chapter"}},
				},
				"custom": []map[string]any{{"method": "com.example/notes/stats"}},
			}
			if tc.transport == "stdio" {
				plan["command"] = serverBin(t, "notes-ext")
			} else {
				plan["url"] = startHTTP(t, "notes-ext")
			}
			out := runTSPlan(t, plan)
			if out.ProtocolVersion != tc.rev {
				t.Errorf("negotiated %q, want %q", out.ProtocolVersion, tc.rev)
			}
			var caps struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			}
			_ = json.Unmarshal(out.Capabilities, &caps)
			if got := string(caps.Extensions["com.example/notes-stats"]); got != `{"counts":["tools/call"]}` {
				t.Errorf("advertised settings %q (capabilities %s)", got, out.Capabilities)
			}
			if len(out.Calls) != 4 {
				t.Fatalf("calls: %+v", out.Calls)
			}
			// Passed through: stamped with the count (1 and 2: the blocked and the invalid call do not count).
			for i, want := range map[int]string{0: `"com.example/call":1`, 3: `"com.example/call":2`} {
				if r := string(out.Calls[i].Result); !strings.Contains(r, want) || strings.Contains(r, `"isError":true`) {
					t.Errorf("call %d: %s, want a result with %s", i, r, want)
				}
			}
			if r := string(out.Calls[1].Result); !strings.Contains(r, `"isError":true`) || !strings.Contains(r, "blocked_keyword") {
				t.Errorf("blocked call: %s %+v", r, out.Calls[1].Error)
			}
			if r := string(out.Calls[2].Result); !strings.Contains(r, `"isError":true`) || strings.Contains(r, "com.example/call") {
				t.Errorf("invalid arguments reached the interceptor: %s", r)
			}
			if len(out.Custom) != 1 || out.Custom[0].Error != nil {
				t.Fatalf("custom method: %+v", out.Custom)
			}
			var stats struct {
				Calls          int             `json:"calls"`
				ClientDeclared bool            `json:"clientDeclared"`
				ClientSettings json.RawMessage `json:"clientSettings"`
			}
			if err := json.Unmarshal(out.Custom[0].Result, &stats); err != nil {
				t.Fatalf("custom result %s: %v", out.Custom[0].Result, err)
			}
			if stats.Calls != 2 || !stats.ClientDeclared || string(stats.ClientSettings) != `{"want":"counts"}` {
				t.Errorf("stats %s, want 2 calls and the client's settings", out.Custom[0].Result)
			}
		})
	}
}

// runTSPlan runs client.mjs with plan and returns what it printed.
func runTSPlan(t *testing.T, plan map[string]any) tsOutput {
	t.Helper()
	var out tsOutput
	stderr, runErr := runClientMJS(t, env.tsDir, plan, &out)
	if runErr != nil || !out.OK {
		t.Fatalf("client failed (%s): %s\nstderr:\n%s\nwire:\n%s", exitError(runErr), out.Error, stderr, dumpWire(out.Trace))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("wire:\n%s", dumpWire(out.Trace))
		}
	})
	return out
}
