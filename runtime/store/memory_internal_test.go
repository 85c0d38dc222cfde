package store

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestMemorySweepBound: with puts alone (no reads), or each put followed by
// compare-and-sets of its entry (the ledger's claim, then its result), entries
// that expired are swept, so the store holds at most about one and a half times
// its live entries, in the map (string keys) as in the digest table. (A sweep that
// waited for as many writes as the store holds never ran: each put added an
// entry as it counted a write.)
func TestMemorySweepBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(int) string
		cas  int // compare-and-sets after each put
	}{
		{"map", func(i int) string { return "k" + strconv.Itoa(i) }, 0},
		{"map+cas", func(i int) string { return "k" + strconv.Itoa(i) }, 2},
		{"digest", func(i int) string { return fmt.Sprintf("d:%x", sha1.Sum([]byte(strconv.Itoa(i)))) }, 0},
		{"digest+cas", func(i int) string { return fmt.Sprintf("d:%x", sha1.Sum([]byte(strconv.Itoa(i)))) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewMemory()
			now := time.Unix(1000, 0)
			s.SetClock(func() time.Time { return now })
			ctx := context.Background()
			const live = 5000 // entries alive at any time: each lives live steps
			peak := 0
			for i := range 30 * live {
				k := tc.key(i)
				if ok, err := s.PutIfAbsent(ctx, k, []byte("v0"), live*time.Second); !ok || err != nil {
					t.Fatalf("put %d: %v %v", i, ok, err)
				}
				for j := range tc.cas {
					if ok, err := s.CompareAndSet(ctx, k, []byte("v"+strconv.Itoa(j)), []byte("v"+strconv.Itoa(j+1)), live*time.Second); !ok || err != nil {
						t.Fatalf("CAS %d/%d: %v %v", i, j, ok, err)
					}
				}
				now = now.Add(time.Second)
				s.mu.Lock()
				peak = max(peak, len(s.m)+s.dt.n)
				s.mu.Unlock()
			}
			if peak > live+live/2+minSweep/2 {
				t.Fatalf("the store held %d entries for %d live ones", peak, live)
			}
			if peak < live {
				t.Fatalf("peak %d below the live entries %d: the test measures nothing", peak, live)
			}
		})
	}
}

// TestReplacementsScheduleNoSweep: a compare-and-set replaces an entry and
// adds none: it does not count toward the next sweep, which comes after as
// many entries added as half the entries the store held (at least minSweep).
func TestReplacementsScheduleNoSweep(t *testing.T) {
	s := NewMemory()
	ctx := context.Background()
	keys := []string{"short", fmt.Sprintf("d:%x", sha1.Sum([]byte("x")))}
	for _, k := range keys {
		if ok, _ := s.PutIfAbsent(ctx, k, []byte("0"), time.Hour); !ok {
			t.Fatal("put", k)
		}
	}
	for i := range 3 * minSweep {
		for _, k := range keys {
			if ok, _ := s.CompareAndSet(ctx, k, []byte(strconv.Itoa(i)), []byte(strconv.Itoa(i+1)), time.Hour); !ok {
				t.Fatal("CAS", k, i)
			}
		}
	}
	if s.writes != 2 || s.sweeps != 0 {
		t.Fatalf("after 2 puts and %d compare-and-sets: %d writes counted, %d sweeps", 6*minSweep, s.writes, s.sweeps)
	}
	for i := range minSweep - 2 {
		s.PutIfAbsent(ctx, fmt.Sprintf("d:%x", sha1.Sum([]byte(strconv.Itoa(i)))), []byte("v"), time.Hour)
	}
	if s.writes != 0 || s.sweeps != 1 {
		t.Fatalf("after %d puts: %d writes counted, %d sweeps", minSweep, s.writes, s.sweeps)
	}
}

