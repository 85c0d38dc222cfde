package interop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testproc"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = testproc.Buffer

// serverCmd returns a command running example name with args; its stderr is kept and,
// when the test ends, checked for race reports and logged if the test failed.
func serverCmd(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(serverBin(t, name), args...)
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1")
	t.Cleanup(func() { checkStderr(t, name, stderr.String()) })
	return cmd
}

func checkStderr(t *testing.T, name, stderr string) {
	t.Helper()
	if strings.Contains(stderr, "WARNING: DATA RACE") || strings.Contains(stderr, "panic: ") {
		t.Errorf("%s server stderr reports a race or a crash:\n%s", name, stderr)
	} else if t.Failed() {
		t.Logf("%s server stderr:\n%s", name, stderr)
	}
}

// startHTTP starts example name serving Streamable HTTP on a free loopback port and
// returns its endpoint URL. When the test ends the server gets SIGTERM and must exit 0.
func startHTTP(t *testing.T, name string, extra ...string) string {
	t.Helper()
	addr := testproc.FreeAddr(t)
	testproc.Serve(t, serverCmd(t, name, append([]string{"-http", addr}, extra...)...), addr)
	return "http://" + addr + "/mcp"
}

// exitError describes how a finished command ended, for messages.
func exitError(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// httpLog is an http.RoundTripper that records each exchange: the MCP headers and
// the bodies of requests and of error responses as text for failure messages, and
// the JSON-RPC messages of requests and responses (JSON bodies and SSE streams, as the
// client reads them) as wire messages. The Go SDK's HTTP tests record the wire here,
// not with mcp.LoggingTransport: wrapping the connection hides the negotiated session
// from the SDK's HTTP layer, which then sends no MCP-Protocol-Version header and opens
// no standalone SSE stream, unlike a real client.
type httpLog struct {
	base http.RoundTripper
	buf  syncBuffer

	mu   sync.Mutex
	wire []wireMsg
}

func (l *httpLog) record(dir string, msg []byte) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || !json.Valid(msg) { // e.g. the HTTP+SSE endpoint event's URL
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.wire = append(l.wire, wireMsg{dir, json.RawMessage(bytes.Clone(msg))})
}

// messages returns the JSON-RPC messages recorded so far.
func (l *httpLog) messages() []wireMsg {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.wire)
}

func (l *httpLog) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", req.Method, req.URL.Path)
	for k, v := range req.Header {
		if strings.HasPrefix(strings.ToLower(k), "mcp-") || k == "Accept" || k == "Content-Type" {
			fmt.Fprintf(&b, " %s=%q", k, strings.Join(v, ","))
		}
	}
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n  > %s", body)
	}
	// A message is on the wire once its request goes out, whatever becomes of the
	// exchange: a call the client cancels while its POST is in flight (the SSE
	// transport's POST, cancelled on the call's first progress) reached the server.
	l.record("send", body)
	resp, err := l.base.RoundTrip(req)
	if err != nil {
		fmt.Fprintf(&b, "\n  < error: %v\n", err)
		l.buf.Write([]byte(b.String()))
		return nil, err
	}
	fmt.Fprintf(&b, "\n  < %s", resp.Status)
	for k, v := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "mcp-") || k == "Content-Type" {
			fmt.Fprintf(&b, " %s=%q", k, strings.Join(v, ","))
		}
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode >= 300:
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(rb))
		fmt.Fprintf(&b, "\n  < %s", rb)
	case strings.HasPrefix(ct, "application/json"):
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(rb))
		l.record("recv", rb)
	case strings.HasPrefix(ct, "text/event-stream"):
		resp.Body = &sseTee{ReadCloser: resp.Body, log: l}
	}
	b.WriteString("\n")
	l.buf.Write([]byte(b.String()))
	return resp, nil
}

// sseTee records the data of each server-sent event as the client reads it.
type sseTee struct {
	io.ReadCloser
	log  *httpLog
	line []byte // the unfinished line
	data []byte // the data lines of the current event
}

func (s *sseTee) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	for _, c := range p[:n] {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		line := strings.TrimSuffix(string(s.line), "\r")
		s.line = s.line[:0]
		switch {
		case line == "":
			s.log.record("recv", s.data)
			s.data = s.data[:0]
		case strings.HasPrefix(line, "data:"):
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
	}
	return n, err
}
