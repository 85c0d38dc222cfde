// Command fxserver is the server the as-served effect benchmarks run
// (runtime/effects_served_bench_test.go): two writes with the same handler and
// the same input schema, "plain" without an idempotency key and "keyed" with
// one (member "key"), like the in-process benchmarks' noteWriteTool. It serves
// stdio or Streamable HTTP through serve.Main (its flags).
//
// Environment:
//   - FXSERVER_STORE: a store URL (redis://...); empty: the in-memory store.
//   - FXSERVER_LEDGER=N: before serving, N keyed calls (keys "prefill-0" ...)
//     fill the ledger. On the in-memory store the store's clock then advances
//     by retention/N per keyed call that runs its handler, so that one entry
//     expires for each one added: the ledger stays at a steady state of about
//     N entries, as in BenchmarkKeyedWriteRatio. On Redis the clock is Redis's.
//     The prefill calls as the served caller: stdio's default principal, or
//     none over HTTP.
//   - FXSERVER_CONTROL=1: the control of the benchmark's method. "keyed" is a
//     write without an idempotency key, like "plain" (it reads the key member
//     and ignores it), and the store's clock stands still; the prefill goes
//     through a third tool, "fill", which has the key. Keyed/plain then measures
//     the method's noise and bias alone: the same work on both sides, with the
//     same ledger in memory.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/serve"
	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// retention is the ledger's default retention (runtime/internal/ledger's
// DefaultRetention, which this command cannot import).
const retention = 24 * time.Hour

const input = `{"type":"object","properties":{"note":{"type":"string"},"key":{"type":"string"}},"required":["note"],"additionalProperties":false}`

func main() {
	os.Exit(run())
}

func run() int {
	ctx := context.Background()
	n := 0
	if v := os.Getenv("FXSERVER_LEDGER"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "fxserver: FXSERVER_LEDGER=%q: want a count\n", v)
			return 2
		}
	}
	var st store.Store
	var clock atomic.Int64
	var step int64
	if u := os.Getenv("FXSERVER_STORE"); u != "" {
		rs, err := redisstore.Open(ctx, u)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fxserver: FXSERVER_STORE: %v\n", err)
			return 1
		}
		defer rs.Close()
		st = rs
	} else {
		mem := store.NewMemory()
		clock.Store(time.Now().UnixNano())
		mem.SetClock(func() time.Time { return time.Unix(0, clock.Load()) })
		if n > 0 {
			step = int64(retention) / int64(n)
		}
		st = mem
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "fxserver", Version: "dev"}, &mcpruntime.Options{Store: st})
	s.AddTool(note("plain", "", nil))
	fill := "keyed"
	if os.Getenv("FXSERVER_CONTROL") != "" {
		fill = "fill"
		s.AddTool(note("fill", "key", nil))
		s.AddTool(note("keyed", "", nil))
	} else {
		s.AddTool(note("keyed", "key", func() { clock.Add(step) }))
	}
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	// The prefill calls as the transport's caller will: stdio's default
	// principal, or none over HTTP (no authorization configured).
	pctx := ctx
	if !slices.Contains(os.Args[1:], "-http") {
		pctx = mcpruntime.WithPrincipal(ctx, mcpruntime.UnrestrictedPrincipal("stdio"))
	}
	for i := range n {
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + fill + `","arguments":{"note":"hello","key":"prefill-` + strconv.Itoa(i) + `"}` + meta
		if body := s.HandleRaw(pctx, []byte(msg), nil, nil).Body; !strings.Contains(string(body), mcpruntime.MetaReceipt) {
			fmt.Fprintf(os.Stderr, "fxserver: prefill call %d: %s\n", i, body)
			return 1
		}
	}
	return serve.Main(s)
}

// note is the benchmarks' write: its result carries the external id of what
// it made; key names its idempotency key member ("" for none); ran, if not
// nil, runs with the handler.
func note(name, key string, ran func()) *mcpruntime.Tool {
	return &mcpruntime.Tool{Name: name, Description: "Note notes.", InputSchema: json.RawMessage(input), IdempotencyKey: key,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
		ExternalID:   "id",
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			var in struct{ Note, Key string }
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			if ran != nil {
				ran()
			}
			return mcpruntime.Structured(struct {
				ID string `json:"id"`
			}{"n-1"})
		}}
}
