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

// A dent is a digest key's entry, a slot of the table: its tag (0 for an empty
// slot), its key, and where its value lies in the arena. A slot is one cache
// line: a lookup that misses touches one line, an insert the same one.
type dent struct {
	tag     uint64 // digestTable.tag of the key; 0: empty
	d       [digestLen]byte
	prefix  uint16 // index in digestTable.prefixes
	chunk   uint32
	off, n  uint32
	expires int64 // Unix nanoseconds; 0: never
	_       [8]byte
}

// A digestTable is a linear-probing hash table of dents with backward-shift
// deletion (no tombstones), and the arena that holds their values.
type digestTable struct {
	ents     []dent
	n        int
	prefixes []string
	last     uint16 // the prefix looked up last
	seed     maphash.Seed
	arena    arena
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

// tag is the table's hash of (prefix, d); never 0. The digest is hashed again
// with the table's seed: a digest key need not be a uniform digest (nor chosen
// to collide).
func (t *digestTable) tag(prefix uint16, d *[digestLen]byte) uint64 {
	return (maphash.Bytes(t.seed, d[:]) ^ uint64(prefix)*0x9e3779b97f4a7c15) | 1
}

// home is the slot where a key of tag h starts probing.
func (t *digestTable) home(h uint64) int {
	return int(h>>1) & (len(t.ents) - 1)
}

// find returns the slot of (prefix, d), or -1.
func (t *digestTable) find(prefix uint16, d *[digestLen]byte) int {
	if len(t.ents) == 0 {
		return -1
	}
	h := t.tag(prefix, d)
	mask := len(t.ents) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		switch e := &t.ents[i]; e.tag {
		case 0:
			return -1
		case h:
			if e.d == *d && e.prefix == prefix {
				return i
			}
		}
	}
}

// insert adds an entry for a key that is not in the table.
func (t *digestTable) insert(e dent) {
	if (t.n+1)*8 > len(t.ents)*5 { // load above 5/8
		t.resize(max(64, 2*len(t.ents)))
	}
	e.tag = t.tag(e.prefix, &e.d)
	mask := len(t.ents) - 1
	i := t.home(e.tag)
	for t.ents[i].tag != 0 {
		i = (i + 1) & mask
	}
	t.ents[i] = e
	t.n++
}

// resize rehashes the table into size slots (a power of two).
func (t *digestTable) resize(size int) {
	if len(t.ents) == 0 {
		t.seed = maphash.MakeSeed()
	}
	ents := t.ents
	t.ents, t.n = make([]dent, size), 0
	for i := range ents {
		if ents[i].tag != 0 {
			t.insert(ents[i])
		}
	}
}

// deleteAt empties slot i, releasing its value, and shifts back the entries
// after it that probed past it. It reports whether slot i holds another entry
// afterwards.
func (t *digestTable) deleteAt(i int) bool {
	e := &t.ents[i]
	t.arena.release(e.chunk, e.off, e.n)
	mask := len(t.ents) - 1
	hole := i
	for j := (i + 1) & mask; t.ents[j].tag != 0; j = (j + 1) & mask {
		h := t.home(t.ents[j].tag)
		// The entry at j may move to the hole unless its home lies cyclically
		// in (hole, j].
		if (hole < j && hole < h && h <= j) || (j < hole && (hole < h || h <= j)) {
			continue
		}
		t.ents[hole] = t.ents[j]
		hole = j
	}
	t.ents[hole] = dent{}
	t.n--
	return hole != i
}

// value returns the value of the entry in slot i, sharing the arena's memory.
func (t *digestTable) value(i int) []byte {
	e := &t.ents[i]
	return t.arena.get(e.chunk, e.off, e.n)
}

// setValue writes val into the arena as the value of slot i (which held a
// value already when had).
func (t *digestTable) setValue(i int, val []byte, expires int64, had bool) {
	e := &t.ents[i]
	if had {
		t.arena.release(e.chunk, e.off, e.n)
	}
	e.chunk, e.off = t.arena.put(val)
	e.n, e.expires = uint32(len(val)), expires
}

// sweep deletes the entries expired at now, then moves the values out of
// chunks mostly dead, and shrinks the table when it is mostly empty.
func (t *digestTable) sweep(now int64) {
	for i := 0; i < len(t.ents); {
		if e := &t.ents[i]; e.tag != 0 && e.expires != 0 && now >= e.expires {
			if t.deleteAt(i) {
				continue // an entry moved into slot i: look at it
			}
		}
		i++
	}
	if a := &t.arena; a.sparse() {
		for i := range t.ents {
			e := &t.ents[i]
			if e.tag == 0 {
				continue
			}
			if c := &a.chunks[e.chunk]; e.chunk != a.cur && c.live*4 < cap(c.buf) {
				v := a.get(e.chunk, e.off, e.n)
				chunk, off := a.put(v)
				a.release(e.chunk, e.off, e.n)
				e.chunk, e.off = chunk, off
			}
		}
	}
	if len(t.ents) > 64 && t.n*8 < len(t.ents) { // load below 1/8: shrink to 1/4 or less
		size := 64
		for size < 4*t.n {
			size *= 2
		}
		t.resize(size)
	}
}

// chunkSize is the size of an arena chunk; a value larger than a quarter of it
// gets a chunk of its own.
const chunkSize = 64 << 10

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

// put copies val into the arena and returns where it lies.
func (a *arena) put(val []byte) (chunk, off uint32) {
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
	return a.chunks[chunk].buf[off : off+n : off+n]
}

// release marks the n bytes at off in chunk dead, dropping the chunk when
// none is left. No slice of a value outlives the store's lock (reads copy), so
// the room of the value last written can be taken back at once.
func (a *arena) release(chunk, off, n uint32) {
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
// keeps up to half as many as it uses (a sweep drops many at once, and the
// writes until the next sweep fill as many again).
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
