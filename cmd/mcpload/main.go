// Command mcpload is a bounded, self-stopping load test of an mcpgen server
// binary (the everything example) over loopback HTTP and stdio, in both
// protocol eras.
//
// It starts the server twice: once with -http 127.0.0.1:0, driven by -clients
// concurrent HTTP clients (half 2025-11-25 sessions, half 2026-07-28
// stateless), and once over stdio with -stdio-inflight requests in flight.
// It sends -calls tools/call requests in total, split evenly, checks that
// every response answers its own request with a non-error result, and
// prints a summary line with the servers' peak RSS (VmHWM). It exits 1 on any
// error or mismatch, and gives up after -timeout.
//
//	go build -o /tmp/everything ./examples/everything/cmd/everything-server
//	go run ./cmd/mcpload -server /tmp/everything -clients 64 -stdio-inflight 16 -calls 20000
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mcpload","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}}`
	tool       = "test_simple_text"
)

func main() {
	server := flag.String("server", "", "server binary (required); started with -http 127.0.0.1:0 and with -stdio")
	clients := flag.Int("clients", 64, "concurrent HTTP clients")
	inflight := flag.Int("stdio-inflight", 16, "stdio requests in flight")
	calls := flag.Int("calls", 20000, "tools/call requests in total (half HTTP, half stdio)")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up after this long")
	flag.Parse()
	if *server == "" || *clients < 1 || *inflight < 1 || *calls < 2 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	start := time.Now()
	httpCalls, stdioCalls := *calls/2, *calls-*calls/2
	var hs, ss result
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); hs = runHTTP(ctx, *server, *clients, httpCalls) }()
	go func() { defer wg.Done(); ss = runStdio(ctx, *server, *inflight, stdioCalls) }()
	wg.Wait()
	el := time.Since(start)
	fmt.Printf("mcpload: http clients=%d calls=%d ok=%d errors=%d peakRSS=%dKiB\n", *clients, httpCalls, hs.ok, hs.errors, hs.rssKiB)
	fmt.Printf("mcpload: stdio inflight=%d calls=%d ok=%d errors=%d peakRSS=%dKiB\n", *inflight, stdioCalls, ss.ok, ss.errors, ss.rssKiB)
	fmt.Printf("mcpload: total calls=%d errors=%d elapsed=%s\n", hs.ok+ss.ok+hs.errors+ss.errors, hs.errors+ss.errors, el.Round(time.Millisecond))
	for _, e := range append(hs.firstErrs, ss.firstErrs...) {
		fmt.Fprintln(os.Stderr, "mcpload:", e)
	}
	if hs.errors+ss.errors > 0 || int(hs.ok) != httpCalls || int(ss.ok) != stdioCalls {
		os.Exit(1)
	}
}

// A result counts one transport's calls.
type result struct {
	ok, errors int64
	rssKiB     int64
	firstErrs  []string
}

// errs collects errors, keeping the first few.
type errs struct {
	mu    sync.Mutex
	n     int64
	first []string
}

func (e *errs) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if len(e.first) < 5 {
		e.first = append(e.first, fmt.Sprintf(format, args...))
	}
}

// callBody is a tools/call request with id for the era.
func callBody(id string, modern bool) []byte {
	meta := ""
	if modern {
		meta = "," + modernMeta
	}
	return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}` + meta + `}}`)
}

// checkAnswer reports what is wrong with an answer to request id, or "".
func checkAnswer(b []byte, id string) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Sprintf("answer to %s is not JSON: %.100s", id, b)
	}
	switch {
	case string(m.ID) != id:
		return fmt.Sprintf("answer to %s carries id %s", id, m.ID)
	case m.Error != nil || m.Result == nil || m.Result.IsError || len(m.Result.Content) == 0:
		return fmt.Sprintf("answer to %s is not a result: %.200s", id, b)
	}
	return ""
}

var urlRE = regexp.MustCompile(`url=(http://\S+)`)

