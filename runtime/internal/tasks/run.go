package tasks

// run.go: a task tool's handler running in the background, as seen by the
// call that started it: an ordinary call until it returns, asks a question
// or outlasts its threshold, then (maybe) a task; questions asked inside a
// 2026-07-28 task wait for tasks/update. What runs and how its outcome is
// encoded is the tasks extension's (runtime/tasks).

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Phases of a Run.
const (
	phaseCall = iota // still an ordinary call: MRTR questions, plain result
	phaseTask        // a task: its record exists, the client polls it
)

// A Run is the state of one task tool's handler running in the background.
type Run struct {
	start     chan struct{} // closed when Start asks for the task now
	startOnce sync.Once

	mu       sync.Mutex
	phase    int
	asked    bool // asked a question as an ordinary call (MRTR): it is about to return
	returned bool
	lastMsg  string                     // the last progress message before the task existed
	rec      *Record                    // the record as created (phaseTask)
	created  chan struct{}              // closed once rec is set (or failed to be)
	done     chan struct{}              // closed when the handler returned and its outcome is stored
	wake     chan struct{}              // answers or a cancel may have arrived
	used     map[string]json.RawMessage // the answers its questions got

	e     *Engine
	hooks Hooks
}

// Hooks are the runtime's side of a Run.
type Hooks interface {
	CancelHandler()                   // cancels the handler
	Warn(msg, task string, err error) // logs what went wrong in the background
	Changed(*Record)                  // tells listeners the task changed
	Started(*Record)                  // the run became the task of this record (before its handler learns it)
}

// DefaultMaxRunning bounds the task handlers one engine runs at once when
// no limit is given.
const DefaultMaxRunning = 1000

// Admit counts a handler about to run as a task, within limit (<= 0:
// DefaultMaxRunning); Release uncounts it when it returned. Beyond the limit
// it is refused (-32603, server busy).
func (e *Engine) Admit(limit int) *Error {
	if limit <= 0 {
		limit = DefaultMaxRunning
	}
	if e.running.Add(1) > int64(limit) {
		e.running.Add(-1)
		return errorf(CodeInternalError, "server busy: %d tasks running (the limit)", limit)
	}
	return nil
}

// Release uncounts a handler Admit counted.
func (e *Engine) Release() { e.running.Add(-1) }

// Running is the number of task handlers running (Admit).
func (e *Engine) Running() int64 { return e.running.Load() }

// NewRun returns the run of a handler about to start; now makes it a task
// from the start.
func (e *Engine) NewRun(now bool, h Hooks) *Run {
	r := new(Run)
	e.InitRun(r, now, h)
	return r
}

// InitRun makes *r a new run (NewRun) in place.
func (e *Engine) InitRun(r *Run, now bool, h Hooks) {
	r.start, r.created, r.done, r.wake = make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	r.e, r.hooks = e, h
	if now {
		r.phase = phaseTask
	}
}

// Start asks for the task now (the handler called runtime/tasks.Start) and
// reports whether the run is a task once that is decided; false when ctx
// ends first.
func (r *Run) Start(ctx context.Context) bool {
	r.startOnce.Do(func() { close(r.start) })
	select {
	case <-r.created:
		return r.rec != nil
	case <-ctx.Done():
		return false
	}
}

// An Outcome is what the call that started a run answers.
type Outcome int

const (
	// BecomeTask: the run is a task now; the call answers with its record.
	BecomeTask Outcome = iota
	// Answer: the handler returned, or asked a question as an ordinary call
	// (and has returned since); the call answers with what it returned.
	Answer
	// Gone: the client went away before the task existed; the handler is to
	// be cancelled.
	Gone
)

