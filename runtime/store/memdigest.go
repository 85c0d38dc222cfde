package store

// memdigest.go: Memory's table for digest keys. A key made of a prefix ending
// in ':' and 40 lowercase hex digits (a 160-bit digest, as the idempotency
// ledger's keys are) is kept in an open-addressing table of its own, one
// 32-byte slot per entry, its digest and value copied into an arena of large
// chunks. Neither the table nor the arena holds a pointer per entry: the
// garbage collector scans neither, and a write allocates nothing but, now and
// then, a new chunk. A chunk whose records are all gone is reused: values never
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
// (no tombstones; the sweep deletes the expired entries in one pass): one array
// of 32-byte slots, two to a cache line and none across two, and the arena that
// holds each entry's record, its key's digest followed by its value.
//
// A slot holds all of its entry but the digest: its tag, expiry, prefix and
// where its record lies. A slot's tag (0: empty) is 32 bits of the key's hash,
// and its home slot is the tag's top bits: a lookup probes the slots' tags and
// compares the digest in the arena only where a tag matches, so that the claim
// of a fresh key touches one random line of slots (at a load of 0.3 to 0.6,
// 21 % to 51 % of such probes run on into the next line, adjacent) and writes
// its entry there, and its record at the arena's tail; the done record that
// follows finds the same lines warm. Deletion's backward shift, a resize and the sweep
// find each entry's home from its tag, and the sweep releases an expired
// entry's record from its slot alone: none of them reads the arena (but for
// the compaction of a sparse arena, which moves records). A table of 4 MiB or
// more asks for transparent huge pages (adviseHuge, memhuge_linux.go): its
// random lines then cost fewer TLB misses.
type digestTable struct {
	slots    []slot
	shift    uint // 32 - log2(len(slots)): a tag's top bits are its home
	n        int
	prefixes []string
	last     uint8 // the prefix looked up last
	seed     maphash.Seed
	arena    arena
}

// A slot is a digest key's entry in the table: 32 bytes. Its record in the
// arena (digestLen bytes of digest, then the n bytes of its value) starts at
// off in chunk.
type slot struct {
	tag    uint32 // 0: an empty slot, whose other fields are never read
	n      uint32 // the value's length
	exp    int64  // Unix nanoseconds; 0: never
	chunk  uint32
	off    uint16 // in the chunk (chunkSize is 1<<16; a chunk of its own: 0)
	prefix uint8  // index in digestTable.prefixes (maxPrefixes fits)
	_      [9]byte
}

var _ [256 - maxPrefixes]struct{} // maxPrefixes <= 256: a prefix fits a slot's byte

// recLen is the length of the record of a slot's entry.
func (e *slot) recLen() uint32 { return digestLen + e.n }

// prefixID returns the index of prefix, adding it while there is room.
func (t *digestTable) prefixID(prefix string, add bool) (uint8, bool) {
	if int(t.last) < len(t.prefixes) && t.prefixes[t.last] == prefix {
		return t.last, true
	}
	for i, p := range t.prefixes {
		if p == prefix {
			t.last = uint8(i)
			return t.last, true
		}
	}
	if !add || len(t.prefixes) >= maxPrefixes {
		return 0, false
	}
	t.prefixes = append(t.prefixes, prefix)
	t.last = uint8(len(t.prefixes) - 1)
	return t.last, true
}

// tag is the table's 32-bit hash of (prefix, d); never 0. The digest is hashed
// again with the table's seed: a digest key need not be a uniform digest (nor
// chosen to collide).
func (t *digestTable) tag(prefix uint8, d *[digestLen]byte) uint32 {
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
func (t *digestTable) find(h uint32, prefix uint8, d *[digestLen]byte) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask := len(t.slots) - 1
	for i := t.home(h); ; i = (i + 1) & mask {
		e := &t.slots[i]
		switch e.tag {
		case 0:
			return -1
		case h:
			if e.prefix == prefix && *t.arena.digest(e.chunk, uint32(e.off)) == *d {
				return i
			}
		}
	}
}