// runHTTP starts the server over HTTP and runs clients concurrent clients.
func runHTTP(ctx context.Context, server string, clients, calls int) result {
	cmd := exec.CommandContext(ctx, server, "-http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return result{errors: 1, firstErrs: []string{err.Error()}}
	}
	defer stop(cmd)
	url := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := urlRE.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if url == "" {
		return result{errors: 1, firstErrs: []string{"server did not report its URL"}}
	}
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	var next, ok atomic.Int64
	var e errs
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			modern := c%2 == 1
			session := ""
			if !modern {
				var err error
				if session, err = initSession(ctx, hc, url); err != nil {
					e.add("client %d: %v", c, err)
					return
				}
			}
			for {
				n := next.Add(1)
				if n > int64(calls) || ctx.Err() != nil {
					return
				}
				id := strconv.FormatInt(n, 10)
				b, err := post(ctx, hc, url, session, modern, callBody(id, modern))
				if err != nil {
					e.add("call %s: %v", id, err)
					continue
				}
				if msg := checkAnswer(b, id); msg != "" {
					e.add("%s", msg)
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	return result{ok: ok.Load(), errors: int64(calls) - ok.Load(), rssKiB: peakRSS(cmd.Process.Pid), firstErrs: e.first}
}

// initSession opens a 2025-11-25 session.
func initSession(ctx context.Context, hc *http.Client, url string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		return "", fmt.Errorf("initialize: status %d", resp.StatusCode)
	}
	_, err = post(ctx, hc, url, id, false, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return id, err
}

// post sends one message and returns the response body.
func post(ctx context.Context, hc *http.Client, url, session string, modern bool, body []byte) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if modern {
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", tool)
	} else {
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil, nil
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	return b, nil
}

// runStdio starts the server over stdio and keeps inflight requests in flight,
// alternating eras.
func runStdio(ctx context.Context, server string, inflight, calls int) result {
	cmd := exec.CommandContext(ctx, server)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return result{errors: 1, firstErrs: []string{err.Error()}}
	}
	defer stop(cmd)
	var e errs
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	fmt.Fprintln(stdin, initialize)
	if !lines.Scan() {
		return result{errors: 1, firstErrs: []string{"no initialize answer"}}
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	slots := make(chan struct{}, inflight)
	var mu sync.Mutex
	pending := map[string]bool{}
	done := make(chan struct{})
	var ok int64
	go func() {
		defer close(done)
		for got := 0; got < calls && lines.Scan(); got++ {
			b := lines.Bytes()
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(b, &m)
			id := string(m.ID)
			mu.Lock()
			known := pending[id]
			delete(pending, id)
			mu.Unlock()
			if !known {
				e.add("stdio answer to unknown or already answered id %s", id)
			} else if msg := checkAnswer(b, id); msg != "" {
				e.add("stdio %s", msg)
			} else {
				ok++
			}
			<-slots
		}
	}()
	w := bufio.NewWriter(stdin)
	for n := 1; n <= calls && ctx.Err() == nil; n++ {
		select {
		case slots <- struct{}{}:
		case <-done:
		case <-ctx.Done():
		}
		id := strconv.Itoa(n)
		mu.Lock()
		pending[id] = true
		mu.Unlock()
		w.Write(callBody(id, n%2 == 0))
		w.WriteByte('\n')
		if len(slots) == inflight || n == calls {
			w.Flush()
		}
	}
	w.Flush()
	select {
	case <-done:
	case <-ctx.Done():
		e.add("stdio: timed out")
	}
	rss := peakRSS(cmd.Process.Pid)
	stdin.Close()
	if err := cmd.Wait(); err != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.add("stdio server exit: %v", err)
	}
	return result{ok: ok, errors: e.n, rssKiB: rss, firstErrs: e.first}
}

// stop ends a server process gracefully (SIGTERM via interrupt semantics).
func stop(cmd *exec.Cmd) {
	if cmd.ProcessState != nil {
		return
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// peakRSS returns the process's peak resident set size in KiB (Linux VmHWM), or -1.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}
