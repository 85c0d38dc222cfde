// Package workpool runs functions on goroutines that outlive the function they
// run, so that the stack one request grew (encoding/json needs about 16 KB)
// serves the next one instead of being grown again from 8 KB on a fresh
// goroutine. A profile of the harness's HTTP cells showed
// runtime.newstack/copystack at 10% to 17% of the server's CPU with a
// goroutine per request.
package workpool

import (
	"sync/atomic"
	"time"
)

// MaxIdle bounds the goroutines kept waiting for work (each holds its stack,
// at most a few tens of KB, until the GC shrinks it).
const MaxIdle = 64

// A Pool runs functions on reused goroutines.
type Pool struct {
	jobs    chan func() // unbuffered: a send succeeds only when a worker is idle
	idleFor time.Duration
	idle    atomic.Int32
}

// New returns a pool whose idle workers end after idleFor without work: a
// server with no traffic keeps no goroutine of the pool.
func New(idleFor time.Duration) *Pool {
	return &Pool{jobs: make(chan func()), idleFor: idleFor}
}

// Idle returns how many workers wait for work.
func (p *Pool) Idle() int { return int(p.idle.Load()) }

// Go runs f on an idle worker, or on a new one.
func (p *Pool) Go(f func()) {
	select {
	case p.jobs <- f:
	default:
		go p.work(f)
	}
}

// work runs f, then waits for more, up to p.idleFor, while fewer than MaxIdle
// wait.
func (p *Pool) work(f func()) {
	var idle *time.Timer
	for {
		f()
		f = nil // drop what f holds while idle
		if p.idle.Add(1) > MaxIdle {
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
