package main

// client.go: the client side of the curves: a stdio server process driven one
// request at a time, a 2025-11-25 Streamable HTTP client, and the server
// process's CPU time and memory from /proc.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

const (
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curves","version":"1.0.0"}}`
	legacyVer  = "2025-11-25"
)

// listRequest is a 2026-07-28 tools/list request.
func listRequest(id int, cursor string) []byte {
	c := ""
	if cursor != "" {
		q, _ := json.Marshal(cursor)
		c = `"cursor":` + string(q) + ","
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{%s%s}}`, id, c, modernMeta)
}

// callRequest is a tools/call request, with 2026-07-28 _meta when modern.
func callRequest(id int, tool string, args []byte, modern bool) []byte {
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":`, id, tool)
	b = append(b, args...)
	if modern {
		b = append(b, ',')
		b = append(b, modernMeta...)
	}
	return append(b, "}}"...)
}

// reply is the part of a JSON-RPC response the curves read.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Tools             []json.RawMessage `json:"tools"`
		NextCursor        string            `json:"nextCursor"`
		IsError           bool              `json:"isError"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseReply(b []byte) (*reply, error) {
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reply %.200q: %w", b, err)
	}
	if r.Error != nil {
		return &r, fmt.Errorf("JSON-RPC error %d: %.200s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil {
		return &r, fmt.Errorf("reply without result: %.200q", b)
	}
	return &r, nil
}

// A proc is a server process.
type proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

// startStdio starts bin -stdio.
func startStdio(bin string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, "-stdio")}
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(out, 1<<20)
	p.cmd.Stderr = &p.stderr
	return p, p.cmd.Start()
}

// startHTTP starts bin -http on a free port and waits until it accepts
// connections; it returns the endpoint URL.
func startHTTP(bin string) (*proc, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := l.Addr().String()
	l.Close()
	p := &proc{cmd: exec.Command(bin, "-http", addr)}
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, "", err
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p, "http://" + addr + "/mcp", nil
		}
	}
	p.stop()
	return nil, "", fmt.Errorf("%s: no listener on %s: %s", bin, addr, p.stderr.String())
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// roundTrip sends one line and reads the next line of output.
func (p *proc) roundTrip(line []byte) ([]byte, error) {
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	b, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return b, nil
}

// stop ends the process (stdin closed, then killed if still running).
func (p *proc) stop() {
	if p.in != nil {
		p.in.Close()
	}
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// cpu is the process's user+system CPU time so far.
func cpu(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * (time.Second / 100) // USER_HZ
}

// mem is the process's resident set and its peak, in KiB.
func mem(pid int) (rss, hwm int64) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for l := range strings.SplitSeq(string(b), "\n") {
		k, v, _ := strings.Cut(l, ":")
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = n
		case "VmHWM":
			hwm = n
		}
	}
	return rss, hwm
}

// httpClient posts 2025-11-25 requests.
type httpClient struct {
	c   *http.Client
	url string
}

func newHTTPClient(url string, conns int) *httpClient {
	t := &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, IdleConnTimeout: time.Minute}
	return &httpClient{c: &http.Client{Transport: t, Timeout: 60 * time.Second}, url: url}
}

// post sends body in session sid ("" for initialize) and returns the status,
// the session id answered and the JSON-RPC message of the reply (the last
// data of an SSE stream).
func (h *httpClient) post(sid string, body []byte) (int, string, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", legacyVer)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "", nil, err
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last []byte
		for l := range bytes.SplitSeq(b, []byte("\n")) {
			if d, ok := bytes.CutPrefix(bytes.TrimRight(l, "\r"), []byte("data:")); ok && len(bytes.TrimSpace(d)) > 0 {
				last = bytes.TrimSpace(d)
			}
		}
		b = last
	}
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), b, nil
}

// initialize opens a 2025-11-25 session and returns its id.
func (h *httpClient) initialize() (string, error) {
	st, sid, b, err := h.post("", []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curves","version":"1.0.0"}}}`))
	if err != nil {
		return "", err
	}
	if st != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: status %d, session %q, body %.200q", st, sid, b)
	}
	if st, _, b, err := h.post(sid, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || st/100 != 2 {
		return "", fmt.Errorf("notifications/initialized: status %d, %v, %.200q", st, err, b)
	}
	return sid, nil
}

// errStatus reports an HTTP status other than 200.
var errStatus = errors.New("HTTP status")
