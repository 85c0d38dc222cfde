//go:build unix

package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// BenchmarkWriteCall measures what effects.go and idempotency.go add to one
// 2026-07-28 tools/call at the dispatcher (no transport): the same handler as a
// readonly tool, as a write without a key (receipt), as a write with a fresh key
// per call on the in-memory store and on Redis (MCPGEN_TEST_REDIS), and a replay.
func BenchmarkWriteCall(b *testing.B) {
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tool := func(readonly bool, key string) *Tool {
		t := noteWriteTool("note", key)
		if readonly {
			t.Annotations = &ToolAnnotations{ReadOnlyHint: true}
		}
		return t
	}
	type bcase struct {
		name     string
		readonly bool
		key      string
		fresh    bool // a new key per call
		st       func(b *testing.B) store.Store
	}
	mem := func(*testing.B) store.Store { return store.NewMemory() }
	cases := []bcase{
		{"readonly", true, "", false, mem},
		{"write", false, "", false, mem},
		{"write_key_memory", false, "key", true, mem},
		{"replay_memory", false, "key", false, mem},
	}
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		redis := func(b *testing.B) store.Store {
			s, err := redisstore.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
		cases = append(cases, bcase{"write_key_redis", false, "key", true, redis}, bcase{"replay_redis", false, "key", false, redis})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			st := tc.st(b)
			defer st.Close()
			s := effectServer(&Options{Store: st}, tool(tc.readonly, tc.key))
			prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"note":"hello"`
			run := strconv.FormatInt(int64(b.N), 10) + "-" + tc.name
			msg := func(i int) []byte {
				if tc.key == "" {
					return []byte(prefix + `}` + meta)
				}
				k := run
				if tc.fresh {
					k += "-" + strconv.Itoa(i)
				}
				return []byte(prefix + `,"key":"` + k + `"}` + meta)
			}
			if body := s.HandleRaw(context.Background(), msg(-1), nil, nil).Body; len(body) == 0 {
				b.Fatal("no reply")
			}
			b.ReportAllocs()
			i := 0
			cpu0 := processCPU()
			for b.Loop() {
				s.HandleRaw(context.Background(), msg(i), nil, nil)
				i++
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time the process used so far (user and system; GC included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkKeyedWriteRatio measures the ratio in one process: the same
// write tool without and with an idempotency key (the same arguments, a new key
// per call, the in-memory store), run alternately in chunks of 500 calls (order
// ABBA, so that a drift of the machine's load hits both alike), each chunk's CPU
// time (user+system, GC included) charged to its side. It reports the CPU per
// call of each side, keyed/plain over the whole run, and the median of the
// per-pair ratios (robust to a burst of load on the shared machine); one op is
// one call of each.
//
// The ledger is at a steady state of about ledger=N entries: before the run the
// store is filled with N done records like the benchmark's own, and the store's
// clock advances by retention/N per keyed call, so that one entry expires for
// each one added (the store's sweep then holds N to 1.5N entries). N = 100000 is
// about 1.2 keyed writes a second around the clock at the default 24 h
// retention (the map no longer fits the CPU's caches); N = 1000 a server with a
// few keyed writes an hour. A ledger that only grows would measure the map's
// growth instead. At ledger=100000 the store sweeps about every 50000 keyed
// calls: run it for 150000x or more (docs/performance.md uses -cpu 1
// -benchtime 150000x), or a run measures a store that grows to its first sweep.
func BenchmarkKeyedWriteRatio(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run("ledger="+strconv.Itoa(n), func(b *testing.B) { benchKeyedWriteRatio(b, n) })
	}
}

func benchKeyedWriteRatio(b *testing.B, ledgerSize int) {
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	tool := noteWriteTool
	mem := store.NewMemory()
	var clock atomic.Int64 // the store's clock: expiries only
	clock.Store(time.Now().UnixNano())
	mem.SetClock(func() time.Time { return time.Unix(0, clock.Load()) })
	step := int64(ledger.DefaultRetention) / int64(ledgerSize)
	s := effectServer(&Options{Store: mem}, tool("plain", ""), tool("keyed", "key"))
	run := strconv.FormatInt(time.Now().UnixNano(), 36)
	var buf []byte
	msg := func(name string, i int) []byte {
		buf = append(buf[:0], `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`...)
		buf = append(buf, name...)
		buf = append(buf, `","arguments":{"note":"hello","key":"`...)
		buf = append(buf, run...)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(i), 10)
		return append(append(buf, '"', '}'), meta...)
	}
	for _, name := range []string{"plain", "keyed"} {
		body := s.HandleRaw(context.Background(), msg(name, -1), nil, nil).Body
		if !bytes.Contains(body, []byte(MetaReceipt)) {
			b.Fatalf("%s: no receipt in %s", name, body)
		}
	}
	// The steady state: N records like the warm-up's done record under digest
	// keys like the ledger's (store.Memory copies them into its chunks), one
	// step apart.
	rec, ok, err := mem.Get(context.Background(), ledger.Key(ledger.Who{}, "keyed", run+"--1"))
	if !ok || err != nil || !bytes.Contains(rec, []byte(`"state":"done"`)) {
		b.Fatalf("warm-up record: %q %v %v", rec, ok, err)
	}
	for i := range ledgerSize {
		kb := fmt.Appendf(nil, "mcpgen:idem:%040x", i)
		kb = append(kb, rec...)
		klen := len(kb) - len(rec)
		if ok, err := mem.PutIfAbsentOwned(context.Background(), unsafe.String(&kb[0], klen), kb[klen:], ledger.DefaultRetention); !ok || err != nil {
			b.Fatal("prefill", ok, err)
		}
		clock.Add(step)
	}
	goruntime.GC()
	const chunk = 500
	var cpu [2]time.Duration
	var calls [2]int
	var ratios []float64
	side := func(k int, from, n int) time.Duration {
		name := [2]string{"plain", "keyed"}[k]
		c0 := processCPU()
		// The side's label lets a CPU profile tell them apart (-tagfocus side=keyed).
		pprof.Do(context.Background(), pprof.Labels("side", name), func(ctx context.Context) {
			for i := from; i < from+n; i++ {
				s.HandleRaw(ctx, msg(name, i), nil, nil)
				if k == 1 {
					clock.Add(step)
				}
			}
		})
		d := processCPU() - c0
		cpu[k] += d
		calls[k] += n
		return d
	}
	b.ReportAllocs()
	b.ResetTimer()
	for done, pair := 0, 0; done < b.N; pair++ {
		n := min(chunk, b.N-done)
		var d [2]time.Duration
		first := pair % 2 // ABBA
		d[first] = side(first, done, n)
		d[1-first] = side(1-first, done, n)
		if d[0] > 0 {
			ratios = append(ratios, float64(d[1])/float64(d[0]))
		}
		done += n
	}
	b.StopTimer()
	if len(ratios) > 0 {
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "median-keyed/plain")
	}
	plain := float64(cpu[0]) / float64(calls[0])
	keyed := float64(cpu[1]) / float64(calls[1])
	b.ReportMetric(plain, "plain-cpu-ns/call")
	b.ReportMetric(keyed, "keyed-cpu-ns/call")
	b.ReportMetric(keyed/plain, "keyed/plain")
}

// noteWriteTool is the write the effect benchmarks call: a "note" whose result
// carries the external id of what it made, with key as its idempotency key
// member ("" for none).
func noteWriteTool(name, key string) *Tool {
	return &Tool{Name: name, Description: "Note notes.", InputSchema: json.RawMessage(writeInput), IdempotencyKey: key,
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
		ExternalID:   "id",
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			var in struct{ Note, Key string }
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			return Structured(struct {
				ID string `json:"id"`
			}{"n-1"})
		}}
}
