package main

// report.go: curves.md (tables, goal checks) and one SVG chart per metric
// from curves.jsonl.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// point is one raw line, fields as numbers or strings.
type point map[string]any

func (p point) num(k string) float64 {
	if v, ok := p[k].(float64); ok {
		return v
	}
	return math.NaN()
}

func (p point) str(k string) string { s, _ := p[k].(string); return s }

func readPoints(path string) ([]point, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pts []point
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p point
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if p.str("curve") == "sessions" && p.num("alive") > 0 {
			// Memory per session still served: with the default bounds mcpgen
			// ends the least recently used idle sessions beyond them.
			p["rss_per_alive_kb"] = (p.num("rss_kb") - p.num("rss_base_kb")) / p.num("alive")
		}
		pts = append(pts, p)
	}
	return pts, sc.Err()
}

// pick returns the value of metric for server at x among pts matching sel.
func pick(pts []point, sel func(point) bool, server, xkey string, x float64, metric string) float64 {
	for _, p := range pts {
		if sel(p) && p.str("server") == server && p.num(xkey) == x {
			if _, bad := p["errors"]; bad && metric != "alive" {
				return math.NaN()
			}
			return p.num(metric)
		}
	}
	return math.NaN()
}

// xs lists the distinct values of key among pts matching sel, ascending.
func xs(pts []point, sel func(point) bool, key string) []float64 {
	var out []float64
	for _, p := range pts {
		if sel(p) && !slices.Contains(out, p.num(key)) && !math.IsNaN(p.num(key)) {
			out = append(out, p.num(key))
		}
	}
	slices.Sort(out)
	return out
}

func sizeLabel(b float64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%g MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%g KiB", b/(1<<10))
	}
	return fmt.Sprintf("%g", b)
}

