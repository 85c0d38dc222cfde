//go:build unix

package runtime

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// BenchmarkHTTPServedBothEras posts one call at a time over a loopback
// connection kept alive, to the handler as the generated main serves it (its
// http.Server timeouts included): the c=1 cell of the harness in process. Besides
// time and allocations it reports the process's CPU and context switches per
// call (client and server together: compare them between builds, never across
// machines).
func BenchmarkHTTPServedBothEras(b *testing.B) {
	for _, era := range []string{"modern", "legacy"} {
		b.Run(era, func(b *testing.B) {
			s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
			s.AddTool(addTool())
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			opts := (&HTTPOptions{}).withDefaults()
			h := newHTTPHandler(s, opts)
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- serveListener(ctx, ln, h, opts, h.EndStreams, nil) }()
			defer func() {
				cancel()
				<-served
			}()
			url := "http://" + ln.Addr().String() + opts.Path
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			header := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			call := func(body string) (int, []byte, http.Header) {
				req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header = header.Clone()
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode, out, resp.Header
			}
			body := benchModernCall
			if era == "modern" {
				header.Set("Mcp-Protocol-Version", versionModern)
				header.Set("Mcp-Method", "tools/call")
				header.Set("Mcp-Name", "add")
			} else {
				status, out, hdr := call(benchInitialize)
				if status != http.StatusOK || hdr.Get("Mcp-Session-Id") == "" {
					b.Fatalf("initialize: %d %s", status, out)
				}
				header.Set("Mcp-Session-Id", hdr.Get("Mcp-Session-Id"))
				header.Set("Mcp-Protocol-Version", versionLegacy)
				call(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				body = benchLegacyCall
			}
			if status, out, _ := call(body); status != http.StatusOK || !bytes.Contains(out, []byte(`"result"`)) {
				b.Fatalf("call: %d %s", status, out)
			}
			b.ReportAllocs()
			ru0 := rusage()
			for b.Loop() {
				call(body)
			}
			ru1 := rusage()
			n := float64(b.N)
			b.ReportMetric(float64(ru1.Utime.Nano()+ru1.Stime.Nano()-ru0.Utime.Nano()-ru0.Stime.Nano())/n, "cpu-ns/op")
			b.ReportMetric(float64(ru1.Nvcsw+ru1.Nivcsw-ru0.Nvcsw-ru0.Nivcsw)/n, "ctxsw/op")
		})
	}
}

// rusage is the process's resource usage so far (every thread).
func rusage() syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}
