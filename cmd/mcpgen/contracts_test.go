package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const optionalHandlers = `package p

import "context"

// In is the input.
type In struct {
	Q     string ` + "`json:\"q\"`" + `
	Limit int    ` + "`json:\"limit,omitempty\"`" + `
}

// Echo echoes q.
//
//mcp:tool
func Echo(ctx context.Context, in In) (string, error) { return in.Q, nil }
`

// TestLint checks that -lint findings fail the run at the field and write
// nothing, and that the strict form passes the same lint.
func TestLint(t *testing.T) {
	dir := newModule(t, optionalHandlers)
	code, _, stderr := mcpgen(t, dir, "-lint=openai,anthropic")
	if code != exitError || !strings.Contains(stderr, `handlers.go:8:2: mcp:tool Echo: -lint=openai: property "limit" is optional`) {
		t.Fatalf("exit %d, want 1 with the finding at handlers.go:8:2; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp_gen.go")); err == nil {
		t.Error("mcp_gen.go written despite lint findings")
	}
	if code, _, stderr := mcpgen(t, dir, "-lint=openai", "-strict=openai"); code != exitOK {
		t.Errorf("-strict=openai -lint=openai: exit %d, want 0; stderr:\n%s", code, stderr)
	}
	for _, bad := range [][]string{{"-lint=claude"}, {"-strict=gemini"}} {
		if code, _, _ := mcpgen(t, dir, bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}

// TestCompatGitRevision commits a package, makes a breaking change and
// checks that -compat HEAD exits 1 naming it, that a compatible change
// exits 0, and that a saved -tools-json works as the base too.
func TestCompatGitRevision(t *testing.T) {
	dir := newModule(t, optionalHandlers)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "v1"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if code, _, stderr := mcpgen(t, dir, "-tools-json", "base.json"); code != exitOK {
		t.Fatalf("-tools-json: exit %d; stderr:\n%s", code, stderr)
	}
	breaking := strings.Replace(optionalHandlers, "`json:\"limit,omitempty\"`", "`json:\"limit\"`", 1)
	writeHandlers(t, dir, breaking)
	for _, base := range []string{"HEAD", "base.json"} {
		code, _, stderr := mcpgen(t, dir, "-compat", base)
		if code != exitError || !strings.Contains(stderr, `breaking: echo input #/properties/limit: field "limit" is now required`) {
			t.Errorf("-compat %s after making limit required: exit %d, want 1 naming the field; stderr:\n%s", base, code, stderr)
		}
	}
	additive := strings.Replace(optionalHandlers, "Q     string", "Extra bool `json:\"extra,omitempty\"`\n\tQ     string", 1)
	writeHandlers(t, dir, additive)
	code, stdout, stderr := mcpgen(t, dir, "-compat", "HEAD")
	if code != exitOK || !strings.Contains(stdout, `compatible: echo input #/properties/extra: field "extra" added`) {
		t.Errorf("-compat HEAD after adding an optional field: exit %d, want 0; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := mcpgen(t, dir, "-compat", "no-such-rev"); code != exitError || !strings.Contains(stderr, "-compat no-such-rev") {
		t.Errorf("-compat no-such-rev: exit %d, want 1; stderr:\n%s", code, stderr)
	}
	// A base starting with "-" never reaches git as an option: --output=FILE
	// would have git archive write FILE.
	leak := filepath.Join(t.TempDir(), "leak.tar")
	code, _, stderr = mcpgen(t, dir, "-compat", "--output="+leak)
	if code != exitError || !strings.Contains(stderr, "must not be empty or start with '-'") {
		t.Errorf("-compat --output=FILE: exit %d, want 1 refusing the revision; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(leak); err == nil {
		t.Errorf("-compat --output=FILE: git wrote %s", leak)
	}
}

// writeHandlers replaces handlers.go in dir.
func writeHandlers(t *testing.T, dir, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "handlers.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