// TestDigestTableModel drives digest keys (and a few short keys) through puts,
// compare-and-sets, deletes, reads and expiries, with sweeps and table resizes
// on the way, and compares every answer with a plain map. It also checks the
// table's invariants: each entry is found from its home slot, the count and the
// arena's live bytes match the entries, and the chunks stay within a bound of
// the live bytes (the sweep compacts them).
func TestDigestTableModel(t *testing.T) {
	s := NewMemory()
	now := time.Unix(1000, 0)
	s.SetClock(func() time.Time { return now })
	ctx := context.Background()
	type mval struct {
		val     string
		expires time.Time
	}
	model := map[string]mval{}
	sweeps := 0
	rng := rand.New(rand.NewPCG(1, 2))
	key := func() string {
		i := rng.IntN(3000)
		switch i % 10 {
		case 0:
			return "short:" + strconv.Itoa(i) // the map
		case 1:
			return fmt.Sprintf("other:%x", sha1.Sum([]byte{byte(i), byte(i >> 8)})) // a second prefix
		}
		return fmt.Sprintf("mcpgen:idem:%x", sha1.Sum([]byte{byte(i), byte(i >> 8)}))
	}
	val := func() string {
		n := rng.IntN(600)
		switch rng.IntN(500) {
		case 0:
			n = chunkSize/4 + rng.IntN(chunkSize) // a chunk of its own
		case 1:
			return "" // an empty value
		}
		return strings.Repeat(string(rune('a'+rng.IntN(26))), n) + strconv.Itoa(rng.IntN(1000))
	}
	get := func(k string) (string, bool) {
		m, ok := model[k]
		if ok && !now.Before(m.expires) {
			delete(model, k)
			return "", false
		}
		return m.val, ok
	}
	for step := range 200_000 {
		k := key()
		ttl := time.Duration(1+rng.IntN(4000)) * time.Second
		switch op := rng.IntN(10); {
		case op < 4:
			v := val()
			_, had := get(k)
			ok, err := s.PutIfAbsent(ctx, k, []byte(v), ttl)
			if err != nil || ok == had {
				t.Fatalf("step %d: put %s: %v %v, model had it: %v", step, k, ok, err, had)
			}
			if ok {
				model[k] = mval{v, now.Add(ttl)}
			}
		case op < 6:
			cur, had := get(k)
			old := cur
			if rng.IntN(4) == 0 {
				old += "x"
			}
			v := val()
			ok, err := s.CompareAndSet(ctx, k, []byte(old), []byte(v), ttl)
			if want := had && old == cur; err != nil || ok != want {
				t.Fatalf("step %d: CAS %s: %v %v, want %v", step, k, ok, err, want)
			}
			if ok {
				model[k] = mval{v, now.Add(ttl)}
			}
		case op < 7:
			if err := s.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
			delete(model, k)
		default:
			want, had := get(k)
			got, ok, err := s.GetShared(ctx, k)
			if err != nil || ok != had || string(got) != want {
				t.Fatalf("step %d: get %s: %.20q %v %v, want %.20q %v", step, k, got, ok, err, want, had)
			}
		}
		now = now.Add(100 * time.Millisecond)
		s.mu.Lock()
		swept := s.sweeps != sweeps
		sweeps = s.sweeps
		s.mu.Unlock()
		if swept {
			checkDigestTable(t, s)
			if a := &s.dt.arena; a.capBytes > 4*a.live+4*chunkSize {
				t.Fatalf("step %d, after a sweep: %d bytes of chunks for %d live bytes", step, a.capBytes, a.live)
			}
		}
	}
	checkDigestTable(t, s)
	if s.dt.n < 1000 || len(s.m) == 0 || sweeps < 20 {
		t.Fatalf("the run kept %d digest keys and %d others, swept %d times: it tests little", s.dt.n, len(s.m), sweeps)
	}
	// Everything expires: the table shrinks and the chunks go.
	now = now.Add(time.Hour * 2)
	for i := range 4 * minSweep {
		s.PutIfAbsent(ctx, fmt.Sprintf("late:%x", sha1.Sum([]byte(strconv.Itoa(i)))), []byte("v"), time.Nanosecond)
		now = now.Add(time.Second)
	}
	checkDigestTable(t, s)
	if s.dt.n > 2*minSweep || len(s.dt.slots) > 8*2*minSweep || s.dt.arena.capBytes > 8*chunkSize {
		t.Fatalf("after expiry: %d entries in %d slots, %d bytes of chunks", s.dt.n, len(s.dt.slots), s.dt.arena.capBytes)
	}
}

