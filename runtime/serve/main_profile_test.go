//go:build mcpgen_pprof

package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MCP_CPUPROFILE: a gzipped pprof profile when set, nothing when unset, and a
// message (serving goes on) when the file cannot be created.
func TestStartCPUProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	var stderr bytes.Buffer
	stop := startCPUProfile(path, &stderr)
	for i := 0; i < 1e6; i++ { // some work to sample
		_ = strings.Repeat("x", i%7)
	}
	stop()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile is not gzip (pprof): %d bytes, % x", len(b), b[:min(len(b), 4)])
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %q", stderr.String())
	}

	startCPUProfile("", &stderr)()
	if stderr.Len() != 0 {
		t.Errorf("unset: stderr %q", stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("unset: %d files in %s, want the one profile", len(entries), dir)
	}

	startCPUProfile(filepath.Join(dir, "missing", "cpu.pprof"), &stderr)()
	if !strings.Contains(stderr.String(), CPUProfileEnv) {
		t.Errorf("unwritable path: stderr %q, want it to name %s", stderr.String(), CPUProfileEnv)
	}
}
