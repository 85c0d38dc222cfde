//go:build unix

package runtime

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkFeatureCost prices this round's features per call, each against the
// same call without it (docs/performance.md, "What the features cost"). Blocks
// of 100 calls alternate between the two sides and each block's process CPU
// time goes to its side, so the machine's load drifts over both alike; each
// case reports both sides' CPU per call and the share the feature adds.
//
//   - audit: one 2026-07-28 tools/call at the dispatcher, without and with
//     Options.Audit (a JSON slog handler writing to io.Discard: the record is
//     built and encoded, not stored).
//   - revision: one tools/call on a 2025-11-25 session (application/json) and on a
//     2025-06-18 one (answered as an event stream, the result shaped for that
//     revision), through the HTTP handler in process (recorder, no socket).
//
// Authorization is priced by runtime/auth's BenchmarkCall/paired (that package
// imports this one); idempotent writes by BenchmarkWriteCall.
func BenchmarkFeatureCost(b *testing.B) {
	b.Run("audit", func(b *testing.B) {
		plain := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
		audited := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger(),
			Audit: slog.New(slog.NewJSONHandler(io.Discard, nil))})
		raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"b","version":"1"}}}}`)
		for _, s := range []*Server{plain, audited} {
			s.AddTool(addTool())
			if r := s.HandleRaw(context.Background(), raw, nil, nil); r.Code != 0 {
				b.Fatalf("reply %s", r.Body)
			}
		}
		paired(b, "none", "audit",
			func() { plain.HandleRaw(context.Background(), raw, nil, nil) },
			func() { audited.HandleRaw(context.Background(), raw, nil, nil) })
	})
	b.Run("revision", func(b *testing.B) {
		call := map[string]func(){}
		for _, rev := range []string{"2025-11-25", "2025-06-18"} {
			s := NewServer(Implementation{Name: "bench", Version: "1"}, &Options{Logger: discardLogger()})
			s.AddTool(addTool())
			h := s.HTTPHandler(nil)
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
				"protocolVersion": rev, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "b", "version": "1"}}})
			rec := post(h, hdr, string(init))
			sid := rec.Header().Get("Mcp-Session-Id")
			if rec.Code != http.StatusOK || sid == "" {
				b.Fatalf("%s initialize: %d %s", rev, rec.Code, rec.Body)
			}
			hdr.Set("Mcp-Session-Id", sid)
			hdr.Set("Mcp-Protocol-Version", rev)
			post(h, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
			wantCT := map[string]string{"2025-11-25": "application/json", "2025-06-18": "text/event-stream"}[rev]
			rec = post(h, hdr, body)
			if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), wantCT) || !strings.Contains(rec.Body.String(), `"result"`) {
				b.Fatalf("%s call: %d %q %s", rev, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			call[rev] = func() { post(h, hdr, body) }
		}
		paired(b, "2025-11-25", "2025-06-18", call["2025-11-25"], call["2025-06-18"])
	})
}

// paired alternates blocks of 100 calls of base and feature and reports each
// side's process CPU per call and the share feature adds to base.
func paired(b *testing.B, baseName, featName string, base, feature func()) {
	const block = 100
	var cpuBase, cpuFeat time.Duration
	n := 0
	for b.Loop() {
		t0 := processCPU()
		for range block {
			base()
		}
		t1 := processCPU()
		for range block {
			feature()
		}
		t2 := processCPU()
		cpuBase += t1 - t0
		cpuFeat += t2 - t1
		n += block
	}
	if n > 0 && cpuBase > 0 {
		b.ReportMetric(float64(cpuBase)/float64(n), baseName+"-cpu-ns/call")
		b.ReportMetric(float64(cpuFeat)/float64(n), featName+"-cpu-ns/call")
		b.ReportMetric(100*float64(cpuFeat-cpuBase)/float64(cpuBase), "%added")
	}
}