// insert adds the entry e, whose record is in the arena, for a key that is not
// in the table.
func (t *digestTable) insert(e *slot) {
	if (t.n+1)*8 > len(t.slots)*5 { // load above 5/8
		t.resize(max(64, 2*len(t.slots)))
	}
	mask := len(t.slots) - 1
	i := t.home(e.tag)
	for t.slots[i].tag != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = *e
	t.n++
}

// resize rehashes the table into size slots (a power of two, at most 1<<32:
// a home is a tag's top bits), from the slots alone.
func (t *digestTable) resize(size int) {
	slots := t.slots
	t.slots, t.n = make([]slot, size), 0
	adviseHuge(t.slots)
	t.shift = 32
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	for i := range slots {
		if slots[i].tag != 0 {
			t.insert(&slots[i])
		}
	}
}

// deleteAt empties slot i, releasing its record, and shifts back the entries
// after it that probed past it. It reports whether slot i holds another entry
// afterwards.
func (t *digestTable) deleteAt(i int) bool {
	e := &t.slots[i]
	t.arena.release(e.chunk, uint32(e.off), e.recLen())
	mask := len(t.slots) - 1
	hole := i
	for j := (i + 1) & mask; t.slots[j].tag != 0; j = (j + 1) & mask {
		h := t.home(t.slots[j].tag)
		// The entry at j may move to the hole unless its home lies cyclically
		// in (hole, j].
		if (hole < j && hole < h && h <= j) || (j < hole && (hole < h || h <= j)) {
			continue
		}
		t.slots[hole] = t.slots[j]
		hole = j
	}
	t.slots[hole].tag = 0
	t.n--
	return hole != i
}

// value returns the value of the entry in slot i, sharing the arena's memory.
func (t *digestTable) value(i int) []byte {
	e := &t.slots[i]
	return t.arena.get(e.chunk, uint32(e.off)+digestLen, e.n)
}

// setValue writes a new record of d (slot i's key's digest) and val into the
// arena for slot i, releasing its old one, and sets its expiry.
func (t *digestTable) setValue(i int, d *[digestLen]byte, val []byte, expires int64) {
	e := &t.slots[i]
	t.arena.release(e.chunk, uint32(e.off), e.recLen())
	chunk, off := t.arena.put(d[:], val)
	e.chunk, e.off, e.n = chunk, uint16(off), uint32(len(val))
	e.exp = expires
}

// sweep deletes the entries expired at now, then moves the records out of
// chunks mostly dead, and shrinks the table when it is mostly empty.
//
// The deletions are one pass over the slots, from an empty one round to it:
// an expired entry's slot is emptied (its record released from the slot's
// fields, unread), and an entry kept moves back to the first empty slot from
// its home, if there is one before its own. No cluster runs across the empty
// slot the pass starts after; within a cluster each entry is placed after the
// entries before it, at the first empty slot from its home, and a slot once
// filled is not emptied again in the pass: every entry stays reachable from its
// home without an empty slot on the way, as a backward shift keeps it. An entry
// moves at most once, and an expired one not at all (a deletion's backward
// shift moved the entries after it, expired ones among them, once for each
// deletion before them in the cluster).
func (t *digestTable) sweep(now int64) {
	slots := t.slots
	if t.n > 0 {
		mask := len(slots) - 1
		start := 0
		for slots[start].tag != 0 { // the load is at most 5/8: there is an empty slot
			start++
		}
		for k := 1; k < len(slots); k++ {
			i := (start + k) & mask
			e := &slots[i]
			h := e.tag
			if h == 0 {
				continue
			}
			if x := e.exp; x != 0 && now >= x {
				t.arena.release(e.chunk, uint32(e.off), e.recLen())
				e.tag = 0
				t.n--
				continue
			}
			j := t.home(h)
			for j != i && slots[j].tag != 0 {
				j = (j + 1) & mask
			}
			if j != i {
				slots[j] = *e
				e.tag = 0
			}
		}
	}
	if a := &t.arena; a.sparse() {
		for i := range slots {
			e := &slots[i]
			if e.tag == 0 {
				continue
			}
			if c := &a.chunks[e.chunk]; e.chunk != a.cur && c.live*4 < cap(c.buf) {
				rec := a.get(e.chunk, uint32(e.off), e.recLen())
				chunk, off := a.put(rec[:digestLen], rec[digestLen:])
				a.release(e.chunk, uint32(e.off), e.recLen())
				e.chunk, e.off = chunk, uint16(off)
			}
		}
	}
	if len(slots) > 64 && t.n*8 < len(slots) { // load below 1/8: shrink to 1/4 or less
		size := 64
		for size < 4*t.n {
			size *= 2
		}
		t.resize(size)
	}
}

