package runtime

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A process is a server binary under test, driven over its stdin/stdout.
type process struct {
	*testClient
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	stderr *lockedBuffer
	exited chan struct{} // closed when Wait returned
	err    error         // Wait's result, valid once exited is closed
}

// startProcess runs bin and returns a client for it. Cleanup closes stdin, validates
// everything the server still writes and requires exit status 0.
func startProcess(t *testing.T, bin string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, stdin: stdin, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.testClient = newTestClient(t, stdin, stdout)
	go func() {
		<-p.readDone
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.finish(t) })
	return p
}

// finish ends the process through EOF on stdin and checks it exited cleanly.
func (p *process) finish(t *testing.T) {
	p.stdin.Close()
	p.drain()
	select {
	case <-p.exited:
		if p.err != nil {
			t.Errorf("server exit: %v", p.err)
		}
	case <-time.After(waitTimeout):
		p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("server did not exit after EOF on stdin")
	}
	if t.Failed() {
		t.Logf("server stderr:\n%s", p.stderr.String())
	}
}

// toolNames lists every tool over all pages of tools/list.
func toolNames(t *testing.T, c *testClient, modern bool) []string {
	t.Helper()
	var names []string
	params := map[string]any{}
	for range 20 {
		var page listPage
		c.call(modern, "tools/list", params).decodeResult(t, &page)
		for _, tool := range page.Tools {
			names = append(names, tool.Name)
		}
		if page.NextCursor == nil {
			return names
		}
		params = map[string]any{"cursor": *page.NextCursor}
	}
	t.Fatal("tools/list did not end")
	return nil
}

var testServerTools = []string{"echo", "add", "slow", "block", "fail", "crash", "nothing", "bad_output", "rich", "whoami"}

func TestProcessModern(t *testing.T) {
	p := startProcess(t, testServerBin)
	var disc struct{ SupportedVersions []string }
	p.call(true, "server/discover", nil).decodeResult(t, &disc)
	if disc.SupportedVersions[0] != "2026-07-28" {
		t.Errorf("supportedVersions = %v", disc.SupportedVersions)
	}
	if names := toolNames(t, p.testClient, true); !slices.Equal(names, testServerTools) {
		t.Errorf("tools = %v, want %v", names, testServerTools)
	}
	res, _ := callTool(t, p.testClient, true, "echo", map[string]any{"text": "hi", "repeat": 2})
	if string(res.StructuredContent) != `{"text":"hihi"}` {
		t.Errorf("echo = %+v", res)
	}
	res, _ = callTool(t, p.testClient, true, "echo", map[string]any{"text": ""})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "/text: minLength") {
		t.Errorf("invalid arguments = %+v", res)
	}
	checkCodes(t, p.testClient, true)
	res, _ = callTool(t, p.testClient, true, "whoami", nil)
	if !strings.Contains(res.Content[0].Text, "modern=true client=test-client") {
		t.Errorf("whoami = %+v", res)
	}
	callTool(t, p.testClient, true, "rich", nil) // validated against the schema
	checkProgressAndCancel(t, p.testClient, modernMeta())
}

// checkCodes checks the protocol errors of the test server in one era.
func checkCodes(t *testing.T, c *testClient, modern bool) {
	t.Helper()
	codes := map[string]int{}
	_, m := callTool(t, c, modern, "no_such_tool", nil)
	codes["unknown tool"] = m.errorCode()
	codes["unknown method"] = c.call(modern, "no/such", nil).errorCode()
	_, m = callTool(t, c, modern, "nothing", nil)
	codes["nil result"] = m.errorCode()
	_, m = callTool(t, c, modern, "bad_output", nil)
	codes["bad output"] = m.errorCode()
	want := map[string]int{"unknown tool": -32602, "unknown method": -32601, "nil result": -32603, "bad output": -32603}
	for k, v := range want {
		if codes[k] != v {
			t.Errorf("%s: code %d, want %d", k, codes[k], v)
		}
	}
	for _, name := range []string{"fail", "crash"} {
		if res, _ := callTool(t, c, modern, name, nil); !res.IsError {
			t.Errorf("%s: got %+v, want isError", name, res)
		}
	}
}

