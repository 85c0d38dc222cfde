package runtime_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Security defaults, recorded. Also covered elsewhere: a foreign Origin is
// refused with 403 and bodies over 4 MiB with 413 (badinput_test.go), nesting
// beyond the parser's bound is -32700 (same), a panic shows the client no
// detail (fault_test.go), and the fuzz targets check every answer for stack
// traces and paths.

// TestDefaultAddrIsLoopback: with no address, HTTP listens on loopback only.
func TestDefaultAddrIsLoopback(t *testing.T) {
	host, _, err := net.SplitHostPort(mcpruntime.DefaultHTTPAddr)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("DefaultHTTPAddr %q, want a loopback address", mcpruntime.DefaultHTTPAddr)
	}
}

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestStateKeysNeverLogged: MRTR rounds, a tampered state and debug logging
// never write the requestState key to the log.
func TestStateKeysNeverLogged(t *testing.T) {
	const key = "k3y-material-that-must-stay-secret"
	var logs lockedBuffer
	s := everythingServer2(&mcpruntime.Options{StateKeys: [][]byte{[]byte(key)},
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	meta := strings.Replace(modernMetaParams, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{},"sampling":{}}`, 1)
	for _, name := range []string{"test_input_required_result_request_state", "test_input_required_result_multi_round", "test_input_required_result_tampered_state"} {
		r := s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{}`+meta+`}}`), nil, nil)
		if r.Code != 0 {
			t.Fatalf("%s: %s", name, r.Body)
		}
		s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+name+`","arguments":{},"requestState":"mcs1.AAAAtampered","inputResponses":{}`+meta+`}}`), nil, nil)
	}
	if strings.Contains(logs.String(), key) {
		t.Errorf("the requestState key appears in the log:\n%s", logs.String())
	}
}

// TestSessionPrefix: MCP_SESSION_PREFIX starts every minted session id, so a
// load balancer can route a session to its replica.
func TestSessionPrefix(t *testing.T) {
	t.Setenv(mcpruntime.SessionPrefixEnv, "r7-")
	p := startHTTP(t, everythingServer(), nil)
	if !strings.HasPrefix(p.session, "r7-") {
		t.Errorf("session id %q, want prefix r7-", p.session)
	}
	msgs := messages(t, p.post(t, false, simpleCallLegacy, nil, ""))
	if len(msgs) != 1 {
		t.Fatalf("call in the prefixed session: got %d messages", len(msgs))
	}
}
