package docs_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestAuthTryItLocally runs docs/auth.md's "Try it locally" commands (the
// ```sh tryit block) in the repository root, with the two ports it names
// replaced by free ones and GOBIN a temporary directory on PATH: the test
// issuer's token reaches the tool, the scope it lacks is a 403, a bad token
// a 401.
func TestAuthTryItLocally(t *testing.T) {
	var script string
	for _, b := range blocks(t, "auth.md") {
		if b.lang == "sh" && b.has("tryit") {
			script += b.body
		}
	}
	if script == "" {
		t.Fatal("auth.md has no ```sh tryit block")
	}
	script = strings.NewReplacer("9400", freePort(t), "8080", freePort(t)).Replace(script)
	gobin := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A failing command leaves the servers it started in the background holding
	// the output: stop waiting for it soon after bash itself has exited.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		err = errTimeout
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the servers it started in the background
	if err != nil {
		t.Fatalf("the tryit commands: %v\n%s", err, out.String())
	}
	for _, want := range []string{`"structuredContent"`, "\n200\n", `"code":-32003`, "\n403\n", `"error":"invalid_token"`, "\n401\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}

var errTimeout = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string { return "still running after 5 minutes" }
