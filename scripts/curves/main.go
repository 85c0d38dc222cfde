// Command curves measures how the cost of an MCP server grows with its
// catalog, its payloads and its sessions, for mcpgen and, side by side, the
// official Go SDK (v1.8.0), mcp-go (v1.2.1) and a hand-written encoding/json
// floor serving the same tools. scripts/curves.sh runs it; see
// docs/performance.md ("Cost curves").
//
//	go run ./scripts/curves -out DIR [-quick] [-work DIR]   measure; raw JSON lines in DIR/curves.jsonl
//	go run ./scripts/curves -report DIR                    DIR/curves.md and DIR/*.svg from DIR/curves.jsonl
//	go run ./scripts/curves -check DIR                     exit 1 unless DIR holds a complete, well-formed run
//
// The servers are generated (gen.go) into a module under -work whose go.mod is
// scripts/curves/servers/go.mod: for each catalog size the same tools for all
// four, mcpgen's through mcpgen itself (timed: the generator curve).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// servers are the curve servers, in report order.
var servers = []string{"floor", "sdk", "mcpgo", "mcpgen"}

// config is one run's scale.
type config struct {
	catalog  []int // tool counts
	cold     int   // cold starts per server and size
	lists    int   // warm full listings
	payload  []int // argument sizes in bytes
	budget   int   // argument bytes per payload point (calls = budget/size, bounded)
	sessions []int // concurrent sessions
	calls    int   // calls timed while the sessions are idle
	limits   bool  // probe the line and body limits
	quick    bool
}

var (
	repo    string
	work    string
	outFile *os.File
	outMu   sync.Mutex
)

