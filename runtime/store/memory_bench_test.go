package store

import (
	"context"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkColdDigest is a keyed call's share of the store as a server makes
// it: the claim of a fresh digest key (PutIfAbsentDigest) and its done record
// (CompareAndSetDigest), with 1000 live entries (one expires for each one
// added; the live=100000 cases: 100000), and the server's other work, modelled as touch bytes of memory read,
// a load a line, walking a 64 MiB ring as allocation walks the heap: half
// before the claim (the request), half between the claim and its done record
// (the handler). It evicts the store's lines as a server's calls do. (Read, not
// written: the stores of a write would still be draining when the store's next
// call starts, and be measured as its.) ns/op includes that reading;
// store-ns/op is the two store calls alone (clock reads on either side
// included); sweep-ns/op the share of it of the calls that swept the store (run
// the live=100000 cases for a few hundred thousand ops: a sweep comes every
// ~50000 entries added at 100000 live).
func BenchmarkColdDigest(b *testing.B) {
	for _, touch := range []int{0, 16 << 10, 64 << 10, 4 << 20} {
		b.Run("touch="+strconv.Itoa(touch>>10)+"K", func(b *testing.B) { benchColdDigest(b, 1000, touch) })
	}
	for _, touch := range []int{0, 64 << 10} {
		b.Run("live=100000/touch="+strconv.Itoa(touch>>10)+"K", func(b *testing.B) { benchColdDigest(b, 100_000, touch) })
	}
}

func benchColdDigest(b *testing.B, live, touch int) {
	const ttl = 1000 * time.Second
	s := NewMemory()
	now := time.Unix(1000, 0)
	s.SetClock(func() time.Time { return now })
	ctx := context.Background()
	claim, done := []byte(strings.Repeat("r", 150)), []byte(strings.Repeat("d", 480))
	const prefix = "mcpgen:idem:"
	var d [20]byte
	key := func(i uint64) *[20]byte {
		// splitmix64 of i, twice: a uniform digest, fresh for each i.
		for j := range 3 {
			z := i*3 + uint64(j) + 0x9e3779b97f4a7c15
			z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], z^z>>31)
			copy(d[8*j:], w[:])
		}
		return &d
	}
	i := uint64(0)
	call := func(between func()) {
		k := key(i)
		i++
		if ok, _ := s.PutIfAbsentDigest(ctx, prefix, k, claim, ttl); !ok {
			b.Fatal("put", i)
		}
		between()
		if ok, _ := s.CompareAndSetDigest(ctx, prefix, k, claim, done, ttl); !ok {
			b.Fatal("CAS", i)
		}
		now = now.Add(ttl / time.Duration(live))
	}
	for range 4 * live {
		call(func() {})
	}
	ring := make([]byte, 64<<20)
	for i := range ring {
		ring[i] = byte(i) // pages of their own, not the zero page
	}
	off, sum := 0, byte(0)
	walk := func() {
		if off+touch/2 > len(ring) {
			off = 0
		}
		for j := off; j < off+touch/2; j += 64 {
			sum += ring[j]
		}
		off += touch / 2
	}
	var storeNS, sweepNS time.Duration
	sweeps := s.sweeps
	b.ResetTimer()
	for b.Loop() {
		walk()
		var t1, t2 time.Time
		t0 := time.Now()
		call(func() {
			t1 = time.Now()
			walk()
			t2 = time.Now()
		})
		ns := time.Since(t0) - t2.Sub(t1)
		storeNS += ns
		if s.sweeps != sweeps {
			sweeps = s.sweeps
			sweepNS += ns
		}
	}
	b.ReportMetric(float64(storeNS)/float64(b.N), "store-ns/op")
	b.ReportMetric(float64(sweepNS)/float64(b.N), "sweep-ns/op")
	benchSink = sum
}

var benchSink byte
