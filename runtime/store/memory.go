package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"sync"
	"time"
)

// Memory is the in-memory Store: nothing to start, nothing shared beyond the
// process. Expired entries are dropped when touched and by a sweep after
// half as many writes that add an entry (a replacement adds none) as the store
// held entries after the previous sweep (at least 1024): a write's share of the
// sweeps stays constant however many entries the store holds, and the store
// holds at most about one and a half times its live entries (a workload of puts
// alone included). It also implements PubSub within the process.
//
// A key made of a prefix ending in ':' and a 160-bit digest in 40 lowercase
// hex digits (the idempotency ledger's keys) lives in a table of its own,
// indexed by a seeded hash of the digest, its value copied into large chunks that are reused: no
// pointer per entry for the garbage collector to follow, no allocation per
// write in a steady state (memdigest.go). Other keys live in a map.
//
// A Memory is bounded (SetLimits; by default DefaultMaxEntries entries and
// DefaultMaxBytes bytes of keys and values): a write that would add an entry
// past either bound, once the expired entries are swept, fails with ErrFull.
// Replacing an entry's value (compare-and-set) is never refused: a claim
// becomes its result even in a full store, so the bound on bytes may be passed
// by the results of the claims already taken.
type Memory struct {
	mu     sync.Mutex
	m      map[string]memEntry
	mbytes int64 // bytes of the map's keys and values
	maxN   int   // most entries (0: no bound)
	maxB   int64 // most bytes of keys and values (0: no bound)
	// fullSweep is when a write found the store at a bound and swept it last.
	fullSweep int64
	dt        digestTable
	writes    int // entries added since the last sweep
	sweepAt   int // entries added that start the next sweep
	sweeps    int // sweeps so far (tests)
	subs      map[string]map[chan []byte]struct{}
	now       func() time.Time // tests move the clock; nil: start and its monotonic clock
	start     time.Time
}

type memEntry struct {
	val     []byte
	expires int64 // Unix nanoseconds; 0: never (no pointer for the GC to follow)
}

// Default bounds of a Memory (SetLimits).
const (
	DefaultMaxEntries       = 1 << 18  // 262144 entries
	DefaultMaxBytes   int64 = 64 << 20 // 64 MiB of keys and values
)

// ErrFull reports a write refused because a Memory holds as many entries or
// bytes as its limits allow (SetLimits). Nothing was written; the write may
// succeed once entries expire.
var ErrFull = errors.New("in-memory store full")

// NewMemory returns an empty in-memory store with the default limits.
func NewMemory() *Memory {
	return &Memory{m: map[string]memEntry{}, start: time.Now(), maxN: DefaultMaxEntries, maxB: DefaultMaxBytes}
}

// SetLimits bounds the store to maxEntries entries and maxBytes bytes of keys
// and values (0 or less: no bound). A full store refuses new entries with
// ErrFull.
func (s *Memory) SetLimits(maxEntries int, maxBytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxN, s.maxB = max(maxEntries, 0), max(maxBytes, 0)
}

// Usage reports the entries the store holds and the bytes of their keys and
// values (expired entries not swept yet included).
func (s *Memory) Usage() (entries int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m) + s.dt.n, s.mbytes + int64(s.dt.arena.live)
}

// full reports whether an entry of n more bytes may not be added; it sweeps
// the expired entries first when the store is at a bound. The caller holds mu.
func (s *Memory) full(n int, now int64) bool {
	over := func() bool {
		return s.maxN > 0 && len(s.m)+s.dt.n >= s.maxN ||
			s.maxB > 0 && s.mbytes+int64(s.dt.arena.live)+int64(n) > s.maxB
	}
	if !over() {
		return false
	}
	if now-s.fullSweep >= int64(time.Second) { // at most one sweep a second for refusals
		s.fullSweep = now
		s.sweep(now)
	}
	return over()
}

var _ interface {
	Store
	Owner
	DigestStore
	PubSub
} = (*Memory)(nil)

// A memKey is a key resolved to where it lives: the digest table (dt) or the map.
type memKey struct {
	key    string
	dt     bool
	prefix uint8
	tag    uint32 // the digest table's tag, set by lookup
	d      [digestLen]byte
}

// resolve resolves key; add says whether a new prefix may enter the digest
// table (a write). The caller holds mu.
func (s *Memory) resolve(key string, add bool) memKey {
	k := memKey{key: key}
	if prefix, d, ok := parseDigestKey(key); ok {
		if id, ok := s.dt.prefixID(prefix, add); ok {
			k.dt, k.prefix, k.d = true, id, d
		}
	}
	return k
}