// Decide waits, up to threshold (none when the run was a task from the
// start), for the handler to return, ask for the task, or ctx to end, and
// says what the call answers.
func (r *Run) Decide(ctx context.Context, threshold time.Duration) Outcome {
	r.mu.Lock()
	now := r.phase == phaseTask
	r.mu.Unlock()
	if !now {
		timer := time.NewTimer(threshold)
		select {
		case <-r.done:
		case <-timer.C:
		case <-r.start:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase == phaseTask {
		return BecomeTask
	}
	if r.asked && !r.returned {
		r.mu.Unlock()
		<-r.done // an MRTR question ends the handler at once
		r.mu.Lock()
	}
	if r.returned || r.asked {
		return Answer
	}
	if ctx.Err() != nil {
		return Gone
	}
	r.phase = phaseTask
	return BecomeTask
}

// Created records the task's record (nil: it could not be created) and
// releases those waiting for it.
func (r *Run) Created(rec *Record) {
	r.rec = rec
	close(r.created)
}

// Begin creates the record of a run that became a task (Start, with the
// last progress message as its status): Hooks.Started is called with it
// before the handler learns the run is a task; then the record is followed while
// the handler runs (Follow: the lease, a cancel, answers given elsewhere). A
// record that cannot be created cancels the handler.
func (e *Engine) Begin(ctx context.Context, r *Run, owner, era, tool string, ttl time.Duration) (*Record, error) {
	rec, listErr, err := e.Start(ctx, owner, era, tool, ttl, r.LastMessage())
	if err != nil {
		r.hooks.CancelHandler()
		r.Created(nil)
		return nil, err
	}
	if listErr != nil {
		r.hooks.Warn("task not listed", rec.ID, listErr)
	}
	r.hooks.Started(rec)
	r.Created(rec)
	go r.follow(rec.ID)
	return rec, nil
}

// follow follows the record of the task while its handler runs (Follow).
func (r *Run) follow(id string) {
	r.e.Follow(id, r.done, r.hooks.CancelHandler, r.Poke, func(msg string, err error) { r.hooks.Warn(msg, id, err) })
}

// Settle creates the record of a run whose handler returned before it
// became a task (a required tool's), already in its final state (final).
func (e *Engine) Settle(ctx context.Context, r *Run, owner, era, tool string, ttl time.Duration, final func(*Record) error) (*Record, error) {
	rec, listErr, err := e.Start(ctx, owner, era, tool, ttl, "")
	if err != nil {
		return nil, fmt.Errorf("cannot create a task: %w", err)
	}
	if listErr != nil {
		r.hooks.Warn("task not listed", rec.ID, listErr)
	}
	if rec, err = e.Update(ctx, rec.ID, final); err != nil {
		return nil, fmt.Errorf("cannot finish a task: %w", err)
	}
	return rec, nil
}

// Cancel cancels the handler.
func (r *Run) Cancel() { r.hooks.CancelHandler() }

// Complete marks the handler returned (its outcome set before) and, when
// the run is a task, stores its outcome with final (an Update function); it
// returns nil, nil when the run stayed an ordinary call.
func (e *Engine) Complete(r *Run, final func(*Record) error) (*Record, error) {
	rec := r.Returned()
	if rec == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return e.Update(ctx, rec.ID, final)
}

// Record is the task's record as created; nil before, or without, one.
func (r *Run) Record() *Record {
	select {
	case <-r.created:
		return r.rec
	default:
		return nil
	}
}

// LastMessage is the last progress message reported before the task existed.
func (r *Run) LastMessage() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastMsg
}

// Returned marks the handler returned; the caller has set its outcome
// before. It returns the task's record once it exists, or nil when the run
// stayed an ordinary call (or its record could not be created): then there
// is no outcome to store. The caller calls Finish next.
func (r *Run) Returned() *Record {
	r.mu.Lock()
	r.returned = true
	phase := r.phase
	r.mu.Unlock()
	if phase == phaseCall {
		return nil
	}
	<-r.created
	return r.rec
}

// Finish marks the outcome stored: Done is closed.
func (r *Run) Finish() { close(r.done) }

// Done is closed when the handler returned and its outcome is stored.
func (r *Run) Done() <-chan struct{} { return r.done }

// Poke wakes a handler waiting for answers.
func (r *Run) Poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// InTask reports whether the run is a task (waiting until its record
// exists); false for nil.
func (r *Run) InTask() bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	phase := r.phase
	r.mu.Unlock()
	if phase == phaseCall {
		return false
	}
	<-r.created
	return r.rec != nil
}

