package workpool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPool: every function runs once, at most MaxIdle workers wait afterwards,
// an idle worker takes the next function, and idle workers end after idleFor.
func TestPool(t *testing.T) {
	p := New(3 * time.Second)
	var ran atomic.Int64
	var wg sync.WaitGroup
	const n = 500
	release := make(chan struct{})
	for range n {
		wg.Add(1)
		p.Go(func() {
			defer wg.Done()
			<-release // all n run at once: n goroutines
			ran.Add(1)
		})
	}
	close(release)
	wg.Wait()
	if ran.Load() != n {
		t.Fatalf("%d of %d functions ran", ran.Load(), n)
	}
	waitUntil(t, func() bool { return p.Idle() == MaxIdle }, "MaxIdle idle workers")
	// An idle worker takes the next function: the idle count drops while it runs.
	started, finish := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-finish })
	<-started
	if got := p.Idle(); got != MaxIdle-1 {
		t.Errorf("idle workers while one runs: %d, want %d", got, MaxIdle-1)
	}
	close(finish)
	waitUntil(t, func() bool { return p.Idle() == MaxIdle }, "the worker back to idle")
	waitUntil(t, func() bool { return p.Idle() == 0 }, "the idle workers to end")

	q := New(10 * time.Millisecond)
	done := make(chan struct{})
	q.Go(func() { close(done) })
	<-done
	waitUntil(t, func() bool { return q.Idle() == 0 }, "the idle worker to end")
}

func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10s", what)
		}
	}
}
