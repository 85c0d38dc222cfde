package store

// memdigest.go: Memory's table for digest keys. A key made of a prefix ending
// in ':' and 40 lowercase hex digits (a 160-bit digest, as the idempotency
// ledger's keys are) is kept in an open-addressing table of its own, indexed by
// the digest itself (no hashing), its value copied into an arena of large
// chunks. Neither the table nor the arena holds a pointer per entry: the
// garbage collector scans neither, and a write allocates nothing but, now and
// then, a new chunk. A chunk whose values are all gone is reused: values never
// leave the store's lock uncopied (GetShared copies them too).

import "hash/maphash"

// digestLen is the length of a digest key's digest; hexDigestLen its hex form.
const (
	digestLen    = 20
	hexDigestLen = 2 * digestLen
)

// maxPrefixes bounds the distinct prefixes the table keeps; keys of further
// prefixes stay in the map.
const maxPrefixes = 64

// parseDigestKey splits a digest key into its prefix (with the ':') and its
// digest. Only lowercase hex qualifies, so that the mapping is one to one.
func parseDigestKey(key string) (prefix string, d [digestLen]byte, ok bool) {
	if len(key) < hexDigestLen+1 || key[len(key)-hexDigestLen-1] != ':' {
		return "", d, false
	}
	h := key[len(key)-hexDigestLen:]
	var bad byte
	for i := range digestLen {
		hi, lo := unhex[h[2*i]], unhex[h[2*i+1]]
		bad |= hi | lo
		d[i] = hi<<4 | lo
	}
	if bad&0xf0 != 0 {
		return "", d, false
	}
	return key[:len(key)-hexDigestLen], d, true
}

// unhex maps a lowercase hex digit to its value, any other byte to 0xff.
var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// A digestTable is a linear-probing hash table with backward-shift deletion
// (no tombstones; the sweep deletes the expired entries in one pass), kept as
// three parallel arrays, one element per slot: tags,
// dents and expiries, and the arena that holds the values.
//
// A slot's tag (0: empty) is 32 bits of the key's hash, and its home slot is
// the tag's top bits: a lookup probes the tags alone (4 bytes a slot, 16 to a
// cache line) and reads a dent only where the tag matches, so that a lookup of
// an absent key touches only a line of tags, and deletion's backward shift and
// a resize find each entry's home from its tag without hashing again. The
// sweep walks tags and expiries (12 bytes a slot), not the dents.
type digestTable struct {
	tags     []uint32
	ents     []dent
	exps     []int64 // Unix nanoseconds; 0: never
	shift    uint    // 32 - log2(slots): a tag's top bits are its home
	n        int
	prefixes []string
	last     uint16 // the prefix looked up last
	seed     maphash.Seed
	arena    arena
}

// A dent is a digest key's entry but for its tag and expiry: its key and where
// its value lies in the arena. 32 bytes: two to a cache line, none across two.
type dent struct {
	d      [digestLen]byte
	prefix uint16 // index in digestTable.prefixes
	off    uint16 // in the chunk (chunkSize is 1<<16; a chunk of its own: 0)
	chunk  uint32
	n      uint32
}

// prefixID returns the index of prefix, adding it while there is room.
func (t *digestTable) prefixID(prefix string, add bool) (uint16, bool) {
	if int(t.last) < len(t.prefixes) && t.prefixes[t.last] == prefix {
		return t.last, true
	}
	for i, p := range t.prefixes {
		if p == prefix {
			t.last = uint16(i)
			return t.last, true
		}
	}
	if !add || len(t.prefixes) >= maxPrefixes {
		return 0, false
	}
	t.prefixes = append(t.prefixes, prefix)
	t.last = uint16(len(t.prefixes) - 1)
	return t.last, true
}

// tag is the table's 32-bit hash of (prefix, d); never 0. The digest is hashed
// again with the table's seed: a digest key need not be a uniform digest (nor
// chosen to collide).
func (t *digestTable) tag(prefix uint16, d *[digestLen]byte) uint32 {
	if t.seed == (maphash.Seed{}) {
		t.seed = maphash.MakeSeed()
	}
	h := maphash.Bytes(t.seed, d[:]) ^ uint64(prefix)*0x9e3779b97f4a7c15
	return uint32(h>>32) | 1
}

// home is the slot where a key of tag h starts probing: the tag's top bits.
func (t *digestTable) home(h uint32) int {
	return int(h >> t.shift)
}

// find returns the slot of (prefix, d), whose tag is h, or -1.
func (t *digestTable) find(h uint32, prefix uint16, d *[digestLen]byte) int {
	if len(t.tags) == 0 {
		return -1
	}
	mask := len(t.tags) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		switch t.tags[i] {
		case 0:
			return -1
		case h:
			if e := &t.ents[i]; e.d == *d && e.prefix == prefix {
				return i
			}
		}
	}
}