// checkProgressAndCancel runs slow with progress and logs, then cancels block.
func checkProgressAndCancel(t *testing.T, c *testClient, meta map[string]any) {
	t.Helper()
	meta["progressToken"] = "tok-1"
	meta[metaLogLevel] = "info"
	id := c.request("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"steps": 3, "delayMs": 5}, "_meta": meta})
	resp, before := c.await(id)
	progress, _ := progressNotes(t, before)
	if !slices.Equal(progress, []float64{1, 2, 3}) || resp.Error != nil {
		t.Errorf("slow: progress %v, response %s", progress, resp.raw)
	}
	meta["progressToken"] = "tok-2"
	id = c.request("tools/call", map[string]any{"name": "block", "_meta": meta})
	if m := c.next(); m.Method != "notifications/progress" {
		t.Fatalf("got %s, want block's progress", m.raw)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `}}`)
	c.expectQuiet(300 * time.Millisecond)
}

func TestProcessModernMetaErrors(t *testing.T) {
	p := startProcess(t, testServerBin)
	if m := p.call(false, "tools/list", map[string]any{}); m.errorCode() != CodeInvalidParams {
		t.Errorf("missing _meta: got %s, want -32602", m.raw)
	}
	meta := modernMeta()
	meta[metaProtocolVersion] = "1999-01-01"
	id := p.request("server/discover", map[string]any{"_meta": meta})
	if m, _ := p.await(id); m.errorCode() != CodeUnsupportedVersion {
		t.Errorf("unsupported version: got %s, want -32022", m.raw)
	} else {
		checkUnsupported(t, m.raw)
	}
	if m := p.call(true, "ping", nil); m.errorCode() != CodeMethodNotFound {
		t.Errorf("modern ping: got %s, want -32601", m.raw)
	}
}

func TestProcessLegacy(t *testing.T) {
	p := startProcess(t, testServerBin)
	if m := p.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping before initialize = %s", m.raw)
	}
	var init struct{ ProtocolVersion string }
	initialize(t, p.testClient, "2025-11-25").decodeResult(t, &init)
	if init.ProtocolVersion != "2025-11-25" {
		t.Errorf("negotiated %q", init.ProtocolVersion)
	}
	if names := toolNames(t, p.testClient, false); !slices.Equal(names, testServerTools) {
		t.Errorf("tools = %v, want %v", names, testServerTools)
	}
	res, _ := callTool(t, p.testClient, false, "add", map[string]any{"a": 2, "b": 40})
	if string(res.StructuredContent) != `{"result":42}` {
		t.Errorf("add = %+v", res)
	}
	res, _ = callTool(t, p.testClient, false, "add", map[string]any{"a": "x"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "valid arguments: a, b") {
		t.Errorf("invalid arguments = %+v", res)
	}
	checkCodes(t, p.testClient, false)
	if m := p.call(false, "logging/setLevel", map[string]any{"level": "info"}); string(m.Result) != "{}" {
		t.Errorf("setLevel = %s", m.raw)
	}
	checkProgressAndCancel(t, p.testClient, map[string]any{})
	res, _ = callTool(t, p.testClient, false, "whoami", nil)
	if !strings.Contains(res.Content[0].Text, "version=2025-11-25 modern=false client=legacy-client") {
		t.Errorf("whoami = %+v", res)
	}
}

func TestProcessEOFWithCallInFlight(t *testing.T) {
	p := startProcess(t, testServerBin)
	id := p.modern("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"steps": 2, "delayMs": 200}})
	time.Sleep(50 * time.Millisecond)
	p.stdin.Close()
	resp, _ := p.await(id)
	var res callResult
	resp.decodeResult(t, &res)
	if !strings.Contains(res.Content[0].Text, "done after 2 steps") {
		t.Errorf("in-flight call after EOF = %s", resp.raw)
	}
}

func TestProcessSIGTERMDrains(t *testing.T) {
	p := startProcess(t, testServerBin)
	meta := modernMeta()
	meta["progressToken"] = 1
	id := p.request("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"steps": 2, "delayMs": 200}, "_meta": meta})
	if m := p.next(); m.Method != "notifications/progress" { // the call is running
		t.Fatalf("got %s, want progress", m.raw)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	resp, _ := p.await(id)
	if resp.Error != nil {
		t.Errorf("call in flight at SIGTERM: %s", resp.raw)
	}
	p.drain() // the server closes stdout when it exits, without EOF on stdin
	select {
	case <-p.exited:
		if p.err != nil {
			t.Errorf("exit after SIGTERM: %v", p.err)
		}
	case <-time.After(waitTimeout):
		t.Errorf("server still running after SIGTERM")
	}
}

func TestProcessFlags(t *testing.T) {
	out, err := exec.Command(testServerBin, "-version").Output()
	if err != nil || string(out) != "testserver dev\n" {
		t.Errorf("-version = %q, %v", out, err)
	}
	err = exec.Command(testServerBin, "-no-such-flag").Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("unknown flag: %v, want exit status 2", err)
	}
}

func TestProcessSecondSignalKills(t *testing.T) {
	p := startProcess(t, testServerBin)
	meta := modernMeta()
	meta["progressToken"] = 1
	p.request("tools/call", map[string]any{"name": "block", "_meta": meta})
	if m := p.next(); m.Method != "notifications/progress" {
		t.Fatalf("got %s, want progress", m.raw)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Main stops catching signals right after the first; a signal sent before
	// that may be dropped, so signal again until the process ends. A drain that
	// ignored them would end after the 10 s DrainTimeout with exit status 0.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				p.cmd.Process.Signal(syscall.SIGTERM) // fails once the process is gone
			}
		}
	}()
	p.drain()
	<-p.exited
	close(stop)
	var exit *exec.ExitError
	if !errors.As(p.err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("after a second SIGTERM: exit %v, want killed by the signal", p.err)
	}
	p.err = nil // finish expects a clean exit; this test wanted the signal's
}