// checkDigestTable checks the digest table's invariants.
func checkDigestTable(t *testing.T, s *Memory) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	dt := &s.dt
	n, live := 0, 0
	perChunk := map[uint32]int{}
	type rec struct{ chunk, off uint32 }
	starts := map[rec]int{}
	for i := range dt.slots {
		e := &dt.slots[i]
		h := e.tag
		if h == 0 {
			continue
		}
		n++
		live += int(e.recLen())
		perChunk[e.chunk] += int(e.recLen())
		if dt.shift+uint(bits.Len(uint(len(dt.slots)-1))) != 32 {
			t.Fatalf("%d slots, shift %d", len(dt.slots), dt.shift)
		}
		if buf := dt.arena.chunks[e.chunk].buf; int(e.off)+int(e.recLen()) > len(buf) {
			t.Fatalf("slot %d: a record of %d bytes at %d in a chunk of %d written bytes", i, e.recLen(), e.off, len(buf))
		}
		if j, dup := starts[rec{e.chunk, uint32(e.off)}]; dup {
			t.Fatalf("slots %d and %d: one record at %d in chunk %d", j, i, e.off, e.chunk)
		}
		starts[rec{e.chunk, uint32(e.off)}] = i
		d := dt.arena.digest(e.chunk, uint32(e.off))
		if h != dt.tag(e.prefix, d) {
			t.Fatalf("slot %d: tag %x, its record's digest's %x", i, h, dt.tag(e.prefix, d))
		}
		if j := dt.find(h, e.prefix, d); j != i {
			t.Fatalf("slot %d: its key is found at %d", i, j)
		}
	}
	if n != dt.n || live != dt.arena.live {
		t.Fatalf("%d entries (count %d), %d live bytes (count %d)", n, dt.n, live, dt.arena.live)
	}
	for c, b := range perChunk {
		if dt.arena.chunks[c].live != b {
			t.Fatalf("chunk %d: %d live bytes, counted %d", c, b, dt.arena.chunks[c].live)
		}
	}
}

// TestDigestTableWrap crowds a 64-slot table's keys into homes at its end, so
// that probes and backward shifts wrap around to its start, and checks the
// answers against a map through random puts, deletes, reads and sweeps (some
// entries expire).
func TestDigestTableWrap(t *testing.T) {
	var dt digestTable
	dt.resize(64)
	rng := rand.New(rand.NewPCG(3, 4))
	// 36 keys whose homes are slots 58 to 63, 0 and 1.
	var keys [][digestLen]byte
	for len(keys) < 36 {
		var d [digestLen]byte
		binary.LittleEndian.PutUint64(d[:], rng.Uint64())
		binary.LittleEndian.PutUint64(d[8:], rng.Uint64())
		if h := dt.home(dt.tag(0, &d)); h >= 58 || h <= 1 {
			keys = append(keys, d)
		}
	}
	digest := func(i int) [digestLen]byte { return keys[i] }
	model := map[int]bool{}
	exps := map[int]int64{}
	wrapped, sweptWrapped := 0, 0
	now := int64(0)
	for range 20_000 {
		now++
		if rng.IntN(20) == 0 {
			for i := range model {
				if x := exps[i]; x != 0 && now >= x {
					d := digest(i)
					if dt.find(dt.tag(0, &d), 0, &d) < 8 {
						sweptWrapped++
					}
					delete(model, i)
				}
			}
			dt.sweep(now)
			for i := range 36 {
				d := digest(i)
				if slot := dt.find(dt.tag(0, &d), 0, &d); (slot >= 0) != model[i] {
					t.Fatalf("after a sweep, key %d: slot %d, model has it: %v", i, slot, model[i])
				}
			}
			if dt.n != len(model) {
				t.Fatalf("after a sweep: %d entries, model %d", dt.n, len(model))
			}
		}
		i := rng.IntN(36)
		d := digest(i)
		at := dt.find(dt.tag(0, &d), 0, &d)
		if (at >= 0) != model[i] {
			t.Fatalf("key %d: slot %d, model has it: %v", i, at, model[i])
		}
		switch {
		case at < 0 && dt.n < 36:
			chunk, off := dt.arena.put(d[:], []byte{byte(i)})
			exp := int64(0) // never
			if rng.IntN(4) != 0 {
				exp = now + 1 + rng.Int64N(200)
			}
			dt.insert(&slot{tag: dt.tag(0, &d), n: 1, exp: exp, chunk: chunk, off: uint16(off)})
			model[i], exps[i] = true, exp
		case at >= 0 && rng.IntN(2) == 0:
			if at < 8 {
				wrapped++
			}
			dt.deleteAt(at)
			delete(model, i)
		}
		if len(dt.slots) != 64 {
			t.Fatalf("the table grew to %d slots", len(dt.slots))
		}
	}
	if wrapped < 100 || sweptWrapped < 200 {
		t.Fatalf("%d deletes and %d sweeps' deletions of wrapped entries: the test tests little", wrapped, sweptWrapped)
	}
}

