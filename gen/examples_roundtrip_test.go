package gen_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
)

// TestExamplesRoundTrip runs the round-trip property checks of the golden
// build (outputs marshaled from random values validate; inputs generated
// from the schema decode strictly; unknown properties are refused by both)
// on every tool of the example packages. The example directories are left
// untouched: the freshly generated mcp_gen.go and the round-trip test are
// laid over them with go test -overlay.
func TestExamplesRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples; skipped in -short mode")
	}
	root := moduleRoot(t)
	res, err := gen.Generate(context.Background(), gen.Config{Dir: root, Patterns: []string{"./examples/..."}})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("generate examples: %v %v", err, res.Diagnostics)
	}
	ws := t.TempDir()
	writeHelper(t, ws, root, "roundtrip", []byte(roundtripSource(t, "roundtrip.go")))
	writeFile(t, filepath.Join(ws, "go.work"), []byte("go 1.26.8\n\nuse ./roundtrip\nuse "+root+"\n"))
	replace := map[string]string{}
	overlay := func(path string, data []byte) {
		tmp := filepath.Join(ws, "overlay", filepath.Base(filepath.Dir(path))+"_"+filepath.Base(path))
		writeFile(t, tmp, data)
		replace[path] = tmp
	}
	var pkgs []string
	tools := 0
	for _, f := range res.Files {
		overlay(f.Path, f.Content)
	}
	for _, p := range res.Model.Packages {
		src, err := roundtripTest(p)
		if err != nil {
			t.Fatalf("round-trip test for %s: %v", p.Path, err)
		}
		overlay(filepath.Join(p.Dir, "mcp_roundtrip_test.go"), src)
		overlay(filepath.Join(p.Dir, "mcp_roundtrip_run_test.go"), []byte("package "+p.Name+
			"\n\nimport \"testing\"\n\nfunc TestMCPRoundTrip(t *testing.T) { MCPRoundTrip(t) }\n"))
		pkgs = append(pkgs, p.Path)
		tools += len(p.Tools)
	}
	out, err := overlayTest(t, root, ws, replace, pkgs)
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	if n := strings.Count(out, "--- PASS: TestMCPRoundTrip"); n != len(pkgs) {
		t.Fatalf("%d round trips passed, want %d:\n%s", n, len(pkgs), out)
	}
	t.Logf("%d tools in %d example packages round-tripped:\n%s", tools, len(pkgs), out)

	// The same run catches a schema that lies: reopen the first input
	// schema of examples/notes to unknown properties.
	for _, f := range res.Files {
		if filepath.Base(filepath.Dir(f.Path)) == "notes" && strings.HasSuffix(f.Path, gen.DefaultOutput) {
			bad := strings.Replace(string(f.Content), `"additionalProperties": false`, `"additionalProperties": true`, 1)
			overlay(f.Path, []byte(bad))
		}
	}
	out, err = overlayTest(t, root, ws, replace, []string{"github.com/mcpgen/mcpgen/examples/notes"})
	if err == nil || !strings.Contains(out, "accepts the unknown property") {
		t.Fatalf("an input schema open to unknown properties was not caught: err %v\n%s", err, out)
	}
}

// overlayTest runs TestMCPRoundTrip of pkgs with the files in replace laid
// over the module, returning the output.
func overlayTest(t *testing.T, root, ws string, replace map[string]string, pkgs []string) (string, error) {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "overlay.json"), data)
	args := append([]string{"test", "-count=1", "-overlay", filepath.Join(ws, "overlay.json"), "-run", "^TestMCPRoundTrip$", "-v"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(ws, "go.work"), "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