func countLabel(n float64) string {
	s := fmt.Sprintf("%d", int(n))
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// metricSpec is one table and chart.
type metricSpec struct {
	file, title, unit string
	sel               func(point) bool
	xkey              string
	xlabel            func(float64) string
	metric            string
	scale             float64 // multiply raw values
	logY              bool
	lowerBetter       bool
	servers           []string
}

func writeReport(dir string) error {
	pts, err := readPoints(filepath.Join(dir, "curves.jsonl"))
	if err != nil {
		return err
	}
	is := func(curve, metric string) func(point) bool {
		return func(p point) bool { return p.str("curve") == curve && (metric == "" || p.str("metric") == metric) }
	}
	peers := []string{"floor", "sdk", "mcpgo", "mcpgen"}
	specs := []metricSpec{
		{"catalog-cold.svg", "Cold start: exec to the first tools/list page", "ms", is("catalog", "serve"), "n", countLabel, "cold_median_ms", 1, true, true, peers},
		{"catalog-list.svg", "tools/list, every page, warm", "ms", is("catalog", "serve"), "n", countLabel, "list_median_ms", 1, true, true, peers},
		{"catalog-bytes.svg", "tools/list bytes, every page", "KiB", is("catalog", "serve"), "n", countLabel, "list_bytes", 1.0 / 1024, true, true, peers},
		{"catalog-rss.svg", "RSS after listing the catalog", "MiB", is("catalog", "serve"), "n", countLabel, "rss_kb", 1.0 / 1024, false, true, peers},
		{"catalog-generate.svg", "mcpgen run on the package (first run)", "s", func(p point) bool { return is("catalog", "generate")(p) && p.str("pass") == "first" }, "n", countLabel, "wall_ms", 1.0 / 1000, false, true, []string{"mcpgen"}},
		{"payload-cpu.svg", "Server CPU per MiB of echo arguments", "ms/MiB", is("payload", ""), "size", sizeLabel, "cpu_ms_per_mib", 1, true, true, peers},
		{"payload-p99.svg", "p99 latency of one echo call", "ms", is("payload", ""), "size", sizeLabel, "p99_us", 1.0 / 1000, true, true, peers},
		{"sessions-rss.svg", "RSS per idle 2025-11-25 session still served", "KiB", is("sessions", ""), "n", countLabel, "rss_per_alive_kb", 1, false, true, append(slices.Clone(peers), "mcpgen-bigcap")},
		{"sessions-p99.svg", "p99 of a call while N sessions are idle", "ms", is("sessions", ""), "n", countLabel, "call_p99_us", 1.0 / 1000, true, true, append(slices.Clone(peers), "mcpgen-bigcap")},
		{"sessions-alive.svg", "Sessions still served after opening N", "sessions", is("sessions", ""), "n", countLabel, "alive", 1, true, false, append(slices.Clone(peers), "mcpgen-bigcap")},
	}
	var md strings.Builder
	fmt.Fprintf(&md, "<!-- made by go run ./scripts/curves -report %s -->\n", filepath.Base(dir))
	for _, sp := range specs {
		x := xs(pts, sp.sel, sp.xkey)
		if len(x) == 0 {
			continue
		}
		var labels []string
		for _, v := range x {
			labels = append(labels, sp.xlabel(v))
		}
		var ser []series
		for _, s := range sp.servers {
			var ys []float64
			for _, v := range x {
				ys = append(ys, pick(pts, sp.sel, s, sp.xkey, v, sp.metric)*sp.scale)
			}
			ser = append(ser, series{s, ys})
		}
		svg := lineChart(sp.title+" ("+sp.unit+")", labels, ser, sp.logY)
		if err := os.WriteFile(filepath.Join(dir, sp.file), []byte(svg), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&md, "\n#### %s (%s)\n\n![%s](%s)\n\n", sp.title, sp.unit, sp.title, sp.file)
		fmt.Fprintf(&md, "| %s | %s |", sp.xkey, strings.Join(sp.servers, " | "))
		ratios := len(sp.servers) >= 4
		if ratios {
			md.WriteString(" mcpgen ÷ floor | mcpgen ahead of both SDKs |")
		}
		md.WriteString("\n|" + strings.Repeat("---|", len(sp.servers)+1))
		if ratios {
			md.WriteString("---|---|")
		}
		md.WriteString("\n")
		for i, l := range labels {
			fmt.Fprintf(&md, "| %s |", l)
			for _, s := range ser {
				fmt.Fprintf(&md, " %s |", fmtNum(s.ys[i]))
			}
			if ratios {
				floor, sdk, mcpgo, mg := ser[0].ys[i], ser[1].ys[i], ser[2].ys[i], ser[3].ys[i]
				fmt.Fprintf(&md, " %s |", fmtNum(mg/floor)+"×")
				better := func(a, b float64) bool {
					if math.IsNaN(b) {
						return true // the peer failed this point
					}
					if sp.lowerBetter {
						return a <= b
					}
					return a >= b
				}
				ok := "✓"
				if !(better(mg, sdk) && better(mg, mcpgo)) {
					ok = "✗"
				}
				fmt.Fprintf(&md, " %s |", ok)
			}
			md.WriteString("\n")
		}
	}
	// Limits and errors, as they came.
	md.WriteString("\n#### Beyond the limits (stdio: a 17 MiB line; HTTP: a 5 MiB body)\n\n| server | transport | answer | then a small call |\n|---|---|---|---|\n")
	for _, p := range pts {
		if p.str("curve") == "limits" {
			a := p.str("answer")
			if st := p.num("status"); !math.IsNaN(st) {
				a = fmt.Sprintf("HTTP %d, %s", int(st), a)
			}
			fmt.Fprintf(&md, "| %s | %s | %s | %s |\n", p.str("server"), p.str("transport"), esc(a), esc(p.str("then_small_call")))
		}
	}
	var errs []string
	for _, p := range pts {
		if e, ok := p["errors"]; ok {
			b, _ := json.Marshal(e)
			errs = append(errs, fmt.Sprintf("- %s %s %s n=%v size=%v: %.300s", p.str("curve"), p.str("metric"), p.str("server"), p["n"], p["size"], b))
		}
	}
	if len(errs) > 0 {
		md.WriteString("\n#### Errors\n\n" + esc(strings.Join(errs, "\n")) + "\n")
	}
	return os.WriteFile(filepath.Join(dir, "curves.md"), []byte(md.String()), 0o644)
}

func esc(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\t", " ")
}

type series struct {
	name string
	ys   []float64
}

var colors = map[string]string{"floor": "#777777", "sdk": "#1f77b4", "mcpgo": "#ff7f0e", "mcpgen": "#2ca02c", "mcpgen-bigcap": "#98df8a"}

// lineChart draws the series over categorical x labels, y linear from 0 or
// logarithmic, with a legend.
func lineChart(title string, labels []string, ser []series, logY bool) string {
	const w, h, left, right, top, bottom = 560.0, 300.0, 64.0, 130.0, 34.0, 40.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ser {
		for _, y := range s.ys {
			if !math.IsNaN(y) && !(logY && y <= 0) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	var ticks []float64
	var ymap func(float64) float64
	if logY {
		a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if a == b {
			b++
		}
		for e := a; e <= b; e++ {
			ticks = append(ticks, math.Pow(10, e))
		}
		ymap = func(y float64) float64 { return top + (h-top-bottom)*(1-(math.Log10(y)-a)/(b-a)) }
	} else {
		step := niceStep(hi / 5)
		top2 := math.Ceil(hi/step) * step
		if top2 == 0 {
			top2 = 1
		}
		for v := 0.0; v <= top2+step/2; v += step {
			ticks = append(ticks, v)
		}
		ymap = func(y float64) float64 { return top + (h-top-bottom)*(1-y/top2) }
	}
	xmap := func(i int) float64 {
		if len(labels) == 1 {
			return left + (w-left-right)/2
		}
		return left + (w-left-right)*float64(i)/float64(len(labels)-1)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%g" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	for _, t := range ticks {
		y := ymap(t)
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n", left, w-right, y, y, left-6, y+4, fmtNum(t))
	}
	for i, l := range labels {
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n", xmap(i), h-bottom+16, html.EscapeString(l))
	}
	for k, s := range ser {
		c := colors[s.name]
		var path []string
		for i, y := range s.ys {
			if math.IsNaN(y) || (logY && y <= 0) {
				continue
			}
			path = append(path, fmt.Sprintf("%.1f,%.1f", xmap(i), ymap(y)))
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xmap(i), ymap(y), c)
		}
		if len(path) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(path, " "), c)
		}
		ly := top + 16*float64(k)
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s" stroke-width="3"/><text x="%g" y="%g">%s</text>`+"\n", w-right+12, w-right+30, ly, ly, c, w-right+36, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// checkOutput verifies a run's output is complete and well-formed (scripts/curves.sh
// -quick in CI): every curve has a line per server, mcpgen's lines carry no
// error, the measured figures are positive, and the report and charts exist.
// It checks shape only, never a speed.
func checkOutput(dir string) error {
	pts, err := readPoints(filepath.Join(dir, "curves.jsonl"))
	if err != nil {
		return err
	}
	need := map[string]string{"catalog/serve": "cold_median_ms", "catalog/generate": "wall_ms", "payload/": "cpu_ms_per_mib", "sessions/": "rss_kb"}
	seen := map[string]bool{}
	var problems []string
	for _, p := range pts {
		k := p.str("curve") + "/" + p.str("metric")
		seen[k+"/"+p.str("server")] = true
		_, bad := p["errors"]
		if bad && strings.HasPrefix(p.str("server"), "mcpgen") {
			problems = append(problems, fmt.Sprintf("%s %s: errors %v", k, p.str("server"), p["errors"]))
		}
		if m, ok := need[k]; ok && !bad && !(p.num(m) > 0) {
			problems = append(problems, fmt.Sprintf("%s %s: %s = %v", k, p.str("server"), m, p[m]))
		}
	}
	for k := range need {
		for _, s := range servers {
			if k == "catalog/generate" && s != "mcpgen" {
				continue
			}
			if !seen[k+"/"+s] {
				problems = append(problems, "no "+k+" line for "+s)
			}
		}
	}
	if !seen["limits//mcpgen"] {
		problems = append(problems, "no limits line for mcpgen")
	}
	for _, f := range []string{"curves.md", "catalog-cold.svg", "payload-cpu.svg", "sessions-rss.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			problems = append(problems, "missing "+f)
		} else if strings.HasSuffix(f, ".svg") && !strings.Contains(string(b), "<polyline") && !strings.Contains(string(b), "<circle") {
			problems = append(problems, f+" draws nothing")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s:\n  %s", dir, strings.Join(problems, "\n  "))
	}
	return nil
}
