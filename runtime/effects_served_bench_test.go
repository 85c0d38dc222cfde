//go:build linux

package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testproc"
)

// BenchmarkKeyedWriteServed measures the figure as served: what an
// idempotency key adds to the CPU of a server process per call. The server is
// runtime/internal/fxserver (built once per run), a real process with the
// same write twice, "plain" and "keyed" (the in-process benchmarks'
// noteWriteTool), its ledger prefilled to a steady state of ledger=N entries
// (as BenchmarkKeyedWriteRatio's). A client in this process drives it over
// stdio (16 requests in flight), Streamable HTTP 2026-07-28 (stateless) and
// 2025-11-25 (one session), 4 keep-alive connections each. Keyed and plain
// calls alternate in chunks of 500 calls per side, order ABBA, and each
// chunk's server CPU (the sum of the on-CPU time of the server's threads,
// /proc/PID/task/*/schedstat, nanoseconds; GC included) is charged to its
// side. One op is one pair of chunks; run it with -benchtime 40x or so.
// Reported: each side's server CPU per call, keyed/plain over the run, the
// median of the per-pair ratios, and the 1-minute load average at the end.
// With MCPGEN_TEST_REDIS set it also runs the keyed write on Redis.
func BenchmarkKeyedWriteServed(b *testing.B) {
	bin := testproc.Build(b, "./internal/fxserver")
	type storeCase struct {
		name   string
		url    string
		ledger int
	}
	stores := []storeCase{{"memory", "", 1_000}, {"memory", "", 100_000}}
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		stores = append(stores, storeCase{"redis", u, 1_000})
	}
	for _, tr := range []string{"stdio", "http-2026-07-28", "http-2025-11-25"} {
		for _, sc := range stores {
			b.Run(fmt.Sprintf("transport=%s/store=%s/ledger=%d", tr, sc.name, sc.ledger), func(b *testing.B) {
				env := []string{"FXSERVER_LEDGER=" + strconv.Itoa(sc.ledger), "FXSERVER_STORE=" + sc.url}
				var c fxClient
				if tr == "stdio" {
					c = startFxStdio(b, bin, env)
				} else {
					c = startFxHTTP(b, bin, env, strings.TrimPrefix(tr, "http-"))
				}
				benchServedRatio(b, c)
			})
		}
	}
}

// An fxClient calls fxserver's tools and tells its process id.
type fxClient interface {
	pid() int
	// calls makes n calls of tool (plain or keyed) with keys run-from ...
	// run-(from+n-1) and fails unless every reply carries a receipt.
	calls(tool string, from, n int) error
}

func benchServedRatio(b *testing.B, c fxClient) {
	const chunk = 500
	next := 0
	side := func(k int) time.Duration {
		tool := [2]string{"plain", "keyed"}[k]
		c0 := threadsCPU(b, c.pid())
		if err := c.calls(tool, next, chunk); err != nil {
			b.Fatal(err)
		}
		return threadsCPU(b, c.pid()) - c0
	}
	// Warm up both sides (connections, the server's first allocations).
	for k := range 2 {
		side(k)
		next += chunk
	}
	stat0 := statCPU(b, c.pid())
	var cpu [2]time.Duration
	var ratios []float64
	pair := 0
	for b.Loop() {
		var d [2]time.Duration
		first := pair % 2 // ABBA
		d[first] = side(first)
		d[1-first] = side(1 - first)
		next += chunk
		cpu[0] += d[0]
		cpu[1] += d[1]
		if d[0] > 0 {
			ratios = append(ratios, float64(d[1])/float64(d[0]))
		}
		pair++
	}
	b.StopTimer()
	if pair == 0 || cpu[0] <= 0 {
		b.Fatalf("no server CPU measured (%d pairs)", pair)
	}
	slices.Sort(ratios)
	calls := float64(pair * chunk)
	plain, keyed := float64(cpu[0])/calls, float64(cpu[1])/calls
	b.ReportMetric(plain, "plain-cpu-ns/call")
	b.ReportMetric(keyed, "keyed-cpu-ns/call")
	b.ReportMetric(keyed/plain, "keyed/plain")
	b.ReportMetric(ratios[len(ratios)/2], "median-keyed/plain")
	// The kernel's tick-based count of the same time: a check that the
	// threads' sum missed no thread (10 ms ticks, so only roughly equal).
	b.ReportMetric(float64(statCPU(b, c.pid())-stat0)/float64(cpu[0]+cpu[1]), "stat/threads")
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f, err := strconv.ParseFloat(strings.Fields(string(la))[0], 64); err == nil {
			b.ReportMetric(f, "loadavg-1m")
		}
	}
}