// TestArenaCompaction: a few long-lived values among many short-lived ones
// would pin every chunk; the sweep moves them out, so that the chunks stay
// within a few times the live bytes.
func TestArenaCompaction(t *testing.T) {
	s := NewMemory()
	now := time.Unix(1000, 0)
	s.SetClock(func() time.Time { return now })
	val := []byte(strings.Repeat("v", 300))
	for i := range 40_000 {
		ttl := time.Second
		if i%50 == 0 {
			ttl = time.Hour
		}
		key := fmt.Sprintf("c:%x", sha1.Sum([]byte(strconv.Itoa(i))))
		if ok, err := s.PutIfAbsent(context.Background(), key, val, ttl); !ok || err != nil {
			t.Fatal(ok, err)
		}
		now = now.Add(10 * time.Millisecond)
	}
	checkDigestTable(t, s)
	if a := &s.dt.arena; a.live < 800*len(val) || a.capBytes > 4*a.live+4*chunkSize {
		t.Fatalf("%d bytes of chunks for %d live bytes", a.capBytes, a.live)
	}
}

// TestDigestTableSequentialKeys: digest keys that are not uniform digests
// (counters in hex) still spread over the table: no long probe sequence.
func TestDigestTableSequentialKeys(t *testing.T) {
	s := NewMemory()
	for i := range 50_000 {
		if ok, _ := s.PutIfAbsent(context.Background(), fmt.Sprintf("seq:%040x", i), []byte("v"), 0); !ok {
			t.Fatal("put", i)
		}
	}
	dt := &s.dt
	longest := 0
	for i, e := range dt.slots {
		if e.tag != 0 {
			longest = max(longest, (i-dt.home(e.tag))&(len(dt.slots)-1))
		}
	}
	if dt.n != 50_000 || longest > 100 {
		t.Fatalf("%d entries, longest probe %d slots", dt.n, longest)
	}
}

