//go:build mcpgen_pprof

package serve

// cpuprofile.go: MCP_CPUPROFILE's profiler, linked only with -tags
// mcpgen_pprof (scripts/profile-cell.sh builds the bench server so).

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

func init() { cpuProfiler = pprofCPUProfile }

// pprofCPUProfile starts a CPU profile into path and returns what stops it; a
// failure is reported on stderr and serving goes on.
func pprofCPUProfile(path string, stderr io.Writer) (stop func()) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", CPUProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
