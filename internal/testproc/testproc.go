// Package testproc starts the real processes that the multi-process tests
// run: a Redis (CI's, or a redis-server of the test's own) and a server
// binary serving HTTP on a free loopback port, killed at the test's end
// (Start) or told to stop with SIGTERM and held to exit status 0 (Serve).
package testproc

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Redis returns a Redis URL: MCPGEN_TEST_REDIS when set (it must answer),
// else a redis-server of the test's own on a free loopback port, stopped at
// the test's end. The test is skipped only when neither exists; CI sets
// MCPGEN_TEST_REDIS and fails on a skip.
func Redis(t testing.TB) string {
	t.Helper()
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		if err := ping(u); err != nil {
			t.Fatalf("MCPGEN_TEST_REDIS=%s is set but Redis does not answer: %v", u, err)
		}
		return u
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("neither MCPGEN_TEST_REDIS nor redis-server (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	u := "redis://127.0.0.1:" + port + "/0"
	for i := 0; ; i++ {
		err := ping(u)
		if err == nil {
			return u
		}
		if i == 100 {
			t.Fatalf("redis-server on port %s did not answer: %v", port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ping sends PING to the Redis at rawURL and wants +PONG (or the NOAUTH
// refusal of a server that wants a password the URL carries: the store
// authenticates, this check only asks whether something answers).
func ping(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") && !strings.HasPrefix(line, "-NOAUTH") {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// Build builds the main package pkg (a path relative to the test's package,
// e.g. "./cmd/everything-server") into the test's temporary directory.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// A Server is one server process serving HTTP.
type Server struct {
	Cmd  *exec.Cmd
	URL  string        // the URL it logged (url=...)
	Done chan struct{} // closed when the process has ended
}

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

// Start runs bin with args and "-http 127.0.0.1:0" (the kernel picks the
// port), the environment plus env, and waits for the URL it logs. The
// process is killed at the test's end.
func Start(t testing.TB, bin string, args []string, env ...string) *Server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{Cmd: cmd, Done: make(chan struct{})}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
			s.URL = strings.Trim(m[1], `"`)
			break
		}
	}
	go func() {
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		close(s.Done)
	}()
	if s.URL == "" {
		_ = cmd.Process.Kill()
		<-s.Done
		t.Fatalf("%s printed no url", filepath.Base(bin))
	}
	t.Cleanup(s.Kill)
	return s
}

// Kill ends the process at once (SIGKILL: no drain, no goodbye) and waits
// for it; killing an ended process does nothing.
func (s *Server) Kill() {
	_ = s.Cmd.Process.Kill()
	<-s.Done
}

// FreeAddr returns a loopback address whose port was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Serve starts cmd, a server told to listen on addr (from FreeAddr), and
// waits until addr accepts connections; it fails the test if cmd exits first
// or 15 s pass. When the test ends the server gets SIGTERM and must exit 0
// within 15 s (a graceful stop is part of what the test checks). When
// cmd.Stderr is unset, Serve keeps the server's stderr in a file and shows it
// in those failures.
func Serve(t testing.TB, cmd *exec.Cmd, addr string) {
	t.Helper()
	name := filepath.Base(cmd.Path)
	stderr := func() string { return "" }
	if cmd.Stderr == nil {
		f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close() // the process has its own descriptor
		cmd.Stderr = f
		stderr = func() string {
			b, _ := os.ReadFile(f.Name())
			return "\nstderr:\n" + string(b)
		}
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	gone := false // it exited before listening: that is the failure
	t.Cleanup(func() {
		if gone {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("%s -http: after SIGTERM: %v (want exit status 0)%s", name, err, stderr())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("%s -http: still running 15s after SIGTERM%s", name, stderr())
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			gone = true
			t.Fatalf("%s -http %s exited before listening: %v%s", name, addr, err, stderr())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s -http %s: not listening after 15s: %v%s", name, addr, err, stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