// insert adds the entry e of tag h, expiring at exp, for a key that is not in
// the table.
func (t *digestTable) insert(h uint32, e *dent, exp int64) {
	if (t.n+1)*8 > len(t.tags)*5 { // load above 5/8
		t.resize(max(64, 2*len(t.tags)))
	}
	mask := len(t.tags) - 1
	i := t.home(h)
	for t.tags[i] != 0 {
		i = (i + 1) & mask
	}
	t.tags[i], t.ents[i], t.exps[i] = h, *e, exp
	t.n++
}

// resize rehashes the table into size slots (a power of two, at most 1<<32:
// a home is a tag's top bits), from the tags alone.
func (t *digestTable) resize(size int) {
	tags, ents, exps := t.tags, t.ents, t.exps
	t.tags, t.ents, t.exps, t.n = make([]uint32, size), make([]dent, size), make([]int64, size), 0
	t.shift = 32
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	for i, h := range tags {
		if h != 0 {
			t.insert(h, &ents[i], exps[i])
		}
	}
}

// deleteAt empties slot i, releasing its value, and shifts back the entries
// after it that probed past it. It reports whether slot i holds another entry
// afterwards.
func (t *digestTable) deleteAt(i int) bool {
	e := &t.ents[i]
	t.arena.release(e.chunk, uint32(e.off), e.n)
	mask := len(t.tags) - 1
	hole := i
	for j := (i + 1) & mask; t.tags[j] != 0; j = (j + 1) & mask {
		h := t.home(t.tags[j])
		// The entry at j may move to the hole unless its home lies cyclically
		// in (hole, j].
		if (hole < j && hole < h && h <= j) || (j < hole && (hole < h || h <= j)) {
			continue
		}
		t.tags[hole], t.ents[hole], t.exps[hole] = t.tags[j], t.ents[j], t.exps[j]
		hole = j
	}
	t.tags[hole] = 0 // an empty slot's dent and expiry are never read
	t.n--
	return hole != i
}

// value returns the value of the entry in slot i, sharing the arena's memory.
func (t *digestTable) value(i int) []byte {
	e := &t.ents[i]
	return t.arena.get(e.chunk, uint32(e.off), e.n)
}

// setValue writes val into the arena as the value of slot i, replacing its
// value, and sets its expiry.
func (t *digestTable) setValue(i int, val []byte, expires int64) {
	e := &t.ents[i]
	t.arena.release(e.chunk, uint32(e.off), e.n)
	chunk, off := t.arena.put(val)
	e.chunk, e.off, e.n = chunk, uint16(off), uint32(len(val))
	t.exps[i] = expires
}

// sweep deletes the entries expired at now, then moves the values out of
// chunks mostly dead, and shrinks the table when it is mostly empty.
//
// The deletions are one pass over the slots, from an empty one round to it:
// an expired entry's slot is emptied (its dent read only for where its value
// lies), and an entry kept moves back to the first empty slot from its home,
// if there is one before its own. No cluster runs across the empty slot the
// pass starts after; within a cluster each entry is placed after the entries
// before it, at the first empty slot from its home, and a slot once filled is
// not emptied again in the pass: every entry stays reachable from its home
// without an empty slot on the way, as a backward shift keeps it. An entry
// moves at most once, and an expired one not at all (a deletion's backward
// shift moved the entries after it, expired ones among them, once for each
// deletion before them in the cluster).
func (t *digestTable) sweep(now int64) {
	tags, exps := t.tags, t.exps[:len(t.tags)]
	if t.n > 0 {
		mask := len(tags) - 1
		start := 0
		for tags[start] != 0 { // the load is at most 5/8: there is an empty slot
			start++
		}
		for k := 1; k < len(tags); k++ {
			i := (start + k) & mask
			h := tags[i]
			if h == 0 {
				continue
			}
			if x := exps[i]; x != 0 && now >= x {
				e := &t.ents[i]
				t.arena.release(e.chunk, uint32(e.off), e.n)
				tags[i] = 0
				t.n--
				continue
			}
			j := t.home(h)
			for j != i && tags[j] != 0 {
				j = (j + 1) & mask
			}
			if j != i {
				tags[j], t.ents[j], exps[j] = h, t.ents[i], exps[i]
				tags[i] = 0
			}
		}
	}
	if a := &t.arena; a.sparse() {
		for i, h := range tags {
			if h == 0 {
				continue
			}
			e := &t.ents[i]
			if c := &a.chunks[e.chunk]; e.chunk != a.cur && c.live*4 < cap(c.buf) {
				v := a.get(e.chunk, uint32(e.off), e.n)
				chunk, off := a.put(v)
				a.release(e.chunk, uint32(e.off), e.n)
				e.chunk, e.off = chunk, uint16(off)
			}
		}
	}
	if len(tags) > 64 && t.n*8 < len(tags) { // load below 1/8: shrink to 1/4 or less
		size := 64
		for size < 4*t.n {
			size *= 2
		}
		t.resize(size)
	}
}

