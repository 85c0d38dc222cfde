package store

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Memory is the in-memory Store: nothing to start, nothing shared beyond the
// process. Expired entries are dropped when touched and by a sweep after as many
// writes as the store held entries after the previous sweep (at least 1024): a
// write's share of the sweeps stays constant however many entries the store
// holds, and the store holds at most about twice its live entries (a workload of
// puts alone included). It also implements PubSub within the process.
type Memory struct {
	mu      sync.Mutex
	m       map[string]memEntry
	writes  int // since the last sweep
	sweepAt int // writes that start the next sweep
	subs    map[string]map[chan []byte]struct{}
	now     func() time.Time // tests move the clock
}

type memEntry struct {
	val     []byte
	expires int64 // Unix nanoseconds; 0: never (no pointer for the GC to follow)
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{m: map[string]memEntry{}, now: time.Now}
}

var _ interface {
	Store
	Owner
	PubSub
} = (*Memory)(nil)

// live returns the unexpired entry under key; the caller holds mu.
func (s *Memory) live(key string, now int64) (memEntry, bool) {
	e, ok := s.m[key]
	if ok && e.expires != 0 && now >= e.expires {
		delete(s.m, key)
		return memEntry{}, false
	}
	return e, ok
}

// set stores val itself under key; the caller holds mu.
func (s *Memory) set(key string, val []byte, ttl time.Duration, now int64) {
	e := memEntry{val: val}
	if ttl > 0 {
		e.expires = now + int64(ttl)
	}
	s.m[key] = e
	if s.writes++; s.writes >= max(s.sweepAt, minSweep) {
		s.writes = 0
		for k, e := range s.m {
			if e.expires != 0 && now >= e.expires {
				delete(s.m, k)
			}
		}
		s.sweepAt = len(s.m)
	}
}

// minSweep is the fewest writes between two sweeps.
const minSweep = 1024

// PutIfAbsent implements Store.
func (s *Memory) PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	return s.PutIfAbsentOwned(ctx, key, bytes.Clone(val), ttl)
}

// PutIfAbsentOwned implements Owner.
func (s *Memory) PutIfAbsentOwned(_ context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UnixNano()
	if _, ok := s.live(key, now); ok {
		return false, nil
	}
	s.set(key, val, ttl, now)
	return true, nil
}

// Get implements Store.
func (s *Memory) Get(ctx context.Context, key string) ([]byte, bool, error) {
	val, ok, err := s.GetShared(ctx, key)
	return bytes.Clone(val), ok, err
}

// GetShared implements Owner.
func (s *Memory) GetShared(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.live(key, s.now().UnixNano())
	if !ok {
		return nil, false, nil
	}
	return e.val, true, nil
}

// CompareAndSet implements Store.
func (s *Memory) CompareAndSet(ctx context.Context, key string, old, val []byte, ttl time.Duration) (bool, error) {
	return s.CompareAndSetOwned(ctx, key, old, bytes.Clone(val), ttl)
}

// CompareAndSetOwned implements Owner.
func (s *Memory) CompareAndSetOwned(_ context.Context, key string, old, val []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UnixNano()
	e, ok := s.live(key, now)
	if !ok || !bytes.Equal(e.val, old) {
		return false, nil
	}
	s.set(key, val, ttl, now)
	return true, nil
}

// Delete implements Store.
func (s *Memory) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// Close implements Store; a closed Memory keeps working.
func (s *Memory) Close() error { return nil }

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
