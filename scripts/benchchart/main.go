// Command benchchart turns the raw JSON lines of the benchmark harness
// (../shared/bench, run by scripts/bench.sh) into an SVG chart of calls/s and
// server CPU per call for every server and cell of the matrix, or, with -goals,
// into a Markdown table of one server's ratios to a baseline against the
// performance goals.
//
//	go run ./scripts/benchchart -o chart.svg results.jsonl
//	go run ./scripts/benchchart -goals -base floorserver -server mcpgen results.jsonl
//
// Every figure is the median over the repetitions of a cell, as the harness's
// own report computes it.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// A run is one JSON line of mcpload: a load run or a cold-start summary.
type run struct {
	Name       string  `json:"name"`
	Mode       string  `json:"mode"`
	Transport  string  `json:"transport"`
	Era        string  `json:"era"`
	Tool       string  `json:"tool"`
	Conc       int     `json:"conc"`
	CallsPerS  float64 `json:"calls_per_s"`
	P99        float64 `json:"p99_us"`
	Errors     int     `json:"errors"`
	CPUPerCall float64 `json:"server_cpu_us_per_call"`
	RSSKB      float64 `json:"server_peak_rss_kb"`
	MedianMs   float64 `json:"median_ms"`
	ColdRSSKB  float64 `json:"rss_kb"`
}

// A cell is one configuration of the load matrix, without the server.
type cell struct {
	Tool, Transport, Era string
	Conc                 int
}

func (c cell) String() string {
	return fmt.Sprintf("%s %s c=%d %s", c.Tool, c.Transport, c.Conc, c.Era)
}

// stats are the medians of one server in one cell.
type stats struct{ calls, cpu, p99, rss float64 }

// data is the parsed result file.
type data struct {
	servers []string
	cells   []cell
	load    map[cell]map[string]stats
	cold    map[string]map[string]run // key transport/era, then server
	colds   []string                  // cold keys in order
	errors  map[string]int            // errors per server
}

func main() {
	out := flag.String("o", "", "write the SVG chart to this file (default stdout)")
	goals := flag.Bool("goals", false, "print the goal table (Markdown) instead of the chart")
	base := flag.String("base", "floorserver", "baseline server of the ratios")
	server := flag.String("server", "mcpgen", "server whose ratios -goals reports")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchchart [-o chart.svg | -goals] results.jsonl...")
		os.Exit(2)
	}
	d, err := read(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchchart:", err)
		os.Exit(1)
	}
	if *goals {
		goalTable(os.Stdout, d, *base, *server)
		return
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchchart:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	chart(w, d)
}

// read parses the JSON lines and takes the medians.
func read(paths []string) (*data, error) {
	raw := map[cell]map[string][]run{}
	d := &data{load: map[cell]map[string]stats{}, cold: map[string]map[string]run{}, errors: map[string]int{}}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r run
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Name == "" {
				continue
			}
			if !slices.Contains(d.servers, r.Name) {
				d.servers = append(d.servers, r.Name)
			}
			d.errors[r.Name] += r.Errors
			if r.Mode == "coldstart" {
				k := r.Transport + " " + r.Era
				if d.cold[k] == nil {
					d.cold[k] = map[string]run{}
					d.colds = append(d.colds, k)
				}
				d.cold[k][r.Name] = r
				continue
			}
			c := cell{r.Tool, r.Transport, r.Era, r.Conc}
			if raw[c] == nil {
				raw[c] = map[string][]run{}
				d.cells = append(d.cells, c)
			}
			raw[c][r.Name] = append(raw[c][r.Name], r)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	order := func(c cell) string {
		return fmt.Sprint(c.Tool, c.Transport != "stdio", 1000+c.Conc, c.Era != "modern")
	}
	slices.SortStableFunc(d.cells, func(a, b cell) int { return strings.Compare(order(a), order(b)) })
	for c, byServer := range raw {
		d.load[c] = map[string]stats{}
		for s, rs := range byServer {
			pick := func(f func(run) float64) float64 {
				v := make([]float64, 0, len(rs))
				for _, r := range rs {
					v = append(v, f(r))
				}
				return median(v)
			}
			d.load[c][s] = stats{
				calls: pick(func(r run) float64 { return r.CallsPerS }),
				cpu:   pick(func(r run) float64 { return r.CPUPerCall }),
				p99:   pick(func(r run) float64 { return r.P99 }),
				rss:   pick(func(r run) float64 { return r.RSSKB / 1024 }),
			}
		}
	}
	return d, nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// palette colours the servers in order of appearance.
var palette = []string{"#7f7f7f", "#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"}

// chart draws two panels of grouped bars (log scale): calls/s, then CPU µs/call.
func chart(w io.Writer, d *data) {
	const (
		left, top, panelH, gap = 70, 50, 260, 120
		groupW                 = 64
	)
	n := len(d.cells)
	W := left + n*groupW + 30
	H := top + 2*panelH + gap + 90
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", W, H, W, H)
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(w, `<text x="%d" y="20" font-size="14" font-weight="bold">MCP servers side by side: medians per cell (log scales)</text>`+"\n", left)
	for i, s := range d.servers {
		x := left + i*130
		fmt.Fprintf(w, `<rect x="%d" y="30" width="10" height="10" fill="%s"/><text x="%d" y="39">%s</text>`+"\n", x, palette[i%len(palette)], x+14, html.EscapeString(s))
	}
	panel := func(y0 int, title string, val func(stats) float64) {
		lo, hi := math.Inf(1), 0.0
		for _, c := range d.cells {
			for _, st := range d.load[c] {
				if v := val(st); v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		if hi == 0 {
			return
		}
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
		yOf := func(v float64) float64 {
			return float64(y0+panelH) - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*panelH
		}
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="12" font-weight="bold">%s</text>`+"\n", left, y0-8, title)
		for v := lo; v <= hi*1.001; v *= 10 {
			y := yOf(v)
			fmt.Fprintf(w, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
				left, W-30, y, y, left-6, y+4, human(v))
		}
		nb := len(d.servers)
		barW := float64(groupW-10) / float64(nb)
		for i, c := range d.cells {
			x0 := float64(left + i*groupW + 5)
			for j, s := range d.servers {
				st, ok := d.load[c][s]
				if !ok || val(st) <= 0 {
					continue
				}
				y := yOf(val(st))
				fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
					x0+float64(j)*barW, y, barW-1, float64(y0+panelH)-y, palette[j%len(palette)], html.EscapeString(s), c, human(val(st)))
			}
		}
		for i, c := range d.cells {
			x := left + i*groupW + groupW/2
			y := y0 + panelH + 12
			fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%s</text>`, x, y, html.EscapeString(shortTool(c.Tool)))
			fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%s c=%d</text>`, x, y+11, c.Transport, c.Conc)
			fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="middle" font-size="9">%s</text>`+"\n", x, y+22, c.Era)
		}
	}
	panel(top+30, "Throughput (calls/s, higher is better)", func(s stats) float64 { return s.calls })
	panel(top+30+panelH+gap, "Server CPU per call (µs, lower is better)", func(s stats) float64 { return s.cpu })
	fmt.Fprintln(w, "</svg>")
}

