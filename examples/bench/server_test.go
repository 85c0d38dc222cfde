package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerWithoutOptionalComponents builds the generated bench server (no
// scope, no -with: neither runtime/auth nor redisstore linked) and checks that
// it links neither package, serves, and stops at start with an error naming
// the fix when given a flag or variable that needs one of them.
func TestServerWithoutOptionalComponents(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./cmd/bench-server").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range []string{"github.com/mcpgen/mcpgen/runtime/auth", "github.com/go-jose/go-jose/v4",
		"github.com/mcpgen/mcpgen/runtime/store/redisstore", "github.com/redis/go-redis/v9",
		"github.com/mcpgen/mcpgen/runtime/otel", "go.opentelemetry.io/otel", "go.opentelemetry.io/otel/sdk/trace"} {
		if strings.Contains("\n"+string(out), "\n"+pkg+"\n") {
			t.Errorf("bench-server links %s", pkg)
		}
	}
	bin := filepath.Join(t.TempDir(), "bench-server")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/bench-server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	listLine := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}` + "\n"
	cases := []struct {
		name   string
		args   []string
		env    []string
		code   int
		stderr []string
	}{
		{name: "plain", code: 0},
		{name: "-auth-issuer", args: []string{"-http", "127.0.0.1:0", "-auth-issuer", "https://as.example.com", "-auth-audience", "https://mcp.example.com/mcp"},
			code: 2, stderr: []string{"-auth-issuer: this server is built without OAuth", "mcpgen -with auth"}},
		{name: "MCP_AUTH_ISSUER", env: []string{"MCP_AUTH_ISSUER=https://as.example.com"},
			code: 2, stderr: []string{"MCP_AUTH_ISSUER: this server is built without OAuth"}},
		{name: "-store redis", args: []string{"-store", "redis://127.0.0.1:1/0"},
			code: 1, stderr: []string{`unknown store scheme "redis"`, "runtime/store/redisstore", "mcpgen -with redis"}},
		{name: "MCP_STORE redis", env: []string{"MCP_STORE=redis://127.0.0.1:1/0"},
			code: 1, stderr: []string{"mcpgen -with redis"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(cleanEnv(), tc.env...)
			cmd.Stdin = strings.NewReader(listLine)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr.String())
			}
			for _, want := range tc.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr %q lacks %q", stderr.String(), want)
				}
			}
			if served := strings.Contains(stdout.String(), `"name":"add"`); served != (tc.code == 0) {
				t.Errorf("served tools/list: %v (stdout %q)", served, stdout.String())
			}
		})
	}
}

// cleanEnv is the environment without the variables the server reads.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCP_") {
			env = append(env, kv)
		}
	}
	return env
}
