//go:build !mcpgen_pprof

package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without -tags mcpgen_pprof the profiler is not linked: MCP_CPUPROFILE gets
// a message naming the tag, and no file; unset, nothing at all.
func TestCPUProfileNotLinked(t *testing.T) {
	if cpuProfiler != nil {
		t.Fatal("the profiler is linked without the mcpgen_pprof tag")
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	startCPUProfile(filepath.Join(dir, "cpu.pprof"), &stderr)()
	if !strings.Contains(stderr.String(), "mcpgen_pprof") || !strings.Contains(stderr.String(), CPUProfileEnv) {
		t.Errorf("stderr %q, want it to name %s and the build tag", stderr.String(), CPUProfileEnv)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files written without the profiler", len(entries))
	}
	stderr.Reset()
	startCPUProfile("", &stderr)()
	if stderr.Len() != 0 {
		t.Errorf("unset: stderr %q", stderr.String())
	}
}