func shortTool(t string) string {
	if t == "search_notes" {
		return "search"
	}
	return t
}

// human formats a positive number compactly: 1.2k, 35, 0.5.
func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}

// goalTable prints server's ratios to base in every cell, against the goals.
func goalTable(w io.Writer, d *data, base, server string) {
	// Issue 21's goals (the earlier round's were 2.0, 0.5, 2.0 and 1.5).
	const maxCPU, minCalls, maxP99, maxCold, maxRSS = 1.3, 0.85, 1.5, 1.2, 1.25
	mark := func(ok bool) string {
		if ok {
			return "✓"
		}
		return "✗"
	}
	fmt.Fprintf(w, "\n### Goals: %s ÷ %s per cell (medians)\n\n", server, base)
	fmt.Fprintf(w, "Goals: CPU/call ≤ %.2g×, calls/s ≥ %.2g×, p99 ≤ %.2g×, peak RSS ≤ %.3g×, cold start ≤ %.2g×.\n\n", maxCPU, minCalls, maxP99, maxRSS, maxCold)
	fmt.Fprintln(w, "| cell | CPU/call | calls/s | p99 | peak RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	met, total := 0, 0
	worst := map[string]float64{}
	for _, c := range d.cells {
		b, ok1 := d.load[c][base]
		s, ok2 := d.load[c][server]
		if !ok1 || !ok2 || b.cpu == 0 || b.calls == 0 || b.p99 == 0 || b.rss == 0 {
			continue
		}
		cpu, calls, p99, rss := s.cpu/b.cpu, s.calls/b.calls, s.p99/b.p99, s.rss/b.rss
		oks := []bool{cpu <= maxCPU, calls >= minCalls, p99 <= maxP99, rss <= maxRSS}
		for _, ok := range oks {
			total++
			if ok {
				met++
			}
		}
		worst["cpu"] = math.Max(worst["cpu"], cpu)
		worst["p99"] = math.Max(worst["p99"], p99)
		worst["rss"] = math.Max(worst["rss"], rss)
		if worst["calls"] == 0 || calls < worst["calls"] {
			worst["calls"] = calls
		}
		fmt.Fprintf(w, "| %s | %.2f× %s | %.2f× %s | %.2f× %s | %.2f× %s |\n", c,
			cpu, mark(oks[0]), calls, mark(oks[1]), p99, mark(oks[2]), rss, mark(oks[3]))
	}
	if len(d.colds) > 0 {
		fmt.Fprintln(w, "\n| cold start | time | RSS |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, k := range d.colds {
			b, ok1 := d.cold[k][base]
			s, ok2 := d.cold[k][server]
			if !ok1 || !ok2 || b.MedianMs == 0 || b.ColdRSSKB == 0 {
				continue
			}
			t, r := s.MedianMs/b.MedianMs, s.ColdRSSKB/b.ColdRSSKB
			total += 2
			if t <= maxCold {
				met++
			}
			if r <= maxRSS {
				met++
			}
			worst["cold"] = math.Max(worst["cold"], t)
			worst["coldrss"] = math.Max(worst["coldrss"], r)
			fmt.Fprintf(w, "| %s | %.1f ms vs %.1f ms: %.2f× %s | %.2f× %s |\n", k, s.MedianMs, b.MedianMs, t, mark(t <= maxCold), r, mark(r <= maxRSS))
		}
	}
	fmt.Fprintf(w, "\n%d of %d checks met. Worst: CPU/call %.2f×, calls/s %.2f×, p99 %.2f×, load RSS %.2f×, cold start %.2f×, cold RSS %.2f×.",
		met, total, worst["cpu"], worst["calls"], worst["p99"], worst["rss"], worst["cold"], worst["coldrss"])
	if n := d.errors[server]; n > 0 {
		fmt.Fprintf(w, " %s had %d failed calls.", server, n)
	}
	fmt.Fprintln(w)
}