// TestDigestKeysSteadyAllocs: at a steady state (one entry expires for each
// one added), a put and a compare-and-set of digest keys allocate nothing: the
// chunks whose values are gone are reused, the table keeps its size.
func TestDigestKeysSteadyAllocs(t *testing.T) {
	s := NewMemory()
	now := time.Unix(1000, 0)
	s.SetClock(func() time.Time { return now })
	ctx := context.Background()
	running, done := []byte(strings.Repeat("r", 150)), []byte(strings.Repeat("d", 480))
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprintf("mcpgen:idem:%x", sha1.Sum([]byte(strconv.Itoa(i))))
	}
	i := 0
	step := func() {
		k := keys[i%len(keys)]
		i++
		if ok, _ := s.PutIfAbsent(ctx, k, running, 10_000*time.Second); !ok {
			t.Fatal("put", i)
		}
		if ok, _ := s.CompareAndSet(ctx, k, running, done, 10_000*time.Second); !ok {
			t.Fatal("CAS", i)
		}
		now = now.Add(time.Second) // 10000 live entries
	}
	for range 40_000 {
		step()
	}
	// testing.AllocsPerRun rounds down: count the bytes.
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	const n = 20_000
	for range n {
		step()
	}
	goruntime.ReadMemStats(&after)
	if perOp := float64(after.TotalAlloc-before.TotalAlloc) / n; perOp > 16 {
		t.Fatalf("%.1f bytes allocated per put and compare-and-set", perOp)
	}
}

// TestSlotIsHalfACacheLine: a slot is 32 bytes, so that the slots of a table
// (aligned to 64 bytes at least: its size class's, or a page) lie two to a
// cache line, none across two.
func TestSlotIsHalfACacheLine(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n != 32 {
		t.Fatalf("a slot is %d bytes", n)
	}
	var dt digestTable
	for _, size := range []int{64, 1 << 10, 1 << 16} {
		dt.resize(size)
		if p := uintptr(unsafe.Pointer(&dt.slots[0])); p%64 != 0 {
			t.Fatalf("a table of %d slots at %#x", size, p)
		}
	}
}

// TestArenaOffsetsFit: a record's offset in a chunk fits a slot's 16 bits, a
// record's after a chunk filled exactly included; a record larger than a
// quarter of a chunk gets one of its own; the record of an empty value (its
// digest alone) holds its chunk, so that it stays readable while the chunk it
// was written after is dropped.
func TestArenaOffsetsFit(t *testing.T) {
	var a arena
	var d [digestLen]byte
	for i := range d {
		d[i] = byte(i + 1)
	}
	quarter := make([]byte, chunkSize/4-digestLen) // the largest value whose record shares a chunk
	var offs []uint32
	for range 4 {
		_, off := a.put(d[:], quarter)
		offs = append(offs, off)
	}
	if c := &a.chunks[a.cur]; len(c.buf) != chunkSize || offs[3] != 3*chunkSize/4 {
		t.Fatalf("a chunk of %d bytes after four quarters at %v", len(c.buf), offs)
	}
	full := a.cur
	ec, eo := a.put(d[:], nil)
	if eo != 0 || ec == full {
		t.Fatalf("a record after a full chunk: offset %d of chunk %d (%d full)", eo, ec, full)
	}
	if big, off := a.put(d[:], append(quarter, 1)); big == ec || off != 0 || cap(a.chunks[big].buf) != chunkSize/4+1 {
		t.Fatalf("a record of a quarter and a byte: at %d in chunk %d of %d bytes (current %d)", off, big, cap(a.chunks[big].buf), ec)
	}
	for i := range 4 {
		a.release(full, offs[i], chunkSize/4)
	}
	if a.chunks[full].buf != nil {
		t.Fatal("the chunk of the released quarters was kept")
	}
	if v := a.get(ec, eo+digestLen, 0); v == nil || len(v) != 0 || *a.digest(ec, eo) != d {
		t.Fatalf("the empty value reads %v, its digest %x", v, *a.digest(ec, eo))
	}
	if a.chunks[ec].live != digestLen {
		t.Fatalf("the chunk of the empty value's record has %d live bytes", a.chunks[ec].live)
	}
	if len(a.free) != 1 {
		t.Fatalf("%d chunks free after one drop", len(a.free))
	}
}