// InCall runs ask, which asks questions as an ordinary call, while the run
// is still one, and reports true; ask reports whether a question was left
// without an answer (the call then ends with input_required and never
// becomes a task). It reports false, without running ask, once the run is
// (becoming) a task.
func (r *Run) InCall(ask func() (open bool)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.phase != phaseCall {
		return false
	}
	if ask() {
		r.asked = true
	}
	return true
}

// Asked reports whether the handler asked a question as an ordinary call
// and left it open (InCall): the call answers with its input_required round.
func (r *Run) Asked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked
}

// Progressed turns a progress report into a status message: before the
// task exists it is kept as the task's first status and handled is false
// (the report goes out as usual); inside a task it is the task's status.
func (r *Run) Progressed(progress, total float64, message string) (handled bool) {
	if message == "" {
		message = fmt.Sprintf("progress %g", progress)
		if total > 0 {
			message += fmt.Sprintf(" of %g", total)
		}
	}
	r.mu.Lock()
	if r.phase == phaseCall {
		r.lastMsg = message
		r.mu.Unlock()
		return false
	}
	r.mu.Unlock()
	if r.InTask() {
		r.SetStatus("", message)
	}
	return true
}

// SetStatus sets a running task's status message and moves it between
// working and input_required (st "" keeps its status).
func (r *Run) SetStatus(st Status, msg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if rec, changed, err := r.e.SetStatus(ctx, r.rec.ID, st, msg); err == nil && changed {
		r.hooks.Changed(rec)
	}
}

// A Question is one question a task's handler asks.
type Question interface {
	Key() string                       // its key among the task's inputRequests
	Request() (json.RawMessage, error) // its inputRequest: {"method":…,"params":…}
	Legacy() (method string, params any)
	Accept(answer json.RawMessage) error
}

// AskLegacy asks a 2025-11-25 task's questions as server-to-client
// requests (send), with the related-task _meta, within timeout; the task is
// input_required meanwhile.
func (r *Run) AskLegacy(ctx context.Context, qs []Question, timeout time.Duration, send func(ctx context.Context, method string, params any) (json.RawMessage, error)) error {
	r.SetStatus(InputRequired, "waiting for input")
	defer r.SetStatus(Working, "input received")
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, q := range qs {
		method, p := q.Legacy()
		params, err := RelatedParams(p, r.rec.ID)
		if err != nil {
			return err
		}
		raw, err := send(ctx, method, params)
		if err != nil {
			return err
		}
		if err := q.Accept(raw); err != nil {
			return err
		}
	}
	return nil
}

// Ask answers questions asked inside a 2026-07-28 task: open ones become
// the task's inputRequests (input_required) until tasks/update delivers
// their answers. A store error is wrapped in noInput.
func (r *Run) Ask(ctx context.Context, qs []Question, noInput error) error {
	e := r.e
	for {
		open := map[string]json.RawMessage{}
		r.mu.Lock()
		for _, q := range qs {
			if _, ok := r.used[q.Key()]; !ok {
				b, err := q.Request()
				if err != nil {
					r.mu.Unlock()
					return err
				}
				open[q.Key()] = b
			}
		}
		r.mu.Unlock()
		if len(open) > 0 {
			got, rec, err := e.Ask(ctx, r.rec.ID, open)
			if err != nil {
				return fmt.Errorf("%w: %v", noInput, err)
			}
			if rec.Status == InputRequired {
				r.hooks.Changed(rec)
			}
			r.mu.Lock()
			for k, v := range got {
				if r.used == nil {
					r.used = map[string]json.RawMessage{}
				}
				r.used[k] = v
				delete(open, k)
			}
			r.mu.Unlock()
		}
		if len(open) == 0 {
			for _, q := range qs {
				r.mu.Lock()
				raw := r.used[q.Key()]
				r.mu.Unlock()
				if err := q.Accept(raw); err != nil {
					return fmt.Errorf("answer to %s: %w", q.Key(), err)
				}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.wake:
		}
	}
}
