//go:build unix

package ledger

import (
	"context"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// BenchmarkFreshKey is the ledger's share of a keyed write: key and action id,
// the claim, and the done record of a small result, on the in-memory store
// with a new key per call. grow: the ledger grows by one record per call;
// steady: the store's clock advances by retention/100000 per call, so that
// after a prefill of 100000 records one expires for each one added.
func BenchmarkFreshKey(b *testing.B) {
	b.Run("grow", func(b *testing.B) { benchFreshKey(b, 0) })
	b.Run("steady", func(b *testing.B) { benchFreshKey(b, 100_000) })
	b.Run("steady1000", func(b *testing.B) { benchFreshKey(b, 1000) })
}

func benchFreshKey(b *testing.B, steady int) {
	mem := store.NewMemory()
	l := New(mem, Config{})
	args := ArgsDigest([]byte(`{"key":"k","note":"hello"}`))
	result := []byte(`{"content":[],"structured":{"id":"n-1"},"meta":{"dev.mcpgen/receipt":{"action_id":"act_0123456789abcdef0123456789abcdef","tool":"note","arguments_digest":"sha256:` + args + `","external_id":"n-1","status":"committed","occurred_at":"2026-12-01T17:00:00.123456789Z"}}}`)
	ctx := context.Background()
	var clock atomic.Int64
	clock.Store(time.Now().UnixNano())
	mem.SetClock(func() time.Time { return time.Unix(0, clock.Load()) })
	var step int64
	if steady > 0 {
		step = int64(DefaultRetention) / int64(steady)
		for i := range steady {
			d := l.Begin(ctx, Who{}, "note", "pre-"+strconv.Itoa(i), args, ActionID("note", Who{}, args, "p"), false)
			if err := d.Claim.Done(func(buf []byte) ([]byte, error) { return append(buf, result...), nil }); err != nil {
				b.Fatal(err)
			}
			clock.Add(step)
		}
	}
	b.ReportAllocs()
	i := 0
	cpu0 := processCPU()
	for b.Loop() {
		key := "k-" + strconv.Itoa(i)
		i++
		action := ActionID("note", Who{}, args, key)
		d := l.Begin(ctx, Who{}, "note", key, args, action, false)
		if d.Outcome != Fresh {
			b.Fatal(d.Outcome)
		}
		if err := d.Claim.Done(func(buf []byte) ([]byte, error) { return append(buf, result...), nil }); err != nil {
			b.Fatal(err)
		}
		clock.Add(step)
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