// threadsCPU is the on-CPU time of process pid so far: the sum over its
// threads of the first field of /proc/PID/task/TID/schedstat (nanoseconds;
// /proc/PID/stat counts in 10 ms ticks, too coarse for a chunk).
func threadsCPU(b *testing.B, pid int) time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, e := range ents {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			b.Fatalf("%s/%s/schedstat: %q", dir, e.Name(), raw)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		sum += time.Duration(ns)
	}
	return sum
}

// statCPU is utime+stime of process pid from /proc/PID/stat.
func statCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name (in parentheses, may hold spaces).
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// fxArgs appends one call's arguments: the same for both tools (plain ignores the key).
func fxArgs(buf []byte, run string, i int) []byte {
	buf = append(buf, `{"note":"hello","key":"`...)
	buf = append(buf, run...)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, int64(i), 10)
	return append(buf, `"}`...)
}

// fxRequest appends the tools/call request i of tool in run, with the
// 2026-07-28 _meta when modern.
func fxRequest(buf []byte, tool, run string, i int, modern bool) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, int64(i), 10)
	buf = append(buf, `,"method":"tools/call","params":{"name":"`...)
	buf = append(buf, tool...)
	buf = append(buf, `","arguments":`...)
	buf = fxArgs(buf, run, i)
	if modern {
		buf = append(buf, fxMeta...)
	}
	return append(buf, "}}"...)
}

const fxMeta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// fxCheck fails unless reply is a tool result with a receipt.
func fxCheck(reply []byte) error {
	if !bytes.Contains(reply, []byte(MetaReceipt)) || bytes.Contains(reply, []byte(`"isError":true`)) {
		return fmt.Errorf("reply without a receipt: %.300s", reply)
	}
	return nil
}

// ---- stdio ----

type fxStdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	run string
}

func startFxStdio(b testing.TB, bin string, env []string) *fxStdio {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				b.Errorf("fxserver: %v; stderr: %s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			b.Errorf("fxserver did not end at EOF")
		}
	})
	return &fxStdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), run: strconv.FormatInt(time.Now().UnixNano(), 36)}
}

func (c *fxStdio) pid() int { return c.cmd.Process.Pid }

func (c *fxStdio) calls(tool string, from, n int) error {
	const inFlight = 16
	slots := make(chan struct{}, inFlight)
	werr := make(chan error, 1)
	go func() {
		var buf []byte
		for i := from; i < from+n; i++ {
			slots <- struct{}{}
			buf = append(fxRequest(buf[:0], tool, c.run, i, true), '\n')
			if _, err := c.in.Write(buf); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	var err error
	for range n {
		line, rerr := c.out.ReadBytes('\n')
		if rerr != nil {
			return fmt.Errorf("reading a reply: %v", rerr)
		}
		<-slots
		if err == nil {
			err = fxCheck(line)
		}
	}
	if e := <-werr; e != nil {
		return e
	}
	return err
}

// roundTrip sends one line and reads the reply (nothing else in flight).
func (c *fxStdio) roundTrip(line string) ([]byte, error) {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return nil, err
	}
	return c.out.ReadBytes('\n')
}

// ---- Streamable HTTP ----

type fxHTTP struct {
	srv    *testproc.Server
	hc     *http.Client
	header http.Header // for tools/call, without Mcp-Name
	modern bool
	run    string
}

func startFxHTTP(b testing.TB, bin string, env []string, revision string) *fxHTTP {
	srv := testproc.Start(b, bin, nil, env...)
	c := &fxHTTP{srv: srv, modern: revision == "2026-07-28", run: strconv.FormatInt(time.Now().UnixNano(), 36),
		hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}}
	b.Cleanup(c.hc.CloseIdleConnections)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", revision)
	if !c.modern {
		init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fxbench","version":"1"}}}`
		resp, body, err := c.post(h, []byte(init))
		if err != nil || !bytes.Contains(body, []byte(`"protocolVersion":"2025-11-25"`)) {
			b.Fatalf("initialize: %v %s", err, body)
		}
		h.Set("Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"))
		if h.Get("Mcp-Session-Id") == "" {
			b.Fatal("initialize: no Mcp-Session-Id")
		}
		if resp, _, err := c.post(h, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || resp.StatusCode != http.StatusAccepted {
			b.Fatalf("notifications/initialized: %v", err)
		}
	} else {
		h.Set("Mcp-Method", "tools/call")
	}
	c.header = h
	return c
}

func (c *fxHTTP) pid() int { return c.srv.Cmd.Process.Pid }

func (c *fxHTTP) post(h http.Header, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, c.srv.URL, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = h
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("HTTP %s: %.300s", resp.Status, reply)
	}
	return resp, reply, err
}