// chunkSize is the size of an arena chunk; a value larger than a quarter of it
// gets a chunk of its own. A value's offset in a chunk fits a dent's 16 bits.
const chunkSize = 64 << 10

var _ [1<<16 - chunkSize]struct{} // chunkSize <= 1<<16

// An arena holds values in chunks; achunk.live counts the bytes of live values
// (a chunk with none is dropped, unless values are still being added to it).
type arena struct {
	chunks   []achunk
	free     []uint32 // indexes of dropped chunks
	spare    [][]byte // dropped chunks' buffers, for reuse
	cur      uint32   // the chunk values are added to
	capBytes int      // the chunks' capacity
	live     int      // bytes of live values
}

type achunk struct {
	buf  []byte
	live int
}

// put copies val into the arena and returns where it lies: off is below
// chunkSize. An empty value lies nowhere: it holds no chunk (a chunk is dropped
// when its live bytes are gone, an empty value's too).
func (a *arena) put(val []byte) (chunk, off uint32) {
	if len(val) == 0 {
		return 0, 0
	}
	if len(a.chunks) == 0 {
		a.cur = a.newChunk(chunkSize)
	}
	a.live += len(val)
	if len(val) > chunkSize/4 {
		chunk = a.newChunk(len(val))
		c := &a.chunks[chunk]
		c.buf = append(c.buf, val...)
		c.live = len(val)
		return chunk, 0
	}
	c := &a.chunks[a.cur]
	if cap(c.buf)-len(c.buf) < len(val) {
		old := a.cur
		a.cur = a.newChunk(chunkSize)
		if a.chunks[old].live == 0 {
			a.drop(old)
		}
		c = &a.chunks[a.cur]
	}
	off = uint32(len(c.buf))
	c.buf = append(c.buf, val...)
	c.live += len(val)
	return a.cur, off
}

// get returns the n bytes at off in chunk, capped so that an append copies.
func (a *arena) get(chunk, off, n uint32) []byte {
	if n == 0 {
		return []byte{}
	}
	return a.chunks[chunk].buf[off : off+n : off+n]
}

// release marks the n bytes at off in chunk dead, dropping the chunk when
// none is left. No slice of a value outlives the store's lock (reads copy), so
// the room of the value last written can be taken back at once.
func (a *arena) release(chunk, off, n uint32) {
	if n == 0 {
		return
	}
	c := &a.chunks[chunk]
	c.live -= int(n)
	a.live -= int(n)
	if chunk == a.cur && int(off+n) == len(c.buf) {
		// The last value written: its room is written again by the next. A
		// claim's record, replaced by its result soon after, costs no room,
		// and the result is written where the claim's lines are still cached.
		c.buf = c.buf[:off]
	}
	if c.live == 0 && chunk != a.cur {
		a.drop(chunk)
	}
}

func (a *arena) newChunk(size int) uint32 {
	var c achunk
	if k := len(a.spare); k > 0 && size == chunkSize {
		c.buf, a.spare[k-1] = a.spare[k-1], nil
		a.spare = a.spare[:k-1]
	} else {
		c.buf = make([]byte, 0, size)
	}
	a.capBytes += size
	if k := len(a.free); k > 0 {
		i := a.free[k-1]
		a.free = a.free[:k-1]
		a.chunks[i] = c
		return i
	}
	a.chunks = append(a.chunks, c)
	return uint32(len(a.chunks) - 1)
}

// minSpare is how many dropped chunks the arena keeps for reuse, at least; it
// keeps up to half as many as it uses: a sweep drops many at once, and the
// entries added until the next sweep, half as many as the store held after it,
// fill as many again.
const minSpare = 32

// drop forgets a chunk without live values, keeping its buffer for reuse.
func (a *arena) drop(chunk uint32) {
	b := a.chunks[chunk].buf
	a.capBytes -= cap(b)
	if cap(b) == chunkSize && len(a.spare) < max(minSpare, a.capBytes/chunkSize/2) {
		a.spare = append(a.spare, b[:0])
	}
	a.chunks[chunk] = achunk{}
	a.free = append(a.free, chunk)
}

// sparse reports whether the chunks hold more than twice the live values (and
// a few chunks' worth): a sweep then compacts them.
func (a *arena) sparse() bool {
	return a.capBytes > 2*a.live+4*chunkSize
}
