package serve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestMainUnlinkedComponents: a server built without runtime/auth (this test
// binary does not link it) refuses its flags and environment variables at
// start, naming the generator option that links it, instead of serving
// without authentication. (The store's half, a redis:// store without
// redisstore, is examples/bench's TestServerWithoutOptionalComponents.)
func TestMainUnlinkedComponents(t *testing.T) {
	if registeredAuth() != nil {
		t.Fatal("this test binary must not link runtime/auth")
	}
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		stderr   []string
		wantBody bool
	}{
		{name: "no flags", code: 0, wantBody: true},
		{name: "-auth-issuer", args: []string{"-http", "127.0.0.1:0", "-auth-issuer", "https://as.example.com", "-auth-audience", "https://mcp.example.com/mcp"},
			code: 2, stderr: []string{"-auth-issuer: this server is built without OAuth", "github.com/mcpgen/mcpgen/runtime/auth", "mcpgen -with auth"}},
		{name: "-auth-introspection", args: []string{"-auth-introspection", "https://as.example.com/introspect"},
			code: 2, stderr: []string{"-auth-introspection: this server is built without OAuth"}},
		{name: "MCP_AUTH_AUDIENCE", env: map[string]string{"MCP_AUTH_AUDIENCE": "https://mcp.example.com/mcp"},
			code: 2, stderr: []string{"MCP_AUTH_AUDIENCE: this server is built without OAuth", "mcpgen -with auth"}},
		{name: "empty MCP_AUTH_ISSUER", env: map[string]string{"MCP_AUTH_ISSUER": ""}, code: 0, wantBody: true},
		{name: "-auth-allow-http", args: []string{"-auth-allow-http"},
			code: 2, stderr: []string{"-auth-allow-http: this server is built without OAuth"}},
		{name: "MCP_AUTH_JWT_TYP", env: map[string]string{"MCP_AUTH_JWT_TYP": "JWT"},
			code: 2, stderr: []string{"MCP_AUTH_JWT_TYP: this server is built without OAuth"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"MCP_AUTH_ISSUER", "MCP_AUTH_AUDIENCE", "MCP_AUTH_INTROSPECTION_URL", "MCP_AUTH_JWT_TYP", "MCP_AUTH_ALLOW_HTTP"} {
				t.Setenv(k, tc.env[k])
			}
			s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "nolink", Version: "1"}, &mcpruntime.Options{Logger: discardLogger()})
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), s, tc.args, strings.NewReader(in), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr.String())
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q lacks %q", stderr.String(), want)
				}
			}
			if got := strings.Contains(stdout.String(), `"tools":`); got != tc.wantBody {
				t.Errorf("served tools/list: %v, want %v (stdout %q)", got, tc.wantBody, stdout.String())
			}
		})
	}
}