// resolveDigest is resolve for the digest key prefix+hex(d).
func (s *Memory) resolveDigest(prefix string, d *[digestLen]byte, add bool) memKey {
	if len(prefix) > 0 && prefix[len(prefix)-1] == ':' {
		if id, ok := s.dt.prefixID(prefix, add); ok {
			return memKey{dt: true, prefix: id, d: *d}
		}
	}
	// Not a digest key's prefix, or no room for it: the map, under the string form.
	k := make([]byte, 0, len(prefix)+hexDigestLen)
	return memKey{key: string(hex.AppendEncode(append(k, prefix...), d[:]))}
}

// A memSlot is a live entry found by lookup.
type memSlot struct {
	i   int    // the digest table's slot, -1 for the map
	val []byte // its value (shared)
}

// lookup returns the unexpired entry under k; the caller holds mu.
func (s *Memory) lookup(k *memKey, now int64) (memSlot, bool) {
	if k.dt {
		k.tag = s.dt.tag(k.prefix, &k.d)
		i := s.dt.find(k.tag, k.prefix, &k.d)
		if i < 0 {
			return memSlot{}, false
		}
		if x := s.dt.slots[i].exp; x != 0 && now >= x {
			s.dt.deleteAt(i)
			return memSlot{}, false
		}
		return memSlot{i: i, val: s.dt.value(i)}, true
	}
	e, ok := s.m[k.key]
	if ok && e.expires != 0 && now >= e.expires {
		s.mbytes -= int64(len(k.key) + len(e.val))
		delete(s.m, k.key)
		return memSlot{}, false
	}
	return memSlot{i: -1, val: e.val}, ok
}

// set stores val under k, replacing the entry lookup found (at, when found); owned says
// val may be kept as is (the map keeps it; the digest table always copies). k
// went through lookup (which set its tag). The caller holds mu.
func (s *Memory) set(k *memKey, at memSlot, found bool, val []byte, owned bool, ttl time.Duration, now int64) {
	var expires int64
	if ttl > 0 {
		expires = now + int64(ttl)
	}
	switch {
	case k.dt && found:
		s.dt.setValue(at.i, &k.d, val, expires)
		return
	case k.dt:
		chunk, off := s.dt.arena.put(k.d[:], val)
		s.dt.insert(&slot{tag: k.tag, n: uint32(len(val)), exp: expires, chunk: chunk, off: uint16(off), prefix: k.prefix})
	default:
		if !owned {
			val = bytes.Clone(val)
		}
		if found {
			s.mbytes -= int64(len(at.val))
		} else {
			s.mbytes += int64(len(k.key))
		}
		s.mbytes += int64(len(val))
		s.m[k.key] = memEntry{val: val, expires: expires}
		if found {
			return
		}
	}
	// An entry was added: it counts toward the next sweep (a replacement
	// leaves the entries as many).
	if s.writes++; s.writes >= max(s.sweepAt, minSweep) {
		s.sweep(now)
	}
}

// sweep drops the entries expired at now; the caller holds mu.
func (s *Memory) sweep(now int64) {
	s.writes = 0
	s.sweeps++
	for k, e := range s.m {
		if e.expires != 0 && now >= e.expires {
			s.mbytes -= int64(len(k) + len(e.val))
			delete(s.m, k)
		}
	}
	s.dt.sweep(now)
	s.sweepAt = (len(s.m) + s.dt.n) / 2
}

// minSweep is the fewest entries added between two sweeps.
const minSweep = 1024

// PutIfAbsent implements Store.
func (s *Memory) PutIfAbsent(_ context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	return s.putIfAbsent(key, val, false, ttl)
}

// PutIfAbsentOwned implements Owner.
func (s *Memory) PutIfAbsentOwned(_ context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	return s.putIfAbsent(key, val, true, ttl)
}

func (s *Memory) putIfAbsent(key string, val []byte, owned bool, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	k := s.resolve(key, true)
	slot, ok := s.lookup(&k, now)
	if ok {
		return false, nil
	}
	if s.full(len(key)+len(val), now) {
		return false, ErrFull
	}
	s.set(&k, slot, false, val, owned, ttl, now)
	return true, nil
}

// Get implements Store.
func (s *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	val, ok := s.get(key, true)
	return val, ok, nil
}

// GetShared implements Owner. A digest key's value is a copy all the same: its
// chunk is reused once its values are gone.
func (s *Memory) GetShared(_ context.Context, key string) ([]byte, bool, error) {
	val, ok := s.get(key, false)
	return val, ok, nil
}

