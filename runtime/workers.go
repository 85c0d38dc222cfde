package runtime

// workers.go: goroutines that outlive the function they run, so that the stack
// one request grew (encoding/json needs about 16 KB) serves the next one
// instead of being grown again from 8 KB on a fresh goroutine. A profile of
// the harness's HTTP cells showed runtime.newstack/copystack at 10% to 17% of
// the server's CPU with a goroutine per request.

import (
	"sync/atomic"
	"time"
)

const (
	// maxIdleHandlers bounds the goroutines kept waiting for work (each holds
	// its stack, at most a few tens of KB, until the GC shrinks it).
	maxIdleHandlers = 64
	// handlerIdle is how long a worker waits for work before it ends: a server
	// with no traffic keeps no goroutine of the pool.
	handlerIdle = 200 * time.Millisecond
)

// A workerPool runs functions on reused goroutines.
type workerPool struct {
	jobs    chan func() // unbuffered: a send succeeds only when a worker is idle
	idleFor time.Duration
	idle    atomic.Int32
}

// handlerWorkers runs the handlers that transports start on a goroutine of
// their own (HTTP requests, calls with a deadline on a synchronous path).
var handlerWorkers = &workerPool{jobs: make(chan func()), idleFor: handlerIdle}

// Go runs f on an idle worker, or on a new one.
func (p *workerPool) Go(f func()) {
	select {
	case p.jobs <- f:
	default:
		go p.work(f)
	}
}

// work runs f, then waits for more, up to p.idleFor, while fewer than
// maxIdleHandlers wait.
func (p *workerPool) work(f func()) {
	var idle *time.Timer
	for {
		f()
		f = nil // drop what f holds while idle
		if p.idle.Add(1) > maxIdleHandlers {
			p.idle.Add(-1)
			return
		}
		if idle == nil {
			idle = time.NewTimer(p.idleFor)
		} else {
			idle.Reset(p.idleFor)
		}
		select {
		case f = <-p.jobs:
			p.idle.Add(-1)
			idle.Stop()
		case <-idle.C:
			p.idle.Add(-1)
			return
		}
	}
}