func (c *fxHTTP) calls(tool string, from, n int) error {
	const workers = 4
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			h := c.header.Clone()
			if c.modern {
				h.Set("Mcp-Name", tool)
			}
			var buf []byte
			for i := from + w; i < from+n; i += workers {
				buf = fxRequest(buf[:0], tool, c.run, i, c.modern)
				_, reply, err := c.post(h, buf)
				if err == nil {
					err = fxCheck(reply)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// TestFxServer checks the benchmark's server: the keyed tool goes through the
// ledger (a repeat is replayed byte for byte, the plain tool's is not), and
// FXSERVER_LEDGER=N prefills the ledger to a steady state (the newest prefilled
// keys are held: other arguments conflict; the oldest expire as keyed calls
// advance the store's clock), over stdio and Streamable HTTP.
func TestFxServer(t *testing.T) {
	bin := testproc.Build(t, "./internal/fxserver")
	const n = 100
	// caller returns a function calling a tool of the server c with args.
	caller := func(c *fxStdio) func(tool, args string) []byte {
		return func(tool, args string) []byte {
			t.Helper()
			reply, err := c.roundTrip(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + fxMeta + `}}`)
			if err != nil {
				t.Fatal(err)
			}
			return reply
		}
	}
	call := caller(startFxStdio(t, bin, []string{"FXSERVER_LEDGER=" + strconv.Itoa(n)}))
	// Five fresh keyed calls: the store's clock passes the five oldest prefilled records' expiry.
	for i := range 5 {
		if r := call("keyed", `{"note":"hello","key":"fresh-`+strconv.Itoa(i)+`"}`); fxCheck(r) != nil {
			t.Fatalf("fresh keyed call %d: %s", i, r)
		}
	}
	first := call("keyed", `{"note":"once","key":"k"}`)
	time.Sleep(2 * time.Millisecond) // a new run would have another occurred_at
	if again := call("keyed", `{"note":"once","key":"k"}`); fxCheck(first) != nil || !bytes.Equal(first, again) {
		t.Errorf("keyed repeat not replayed:\n%s\n%s", first, again)
	}
	p1 := call("plain", `{"note":"once","key":"k"}`)
	time.Sleep(2 * time.Millisecond)
	if p2 := call("plain", `{"note":"once","key":"k"}`); fxCheck(p1) != nil || fxCheck(p2) != nil || bytes.Equal(p1, p2) {
		t.Errorf("plain calls: want two runs with receipts (different occurred_at):\n%s\n%s", p1, p2)
	}
	if r := call("keyed", `{"note":"other","key":"prefill-`+strconv.Itoa(n-1)+`"}`); !bytes.Contains(r, []byte(ErrCodeIdempotencyKeyReused)) {
		t.Errorf("the newest prefilled key with other arguments: want %s, got %s", ErrCodeIdempotencyKeyReused, r)
	}
	if r := call("keyed", `{"note":"other","key":"prefill-0"}`); fxCheck(r) != nil {
		t.Errorf("the oldest prefilled key should have expired (a fresh call), got %s", r)
	}

	// The control: "keyed" runs without the ledger (a repeat runs again, a
	// prefilled key with other arguments is no conflict), and the prefill
	// still fills it (through "fill", which conflicts).
	ctlCall := caller(startFxStdio(t, bin, []string{"FXSERVER_LEDGER=" + strconv.Itoa(n), "FXSERVER_CONTROL=1"}))
	k1 := ctlCall("keyed", `{"note":"once","key":"k"}`)
	time.Sleep(2 * time.Millisecond)
	if k2 := ctlCall("keyed", `{"note":"once","key":"k"}`); fxCheck(k1) != nil || fxCheck(k2) != nil || bytes.Equal(k1, k2) {
		t.Errorf("control: keyed calls should run twice, with receipts:\n%s\n%s", k1, k2)
	}
	if r := ctlCall("keyed", `{"note":"other","key":"prefill-0"}`); fxCheck(r) != nil {
		t.Errorf("control: keyed with a prefilled key and other arguments should run, got %s", r)
	}
	if r := ctlCall("fill", `{"note":"other","key":"prefill-0"}`); !bytes.Contains(r, []byte(ErrCodeIdempotencyKeyReused)) {
		t.Errorf("control: the prefill's key with other arguments: want %s, got %s", ErrCodeIdempotencyKeyReused, r)
	}

	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		h := startFxHTTP(t, bin, nil, rev)
		if err := h.calls("keyed", 0, 8); err != nil {
			t.Errorf("HTTP %s keyed: %v", rev, err)
		}
		if err := h.calls("plain", 0, 8); err != nil {
			t.Errorf("HTTP %s plain: %v", rev, err)
		}
	}
}
