package runtime

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Shared by the tests, set once by TestMain before any test runs.
var (
	testSpec      *specSchemas // the spec's schemas
	testServerBin string       // the built runtime/internal/testserver
	notesBin      string       // the built examples/notes/cmd/notes-server
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests loads the spec schemas, builds the test server, runs the tests and checks
// for leaked goroutines.
func runTests(m *testing.M) int {
	spec, err := loadSpecSchemas()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load spec schemas:", err)
		return 1
	}
	testSpec = spec
	if fuzzing() {
		return m.Run() // fuzz targets use no binaries; each fuzz worker runs TestMain
	}
	dir, err := os.MkdirTemp("", "mcpgen-runtime-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testServerBin = filepath.Join(dir, "testserver")
	if err := goBuild(testServerBin, "./internal/testserver"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	notesBin = filepath.Join(dir, "notes-server")
	if err := goBuild(notesBin, "../examples/notes/cmd/notes-server"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// fuzzing reports whether this process runs a fuzz target (-test.fuzz) or is
// one of its workers, where building the test binaries would only slow every
// worker's start.
func fuzzing() bool {
	flag.Parse()
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// goBuild builds a package into out with the go command on PATH.
func goBuild(out, pkg string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// newTestServer returns a server with the test server's tools (see internal/testserver)
// registered in-process; tools is called to add more.
func newTestServer(t *testing.T, opts *Options, tools ...*Tool) *Server {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	s := NewServer(Implementation{Name: "unit", Version: "0.1"}, opts)
	for _, tool := range tools {
		s.AddTool(tool)
	}
	return s
}

// serveInMemory serves s over in-memory pipes and returns a client for it. Cleanup
// closes the client's input, waits for ServeStdio to return nil, and validates the
// server's remaining output.
func serveInMemory(t *testing.T, s *Server) *testClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		done <- err
	}()
	c := newTestClient(t, inW, outR)
	t.Cleanup(func() {
		inW.Close()
		c.drain()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Error("ServeStdio did not return after EOF")
		}
	})
	return c
}