func (s *Memory) get(key string, clone bool) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.resolve(key, false)
	slot, ok := s.lookup(&k, s.clock())
	if ok && (clone || k.dt) {
		return bytes.Clone(slot.val), true
	}
	return slot.val, ok
}

// CompareAndSet implements Store.
func (s *Memory) CompareAndSet(_ context.Context, key string, old, val []byte, ttl time.Duration) (bool, error) {
	return s.compareAndSet(key, old, val, false, ttl), nil
}

// CompareAndSetOwned implements Owner.
func (s *Memory) CompareAndSetOwned(_ context.Context, key string, old, val []byte, ttl time.Duration) (bool, error) {
	return s.compareAndSet(key, old, val, true, ttl), nil
}

func (s *Memory) compareAndSet(key string, old, val []byte, owned bool, ttl time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	k := s.resolve(key, false)
	slot, ok := s.lookup(&k, now)
	if !ok || !bytes.Equal(slot.val, old) {
		return false
	}
	s.set(&k, slot, true, val, owned, ttl, now)
	return true
}

// PutIfAbsentDigest implements DigestStore.
func (s *Memory) PutIfAbsentDigest(_ context.Context, prefix string, d *[20]byte, val []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	k := s.resolveDigest(prefix, d, true)
	slot, ok := s.lookup(&k, now)
	if ok {
		return false, nil
	}
	if s.full(digestLen+len(val), now) {
		return false, ErrFull
	}
	s.set(&k, slot, false, val, false, ttl, now)
	return true, nil
}

// CompareAndSetDigest implements DigestStore.
func (s *Memory) CompareAndSetDigest(_ context.Context, prefix string, d *[20]byte, old, val []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	k := s.resolveDigest(prefix, d, false)
	slot, ok := s.lookup(&k, now)
	if !ok || !bytes.Equal(slot.val, old) {
		return false, nil
	}
	s.set(&k, slot, true, val, false, ttl, now)
	return true, nil
}

// GetDigest implements DigestStore.
func (s *Memory) GetDigest(_ context.Context, prefix string, d *[20]byte, dst []byte) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.resolveDigest(prefix, d, false)
	slot, ok := s.lookup(&k, s.clock())
	if !ok {
		return dst, false, nil
	}
	return append(dst, slot.val...), true, nil
}

// DeleteDigest implements DigestStore.
func (s *Memory) DeleteDigest(_ context.Context, prefix string, d *[20]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delete(s.resolveDigest(prefix, d, false))
	return nil
}

// Delete implements Store.
func (s *Memory) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delete(s.resolve(key, false))
	return nil
}

// delete removes k; the caller holds mu.
func (s *Memory) delete(k memKey) {
	if k.dt {
		if i := s.dt.find(s.dt.tag(k.prefix, &k.d), k.prefix, &k.d); i >= 0 {
			s.dt.deleteAt(i)
		}
		return
	}
	if e, ok := s.m[k.key]; ok {
		s.mbytes -= int64(len(k.key) + len(e.val))
		delete(s.m, k.key)
	}
}

// Close implements Store; a closed Memory keeps working.
func (s *Memory) Close() error { return nil }

// clock is the time expiries are measured against, in Unix nanoseconds: the
// start time advanced by the monotonic clock (one clock reading; time.Now takes
// two), unless a test set a clock.
func (s *Memory) clock() int64 {
	if s.now != nil {
		return s.now().UnixNano()
	}
	return s.start.UnixNano() + int64(time.Since(s.start))
}

// SetClock replaces the clock the store reads expiries from (tests).
func (s *Memory) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = now
}

// Publish implements PubSub: a subscriber that is not keeping up loses messages
// rather than blocking the publisher.
func (s *Memory) Publish(_ context.Context, channel string, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs[channel] {
		select {
		case ch <- bytes.Clone(msg):
		default:
		}
	}
	return nil
}

// Subscribe implements PubSub.
func (s *Memory) Subscribe(ctx context.Context, channel string) (<-chan []byte, error) {
	ch := make(chan []byte, 64)
	s.mu.Lock()
	if s.subs == nil {
		s.subs = map[string]map[chan []byte]struct{}{}
	}
	if s.subs[channel] == nil {
		s.subs[channel] = map[chan []byte]struct{}{}
	}
	s.subs[channel][ch] = struct{}{}
	s.mu.Unlock()
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		delete(s.subs[channel], ch)
		if len(s.subs[channel]) == 0 {
			delete(s.subs, channel)
		}
		close(ch)
		s.mu.Unlock()
	})
	return ch, nil
}
