package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStaleSignatureSaysGoGenerate: after a handler's signature changes
// without go generate, go build fails at a line of mcp_gen.go whose comment,
// just above, says to run go generate.
func TestStaleSignatureSaysGoGenerate(t *testing.T) {
	dir := newModule(t, scopedHandlers)
	if code, _, stderr := mcpgen(t, dir); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, stderr)
	}
	changed := strings.Replace(scopedHandlers, "func Create(ctx context.Context, in In) (string, error)",
		"func Create(ctx context.Context, in In, dryRun bool) (string, error)", 1)
	if err := os.WriteFile(filepath.Join(dir, "handlers.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("go build succeeded with a stale mcp_gen.go")
	}
	m := regexp.MustCompile(`mcp_gen\.go:(\d+):\d+: `).FindSubmatch(out)
	if m == nil {
		t.Fatalf("go build's first error is not in mcp_gen.go:\n%s", out)
	}
	line, _ := strconv.Atoi(string(m[1]))
	src, err := os.ReadFile(filepath.Join(dir, "mcp_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	found := false
	for i := line - 2; i >= 0 && i >= line-10; i-- { // the comment above the failing line's block
		if strings.HasPrefix(lines[i], "//") && strings.Contains(lines[i], "run go generate") {
			found = true
			break
		}
		if lines[i] == "" {
			break
		}
	}
	if !found {
		t.Errorf("no comment saying to run go generate above mcp_gen.go:%d:\n%s\nbuild output:\n%s", line, strings.Join(lines[max(0, line-6):line], "\n"), out)
	}
}
