// Package interop drives mcpgen's example servers, built from the main module and run
// as real subprocesses, with the official MCP clients: the Go SDK
// (github.com/modelcontextprotocol/go-sdk) in-process, and the TypeScript clients
// (@modelcontextprotocol/client 2.x, @modelcontextprotocol/sdk 1.x) through node and
// ts/client.mjs. It is a module of its own so these peers stay out of the main go.mod.
//
// run.sh installs Node and the npm packages and runs these tests; run directly,
// `go test ./...` calls `run.sh -env` itself. A missing install is a failure, not a skip.
package interop

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// env is what TestMain prepared for every test.
var env struct {
	repo     string            // the main module's root
	servers  map[string]string // example name -> built server binary
	buildErr map[string]error  // example name -> why it did not build
	node     string            // node >= 22
	tsDir    string            // ts/client.mjs beside a node_modules with the pinned clients
	tsOldDir string            // ts/client.mjs beside the node_modules of ts-old (older 1.x releases)
	setupErr error             // why the rest of the preparation failed: every test reports it
	nodeErr  error             // why node or the npm packages are missing: every TypeScript test reports it
}

// examples lists the servers under test: name -> package in the main module.
// notes is the example the acceptance criteria name; everything is the conformance
// example with rich content; testserver is the runtime's own test server, with the
// corner cases (legacy wrapping, pagination, panics, broken output).
var examples = map[string]string{
	"notes":      "./examples/notes/cmd/notes-server",
	"everything": "./examples/everything/cmd/everything-server",
	"testserver": "./runtime/internal/testserver",
	// notes with a third-party extension (ext_test.go); not in exampleNames.
	"notes-ext": "./examples/notes/cmd/notes-ext-server",
}

// exampleNames lists the keys of examples in the order subtests run.
var exampleNames = []string{"notes", "everything", "testserver"}

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "mcpgen-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env.setupErr = prepare(tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// requireSetup fails the test when TestMain could not prepare the environment.
func requireSetup(t *testing.T) {
	t.Helper()
	if env.setupErr != nil {
		t.Fatalf("interop setup failed: %v", env.setupErr)
	}
}

// requireNode fails the test when node or the TypeScript clients are missing.
func requireNode(t *testing.T) {
	t.Helper()
	requireSetup(t)
	if env.nodeErr != nil {
		t.Fatalf("node setup failed: %v", env.nodeErr)
	}
}

func prepare(tmp string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	env.repo = filepath.Dir(wd)
	if _, err := os.Stat(filepath.Join(env.repo, "go.mod")); err != nil {
		return fmt.Errorf("main module not found above %s: %v", wd, err)
	}
	env.servers = map[string]string{}
	env.buildErr = map[string]error{}
	// Build the servers concurrently (race builds are slow); node installs meanwhile.
	var wg sync.WaitGroup
	var mu sync.Mutex
	for name, pkg := range examples {
		// A prebuilt binary can stand in for an example, to compare with another server.
		if bin := os.Getenv("MCPGEN_INTEROP_BIN_" + strings.ToUpper(name)); bin != "" {
			mu.Lock()
			env.servers[name] = bin
			mu.Unlock()
			continue
		}
		wg.Go(func() {
			bin := filepath.Join(tmp, name+"-server")
			args := []string{"build", "-o", bin}
			if raceEnabled {
				// The servers run with the race detector too: real clients drive them concurrently.
				args = append(args, "-race")
			}
			cmd := exec.Command("go", append(args, pkg)...)
			cmd.Dir = env.repo
			out, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				env.buildErr[name] = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
			env.servers[name] = bin
		})
	}
	defer wg.Wait()
	env.nodeErr = prepareNode(tmp)
	return nil
}

// prepareNode finds node and the npm packages: from MCPGEN_INTEROP_NODE and
// MCPGEN_INTEROP_NODE_MODULES when run.sh set them, else by running `run.sh -env`.
func prepareNode(tmp string) error {
	node, modules := os.Getenv("MCPGEN_INTEROP_NODE"), os.Getenv("MCPGEN_INTEROP_NODE_MODULES")
	oldModules := os.Getenv("MCPGEN_INTEROP_OLD_NODE_MODULES")
	if node == "" || modules == "" || oldModules == "" {
		cmd := exec.Command("bash", filepath.Join(env.repo, "interop", "run.sh"), "-env")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("installing node and the TypeScript clients (run.sh -env): %v", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			k, v, _ := strings.Cut(sc.Text(), "=")
			switch k {
			case "MCPGEN_INTEROP_NODE":
				node = v
			case "MCPGEN_INTEROP_NODE_MODULES":
				modules = v
			case "MCPGEN_INTEROP_OLD_NODE_MODULES":
				oldModules = v
			}
		}
		if node == "" || modules == "" || oldModules == "" {
			return fmt.Errorf("run.sh -env printed no node or node_modules:\n%s", out)
		}
	}
	env.node = node
	// The script resolves its imports from the node_modules beside it.
	env.tsDir = filepath.Join(tmp, "ts")
	if err := os.MkdirAll(env.tsDir, 0o755); err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(env.repo, "interop", "ts", "client.mjs"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(env.tsDir, "client.mjs"), src, 0o644); err != nil {
		return err
	}
	if err := os.Symlink(modules, filepath.Join(env.tsDir, "node_modules")); err != nil {
		return err
	}
	env.tsOldDir = filepath.Join(tmp, "ts-old")
	if err := os.MkdirAll(env.tsOldDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(env.tsOldDir, "client.mjs"), src, 0o644); err != nil {
		return err
	}
	return os.Symlink(oldModules, filepath.Join(env.tsOldDir, "node_modules"))
}

// serverBin returns the built binary of example name, failing the test if it is missing.
func serverBin(t *testing.T, name string) string {
	t.Helper()
	requireSetup(t)
	bin, ok := env.servers[name]
	if !ok {
		t.Fatalf("the %s server did not build: %v", name, env.buildErr[name])
	}
	return bin
}
