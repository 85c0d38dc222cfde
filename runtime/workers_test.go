package runtime

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWorkerPool: every function runs once, at most maxIdleHandlers workers
// wait afterwards, an idle worker takes the next function, and idle workers
// end after idleFor.
func TestWorkerPool(t *testing.T) {
	p := &workerPool{jobs: make(chan func()), idleFor: 3 * time.Second}
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
	waitUntil(t, func() bool { return p.idle.Load() == maxIdleHandlers }, "maxIdleHandlers idle workers")
	// An idle worker takes the next function: the idle count drops while it runs.
	started, finish := make(chan struct{}), make(chan struct{})
	p.Go(func() { close(started); <-finish })
	<-started
	if got := p.idle.Load(); got != maxIdleHandlers-1 {
		t.Errorf("idle workers while one runs: %d, want %d", got, maxIdleHandlers-1)
	}
	close(finish)
	waitUntil(t, func() bool { return p.idle.Load() == maxIdleHandlers }, "the worker back to idle")
	waitUntil(t, func() bool { return p.idle.Load() == 0 }, "the idle workers to end")

	q := &workerPool{jobs: make(chan func()), idleFor: 10 * time.Millisecond}
	done := make(chan struct{})
	q.Go(func() { close(done) })
	<-done
	waitUntil(t, func() bool { return q.idle.Load() == 0 }, "the idle worker to end")
}

func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 10s", what)
		}
	}
}