// chunkSize is the size of an arena chunk; a record larger than a quarter of
// it gets a chunk of its own. A record's offset in a chunk fits a slot's 16
// bits.
const chunkSize = 64 << 10

var _ [1<<16 - chunkSize]struct{} // chunkSize <= 1<<16

// An arena holds records (a digest, then a value) in chunks, each written
// once; achunk.live counts the bytes of live records (a chunk with none is
// dropped, unless records are still being added to it).
type arena struct {
	chunks   []achunk
	free     []uint32 // indexes of dropped chunks
	spare    [][]byte // dropped chunks' buffers, for reuse
	cur      uint32   // the chunk records are added to
	capBytes int      // the chunks' capacity
	live     int      // bytes of live records
}

type achunk struct {
	buf  []byte
	live int
}

// put copies the record head+val (a digest and a value) into the arena and
// returns where it lies: off is below chunkSize. A record is never empty: a
// chunk is dropped only when its records are gone.
func (a *arena) put(head, val []byte) (chunk, off uint32) {
	n := len(head) + len(val)
	if len(a.chunks) == 0 {
		a.cur = a.newChunk(chunkSize)
	}
	a.live += n
	if n > chunkSize/4 {
		chunk = a.newChunk(n)
		c := &a.chunks[chunk]
		c.buf = append(append(c.buf, head...), val...)
		c.live = n
		return chunk, 0
	}
	c := &a.chunks[a.cur]
	if cap(c.buf)-len(c.buf) < n {
		old := a.cur
		a.cur = a.newChunk(chunkSize)
		if a.chunks[old].live == 0 {
			a.drop(old)
		}
		c = &a.chunks[a.cur]
	}
	off = uint32(len(c.buf))
	c.buf = append(append(c.buf, head...), val...)
	c.live += n
	return a.cur, off
}

// get returns the n bytes at off in chunk, capped so that an append copies.
func (a *arena) get(chunk, off, n uint32) []byte {
	return a.chunks[chunk].buf[off : off+n : off+n]
}

// digest returns the digest that starts the record at off in chunk.
func (a *arena) digest(chunk, off uint32) *[digestLen]byte {
	return (*[digestLen]byte)(a.chunks[chunk].buf[off : off+digestLen])
}

// release marks the record of n bytes at off in chunk dead, dropping the
// chunk when none is left. No slice of a value outlives the store's lock
// (reads copy), so the room of the record last written can be taken back at
// once.
func (a *arena) release(chunk, off, n uint32) {
	c := &a.chunks[chunk]
	c.live -= int(n)
	a.live -= int(n)
	if chunk == a.cur && int(off+n) == len(c.buf) {
		// The last record written: its room is written again by the next. A
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

// drop forgets a chunk without live records, keeping its buffer for reuse.
func (a *arena) drop(chunk uint32) {
	b := a.chunks[chunk].buf
	a.capBytes -= cap(b)
	if cap(b) == chunkSize && len(a.spare) < max(minSpare, a.capBytes/chunkSize/2) {
		a.spare = append(a.spare, b[:0])
	}
	a.chunks[chunk] = achunk{}
	a.free = append(a.free, chunk)
}

// sparse reports whether the chunks hold more than twice the live records (and
// a few chunks' worth): a sweep then compacts them.
func (a *arena) sparse() bool {
	return a.capBytes > 2*a.live+4*chunkSize
}