func main() {
	quick := flag.Bool("quick", false, "bounded run for CI: catalog 10, payload 1 KiB and 64 KiB, mcpgen's limits, 100 sessions")
	out := flag.String("out", "", "directory for curves.jsonl (measure)")
	report := flag.String("report", "", "directory holding curves.jsonl: write curves.md and the SVG charts there")
	check := flag.String("check", "", "directory of a run with its report: exit 1 unless complete and well-formed")
	flag.StringVar(&work, "work", filepath.Join(os.TempDir(), "mcpgen-curves"), "work directory: generated servers and binaries")
	only := flag.String("curves", "catalog,payload,sessions", "curves to measure")
	sizes := flag.String("catalog", "", "catalog sizes, comma-separated (default 10,100,1000,10000; -quick: 10)")
	bt := flag.Duration("build-timeout", 20*time.Minute, "give up building one server after this long (recorded as an error)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("curves: ")
	if *report != "" {
		if err := writeReport(*report); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *check != "" {
		if err := checkOutput(*check); err != nil {
			log.Fatal(err)
		}
		log.Printf("%s: complete", *check)
		return
	}
	if *out == "" {
		log.Fatal("need -out DIR or -report DIR")
	}
	cfg := config{catalog: []int{10, 100, 1000, 10000}, cold: 10, lists: 10,
		payload: []int{1 << 10, 64 << 10, 1 << 20, 4 << 20}, budget: 64 << 20,
		sessions: []int{100, 1000, 10000}, calls: 2000, limits: true}
	if *quick {
		cfg = config{catalog: []int{10}, cold: 3, lists: 3, payload: []int{1 << 10, 64 << 10}, budget: 2 << 20,
			sessions: []int{100}, calls: 200, limits: true, quick: true}
	}
	wd, _ := os.Getwd()
	repo = findRepo(wd)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create(filepath.Join(*out, "curves.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	outFile = f
	defer f.Close()
	if *sizes != "" {
		cfg.catalog = nil
		for f := range strings.SplitSeq(*sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				log.Fatalf("-catalog: %q", f)
			}
			cfg.catalog = append(cfg.catalog, n)
		}
	}
	buildTimeout = *bt
	mcpgen, err := setup()
	if err != nil {
		log.Fatal(err)
	}
	curves := strings.Split(*only, ",")
	// The smallest catalog serves the payload and sessions curves; they come
	// first, the larger catalogs (long builds) last.
	small := cfg.catalog[0]
	bins := buildCatalog(mcpgen, small, true)
	if slices.Contains(curves, "payload") {
		for _, size := range cfg.payload {
			for _, s := range servers {
				payloadPoint(cfg, s, size, bins[s])
			}
		}
		if cfg.limits {
			for _, s := range servers {
				if cfg.quick && s != "mcpgen" {
					continue // the peers take up to a minute over 17 MiB
				}
				limitsPoint(s, bins[s])
			}
		}
	}
	if slices.Contains(curves, "sessions") {
		for _, n := range cfg.sessions {
			for _, s := range append(slices.Clone(servers), "mcpgen-bigcap") {
				sessionsPoint(cfg, s, n, bins[s])
			}
		}
	}
	if slices.Contains(curves, "catalog") {
		for i, n := range cfg.catalog {
			if i > 0 {
				bins = buildCatalog(mcpgen, n, false)
			}
			for _, s := range servers {
				catalogPoint(cfg, s, n, bins[s])
			}
		}
	}
	log.Printf("done: %s", f.Name())
}

// findRepo walks up from dir to the directory holding go.mod of mcpgen.
func findRepo(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/mcpgen/mcpgen\n")) {
			return d
		}
		if d == filepath.Dir(d) {
			log.Fatalf("no mcpgen checkout above %s", dir)
		}
	}
}

// emit writes one raw line.
func emit(v map[string]any) {
	v["time"] = time.Now().UTC().Format(time.RFC3339)
	b, _ := json.Marshal(v)
	outMu.Lock()
	defer outMu.Unlock()
	outFile.Write(append(b, '\n'))
	log.Printf("%s", b)
}

// run runs a command in dir and returns its wall and CPU time (the command
// and its children), killing it after timeout (0: none).
func run(dir string, timeout time.Duration, name string, args ...string) (wall, cpuTime time.Duration, err error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if st := cmd.ProcessState; st != nil {
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			cpuTime = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	if err != nil {
		err = fmt.Errorf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return wall, cpuTime, err
}

// buildTimeout bounds one server's go build.
var buildTimeout time.Duration

// setup writes the servers' module under work and builds mcpgen; it returns
// mcpgen's path.
func setup() (string, error) {
	mod := filepath.Join(work, "mod")
	bin := filepath.Join(work, "bin")
	for _, d := range []string{mod, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	gomod, err := os.ReadFile(filepath.Join(repo, "scripts/curves/servers/go.mod"))
	if err != nil {
		return "", err
	}
	gomod = bytes.Replace(gomod, []byte("=> ../../.."), []byte("=> "+repo), 1)
	gosum, err := os.ReadFile(filepath.Join(repo, "scripts/curves/servers/go.sum"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), gomod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), gosum, 0o644); err != nil {
		return "", err
	}
	mcpgen := filepath.Join(bin, "mcpgen")
	_, _, err = run(repo, 0, "go", "build", "-o", mcpgen, "./cmd/mcpgen")
	return mcpgen, err
}

// buildCatalog generates catalog n, runs mcpgen on it (the generator curve)
// and builds its servers; a server whose build fails is missing from the map
// (the failure is a raw line).
func buildCatalog(mcpgen string, n int, bigcap bool) map[string]string {
	mod := filepath.Join(work, "mod")
	bins := map[string]string{}
	dir, err := writeCatalog(mod, "curvesrv", n)
	if err != nil {
		log.Fatal(err)
	}
	cat := "./" + filepath.Base(dir)
	// mcpgen on the package: the first run (nothing generated yet) and a
	// second one (unchanged package).
	os.Remove(filepath.Join(dir, "mg", "mcp_gen.go"))
	for _, pass := range []string{"first", "again"} {
		wall, c, err := run(mod, 0, mcpgen, "-server", cat+"/mg/cmd/server", cat+"/mg")
		if err != nil {
			log.Fatal(err)
		}
		st, _ := os.Stat(filepath.Join(dir, "mg", "mcp_gen.go"))
		emit(map[string]any{"curve": "catalog", "metric": "generate", "server": "mcpgen", "n": n, "pass": pass,
			"wall_ms": ms(wall), "cpu_ms": ms(c), "generated_bytes": st.Size()})
	}
	targets := map[string]string{"floor": "floor", "sdk": "sdk", "mcpgo": "mcpgo", "mcpgen": "mg/cmd/server"}
	names := slices.Clone(servers)
	if bigcap {
		targets["mcpgen-bigcap"] = "mg/cmd/bigcap"
		names = append(names, "mcpgen-bigcap")
	}
	for _, s := range names {
		b := filepath.Join(work, "bin", fmt.Sprintf("cat%d-%s", n, s))
		wall, c, err := run(mod, buildTimeout, "go", "build", "-trimpath", "-o", b, cat+"/"+targets[s])
		line := map[string]any{"curve": "catalog", "metric": "build", "server": s, "n": n, "wall_ms": ms(wall), "cpu_ms": ms(c)}
		if err != nil {
			line["errors"] = []string{fmt.Sprintf("%.500s", err.Error())}
		} else {
			st, _ := os.Stat(b)
			line["binary_bytes"] = st.Size()
			bins[s] = b
		}
		emit(line)
	}
	return bins
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile of sorted durations, in microseconds.
func pct(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	i := int(float64(len(d)-1)*p + 0.5)
	return float64(d[i].Nanoseconds()) / 1000
}

// listAll fetches every page of tools/list and returns the tools, pages and
// bytes read.
func listAll(p *proc, id *int) (tools, pages, bytes int, err error) {
	cursor := ""
	for {
		*id++
		b, err := p.roundTrip(listRequest(*id, cursor))
		if err != nil {
			return tools, pages, bytes, err
		}
		r, err := parseReply(b)
		if err != nil {
			return tools, pages, bytes, err
		}
		tools += len(r.Result.Tools)
		pages++
		bytes += len(b)
		if cursor = r.Result.NextCursor; cursor == "" {
			return tools, pages, bytes, nil
		}
	}
}

// catalogPoint measures one server with n tools (+ echo) over stdio, 2026-07-28:
// cold start to the first page of tools/list, the memory then, warm full
// listings (every page), and the memory after.
func catalogPoint(cfg config, server string, n int, bin string) {
	if bin == "" {
		emit(map[string]any{"curve": "catalog", "metric": "serve", "server": server, "n": n, "errors": []string{"not built"}})
		return
	}
	line := map[string]any{"curve": "catalog", "metric": "serve", "server": server, "n": n, "transport": "stdio", "era": "modern"}
	var colds []time.Duration
	var coldRSS []int64
	var errs []string
	for range cfg.cold {
		start := time.Now()
		p, err := startStdio(bin)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		b, err := p.roundTrip(listRequest(1, ""))
		d := time.Since(start)
		if err == nil {
			_, err = parseReply(b)
		}
		if err != nil {
			errs = append(errs, err.Error()+" "+p.stderr.String())
		} else {
			colds = append(colds, d)
			rss, _ := mem(p.pid())
			coldRSS = append(coldRSS, rss)
		}
		p.stop()
	}
	line["cold_median_ms"] = pct(colds, 0.5) / 1000
	line["cold_min_ms"] = pct(colds, 0) / 1000
	if len(coldRSS) > 0 {
		slices.Sort(coldRSS)
		line["cold_rss_kb"] = coldRSS[len(coldRSS)/2]
	}
	p, err := startStdio(bin)
	if err != nil {
		line["errors"] = []string{err.Error()}
		emit(line)
		return
	}
	defer p.stop()
	id := 0
	var lists []time.Duration
	for i := range cfg.lists + 1 {
		start := time.Now()
		tools, pages, bytes, err := listAll(p, &id)
		d := time.Since(start)
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		if tools != n+1 {
			errs = append(errs, fmt.Sprintf("tools/list: %d tools, want %d", tools, n+1))
		}
		line["list_pages"], line["list_bytes"] = pages, bytes
		if i > 0 { // the first listing warms up
			lists = append(lists, d)
		}
	}
	line["list_median_ms"] = pct(lists, 0.5) / 1000
	line["list_max_ms"] = pct(lists, 1) / 1000
	rss, hwm := mem(p.pid())
	line["rss_kb"], line["hwm_kb"] = rss, hwm
	// One call, to show the catalog is served, not just listed.
	id++
	if b, err := p.roundTrip(callRequest(id, fmt.Sprintf("tool_%05d", n-1), []byte(`{"query":"x","limit":3}`), true)); err != nil {
		errs = append(errs, err.Error())
	} else if r, err := parseReply(b); err != nil || r.Result.IsError {
		errs = append(errs, fmt.Sprintf("call: %v %.200q", err, b))
	}
	if len(errs) > 0 {
		line["errors"] = errs
	}
	emit(line)
}

// payloadArgs are echo arguments of about size bytes: half a string, half an
// array of objects.
func payloadArgs(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"text":"`)
	b.WriteString(strings.Repeat("lorem ipsum ", size/2/12+1)[:size/2])
	b.WriteString(`","items":[`)
	for i := 0; b.Len() < size-64; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%06d","note":"a note about item %d of the payload"}`, i, i, i)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// payloadPoint measures echo calls with arguments of size bytes over stdio
// (2026-07-28), one at a time: server CPU per call and per MiB of arguments,
// latency percentiles.
func payloadPoint(cfg config, server string, size int, bin string) {
	if bin == "" {
		emit(map[string]any{"curve": "payload", "server": server, "size": size, "errors": []string{"not built"}})
		return
	}
	args := payloadArgs(size)
	calls := min(max(cfg.budget/size, 16), 2000)
	line := map[string]any{"curve": "payload", "server": server, "size": size, "args_bytes": len(args), "calls": calls, "transport": "stdio", "era": "modern"}
	p, err := startStdio(bin)
	if err != nil {
		line["errors"] = []string{err.Error()}
		emit(line)
		return
	}
	defer p.stop()
	var errs []string
	id := 0
	call := func() (int, error) {
		id++
		b, err := p.roundTrip(callRequest(id, "echo", args, true))
		if err != nil {
			return 0, fmt.Errorf("%w; stderr %.300s", err, p.stderr.String())
		}
		r, err := parseReply(b)
		if err != nil {
			return len(b), err
		}
		if r.Result.IsError || len(r.Result.StructuredContent) < len(args)/2 {
			return len(b), fmt.Errorf("echo answered isError=%v with %d bytes of structuredContent", r.Result.IsError, len(r.Result.StructuredContent))
		}
		return len(b), nil
	}
	for range min(calls/4+1, 50) { // warm-up
		if _, err := call(); err != nil {
			line["errors"] = []string{"warm-up: " + err.Error()}
			emit(line)
			return
		}
	}
	var lat []time.Duration
	c0 := cpu(p.pid())
	start := time.Now()
	respBytes := 0
	for range calls {
		t := time.Now()
		n, err := call()
		if err != nil {
			errs = append(errs, err.Error())
			if len(errs) > 3 {
				break
			}
			continue
		}
		lat = append(lat, time.Since(t))
		respBytes = n
	}
	wall := time.Since(start)
	used := cpu(p.pid()) - c0
	_, hwm := mem(p.pid())
	line["reply_bytes"] = respBytes
	line["cpu_us_per_call"] = float64(used.Microseconds()) / float64(calls)
	line["cpu_ms_per_mib"] = float64(used.Microseconds()) / 1000 / (float64(calls) * float64(len(args)) / (1 << 20))
	line["calls_per_s"] = float64(len(lat)) / wall.Seconds()
	line["p50_us"], line["p99_us"] = pct(lat, 0.5), pct(lat, 0.99)
	line["hwm_kb"] = hwm
	if len(errs) > 0 {
		line["errors"] = errs
	}
	emit(line)
}

// limitsPoint sends what is beyond the documented limits (mcpgen: 16 MiB per
// stdio line, 4 MiB per HTTP body) and reports what each server does, and
// whether it still answers a small call afterwards.
func limitsPoint(server, bin string) {
	if bin == "" {
		emit(map[string]any{"curve": "limits", "server": server, "errors": []string{"not built"}})
		return
	}
	small := callRequest(2, "echo", []byte(`{"text":"x","items":[]}`), true)
	// stdio: a 17 MiB line.
	line := map[string]any{"curve": "limits", "server": server, "transport": "stdio", "era": "modern", "args_bytes": 17 << 20}
	if p, err := startStdio(bin); err == nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			b, err := p.roundTrip(callRequest(1, "echo", payloadArgs(17<<20), true))
			line["answer"] = summarize(b, err)
			b, err = p.roundTrip(small)
			line["then_small_call"] = summarize(b, err)
		}()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			line["answer"] = "no answer in 60 s"
		}
		p.stop()
	}
	emit(line)
	// HTTP: a 5 MiB body in a 2025-11-25 session.
	line = map[string]any{"curve": "limits", "server": server, "transport": "http", "era": "legacy", "args_bytes": 5 << 20}
	p, url, err := startHTTP(bin)
	if err != nil {
		line["answer"] = err.Error()
		emit(line)
		return
	}
	defer p.stop()
	h := newHTTPClient(url, 1)
	sid, err := h.initialize()
	if err != nil {
		line["answer"] = err.Error()
		emit(line)
		return
	}
	st, _, b, err := h.post(sid, callRequest(1, "echo", payloadArgs(5<<20), false))
	line["status"], line["answer"] = st, summarize(b, err)
	st, _, b, err = h.post(sid, callRequest(2, "echo", []byte(`{"text":"x","items":[]}`), false))
	line["then_small_call"] = fmt.Sprintf("HTTP %d %s", st, summarize(b, err))
	emit(line)
}

// summarize describes a reply in a few words.
func summarize(b []byte, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "empty body"
	}
	r, err := parseReply(b)
	switch {
	case err != nil:
		return fmt.Sprintf("%.160s", err.Error())
	case r.Result.IsError:
		return "isError result"
	}
	return fmt.Sprintf("result (%d bytes)", len(b))
}

// sessionsPoint opens n 2025-11-25 sessions over HTTP, then times calls in a
// fresh session while they stay idle, and finally checks which of the n are
// still served.
func sessionsPoint(cfg config, server string, n int, bin string) {
	if bin == "" {
		emit(map[string]any{"curve": "sessions", "server": server, "n": n, "errors": []string{"not built"}})
		return
	}
	line := map[string]any{"curve": "sessions", "server": server, "n": n, "transport": "http", "era": "legacy"}
	p, url, err := startHTTP(bin)
	if err != nil {
		line["errors"] = []string{err.Error()}
		emit(line)
		return
	}
	defer p.stop()
	h := newHTTPClient(url, 8)
	callArgs := []byte(`{"query":"x","limit":3}`)
	// Baseline: one session warmed up, so that the server's pools exist.
	probe, err := h.initialize()
	if err == nil {
		for i := range 200 {
			if _, _, _, err = h.post(probe, callRequest(i+1, "tool_00000", callArgs, false)); err != nil {
				break
			}
		}
	}
	if err != nil {
		line["errors"] = []string{err.Error()}
		emit(line)
		return
	}
	time.Sleep(200 * time.Millisecond)
	rss0, _ := mem(p.pid())
	c0 := cpu(p.pid())
	sids := make([]string, n)
	var failed atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				sid, err := h.initialize()
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				sids[i] = sid
			}
		}()
	}
	wg.Wait()
	openWall := time.Since(start)
	line["open_per_s"] = float64(n) / openWall.Seconds()
	line["open_cpu_us_per_session"] = float64((cpu(p.pid()) - c0).Microseconds()) / float64(n)
	line["open_failed"] = failed.Load()
	if e := firstErr.Load(); e != nil {
		line["open_first_error"] = e
	}
	time.Sleep(200 * time.Millisecond)
	rss1, hwm := mem(p.pid())
	line["rss_base_kb"], line["rss_kb"], line["hwm_kb"] = rss0, rss1, hwm
	line["rss_per_session_kb"] = float64(rss1-rss0) / float64(n)
	// Latency of a call in a fresh session while the n sit idle.
	busy, err := h.initialize()
	if err != nil {
		line["errors"] = []string{"fresh session: " + err.Error()}
		emit(line)
		return
	}
	var lat []time.Duration
	var errs []string
	for i := range cfg.calls {
		t := time.Now()
		st, _, b, err := h.post(busy, callRequest(i+1, "tool_00000", callArgs, false))
		if err == nil && st == 200 {
			_, err = parseReply(b)
		} else if err == nil {
			err = fmt.Errorf("%w %d", errStatus, st)
		}
		if err != nil {
			errs = append(errs, err.Error())
			if len(errs) > 3 {
				break
			}
			continue
		}
		lat = append(lat, time.Since(t))
	}
	line["call_p50_us"], line["call_p99_us"] = pct(lat, 0.5), pct(lat, 0.99)
	// Which of the n sessions are still served (the cap may have ended some).
	var alive, gone, other atomic.Int64
	next.Store(0)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if sids[i] == "" {
					continue
				}
				st, _, _, err := h.post(sids[i], []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				switch {
				case err == nil && st == 200:
					alive.Add(1)
				case err == nil && st == 404:
					gone.Add(1)
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	line["alive"], line["gone_404"], line["other"] = alive.Load(), gone.Load(), other.Load()
	if len(errs) > 0 {
		line["errors"] = errs
	}
	emit(line)
}
