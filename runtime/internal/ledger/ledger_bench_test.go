//go:build unix

package ledger

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// BenchmarkFreshKey is the ledger's share of a keyed write: key and action id,
// the claim, and the done record of a small result, on the in-memory store
// with a new key per call (the ledger grows by one record per call).
func BenchmarkFreshKey(b *testing.B) {
	l := New(store.NewMemory(), Config{})
	args := ArgsDigest([]byte(`{"key":"k","note":"hello"}`))
	result := []byte(`{"content":[],"structured":{"id":"n-1"},"meta":{"dev.mcpgen/receipt":{"action_id":"act_0123456789abcdef0123456789abcdef","tool":"note","arguments_digest":"sha256:` + args + `","external_id":"n-1","status":"committed","occurred_at":"2026-12-01T17:00:00.123456789Z"}}}`)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	cpu0 := processCPU()
	for b.Loop() {
		key := "k-" + strconv.Itoa(i)
		i++
		action := ActionID("note", "", args, key)
		d := l.Begin(ctx, "", "note", key, args, action, false)
		if d.Outcome != Fresh {
			b.Fatal(d.Outcome)
		}
		if err := d.Claim.Done(func(buf []byte) ([]byte, error) { return append(buf, result...), nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the CPU time the process used so far (user and system; GC included).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