// TestClaimRoomTakenBack: a value replaced right after it was written (a
// claim's record, then its result) leaves no dead room in the chunk.
func TestClaimRoomTakenBack(t *testing.T) {
	s := NewMemory()
	ctx := context.Background()
	running, done := []byte(strings.Repeat("r", 150)), []byte(strings.Repeat("d", 480))
	for i := range 1000 {
		k := fmt.Sprintf("mcpgen:idem:%x", sha1.Sum([]byte(strconv.Itoa(i))))
		if ok, _ := s.PutIfAbsent(ctx, k, running, time.Hour); !ok {
			t.Fatal("put", i)
		}
		if ok, _ := s.CompareAndSet(ctx, k, running, done, time.Hour); !ok {
			t.Fatal("CAS", i)
		}
	}
	written := 0
	for _, c := range s.dt.arena.chunks {
		written += len(c.buf)
	}
	if live := s.dt.arena.live; live != 1000*(digestLen+len(done)) || written != live {
		t.Fatalf("%d bytes written in the chunks for %d live bytes", written, live)
	}
}

// TestDigestTagCollision: two digest keys of one tag (found among random
// digests: a tag has 31 bits of hash) are told apart by their digests, which
// the table compares in the arena: each key reads its own value, the second
// is absent until put, and deleting either leaves the other.
func TestDigestTagCollision(t *testing.T) {
	s := NewMemory()
	ctx := context.Background()
	const prefix = "mcpgen:idem:"
	key := func(d *[digestLen]byte) string { return fmt.Sprintf("%s%x", prefix, d[:]) }
	var first [digestLen]byte
	if ok, _ := s.PutIfAbsent(ctx, key(&first), []byte("first"), time.Hour); !ok {
		t.Fatal("put")
	}
	id, ok := s.dt.prefixID(prefix, false)
	if !ok {
		t.Fatal("no prefix id")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[uint32][digestLen]byte{}
	var a, b [digestLen]byte
	for i := 0; ; i++ {
		if i == 1_000_000 {
			t.Fatal("no two digests of one tag among a million")
		}
		var d [digestLen]byte
		binary.LittleEndian.PutUint64(d[:], rng.Uint64())
		binary.LittleEndian.PutUint64(d[8:], rng.Uint64())
		binary.LittleEndian.PutUint32(d[16:], rng.Uint32())
		h := s.dt.tag(id, &d)
		if o, ok := seen[h]; ok && o != d {
			a, b = o, d
			break
		}
		seen[h] = d
	}
	get := func(d *[digestLen]byte) string {
		t.Helper()
		v, ok, err := s.Get(ctx, key(d))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "<absent>"
		}
		return string(v)
	}
	if ok, _ := s.PutIfAbsent(ctx, key(&a), []byte("a"), time.Hour); !ok {
		t.Fatal("put a")
	}
	if v := get(&b); v != "<absent>" {
		t.Fatalf("b before its put reads %q", v)
	}
	if ok, _ := s.CompareAndSet(ctx, key(&b), []byte("a"), []byte("b?"), time.Hour); ok {
		t.Fatal("a compare-and-set of b matched a's value")
	}
	if ok, _ := s.PutIfAbsent(ctx, key(&b), []byte("b"), time.Hour); !ok {
		t.Fatal("put b: refused, as if present")
	}
	if va, vb := get(&a), get(&b); va != "a" || vb != "b" {
		t.Fatalf("a reads %q, b %q", va, vb)
	}
	checkDigestTable(t, s)
	if err := s.Delete(ctx, key(&a)); err != nil {
		t.Fatal(err)
	}
	if va, vb := get(&a), get(&b); va != "<absent>" || vb != "b" {
		t.Fatalf("after a's delete: a reads %q, b %q", va, vb)
	}
	if ok, _ := s.PutIfAbsent(ctx, key(&a), []byte("a2"), time.Hour); !ok {
		t.Fatal("put a again")
	}
	if err := s.Delete(ctx, key(&b)); err != nil {
		t.Fatal(err)
	}
	if va, vb := get(&a), get(&b); va != "a2" || vb != "<absent>" {
		t.Fatalf("after b's delete: a reads %q, b %q", va, vb)
	}
	checkDigestTable(t, s)
}
