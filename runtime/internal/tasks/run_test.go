package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

// TestRunDecide: what the call answers for each way a handler ends up.
func TestRunDecide(t *testing.T) {
	ctx := context.Background()
	// Returned within the threshold: the call answers itself.
	r := NewRun(false)
	go func() {
		if rec := r.Returned(); rec != nil {
			t.Error("a run that stayed a call has a record")
		}
		r.Finish()
	}()
	if got := r.Decide(ctx, time.Minute); got != Answer {
		t.Errorf("returned: %v, want Answer", got)
	}
	// Outlasting the threshold: a task.
	r = NewRun(false)
	if got := r.Decide(ctx, time.Millisecond); got != BecomeTask {
		t.Errorf("slow: %v, want BecomeTask", got)
	}
	if r.InCall(func() bool { t.Error("asked as a call inside a task"); return true }) {
		t.Error("InCall true inside a task")
	}
	// StartTask: a task at once, and Start learns it once the record exists.
	r = NewRun(false)
	started := make(chan bool)
	go func() { started <- r.Start(ctx) }()
	if got := r.Decide(ctx, time.Minute); got != BecomeTask {
		t.Errorf("started: %v, want BecomeTask", got)
	}
	rec := &Record{ID: "x"}
	r.Created(rec)
	if !<-started || !r.InTask() || r.Record() != rec {
		t.Error("Start or InTask false once the record exists")
	}
	// An MRTR question as a call: the call waits for the return and answers.
	r = NewRun(false)
	if !r.InCall(func() bool { return true }) {
		t.Fatal("InCall false in a call")
	}
	go func() { time.Sleep(10 * time.Millisecond); r.Returned(); r.Finish() }()
	if got := r.Decide(ctx, time.Minute); got != Answer {
		t.Errorf("asked: %v, want Answer", got)
	}
	// The client gone before the task existed.
	r = NewRun(false)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got := r.Decide(cctx, time.Minute); got != Gone {
		t.Errorf("gone: %v, want Gone", got)
	}
	// A task from the start: no wait; a record that could not be created.
	r = NewRun(true)
	if got := r.Decide(ctx, -1); got != BecomeTask {
		t.Errorf("now: %v, want BecomeTask", got)
	}
	r.Created(nil)
	if r.InTask() || r.Start(ctx) {
		t.Error("a run without a record is a task")
	}
	var none *Run
	if none.InTask() {
		t.Error("nil run in a task")
	}
}

func TestRunProgressed(t *testing.T) {
	r := NewRun(false)
	if msg, set, handled := r.Progressed(3, 10, ""); msg != "progress 3 of 10" || set || handled {
		t.Errorf("in a call: %q %v %v", msg, set, handled)
	}
	if r.LastMessage() != "progress 3 of 10" {
		t.Errorf("last message %q", r.LastMessage())
	}
	r.Decide(context.Background(), 0)
	r.Created(&Record{ID: "x"})
	if msg, set, handled := r.Progressed(4, 0, "half"); msg != "half" || !set || !handled {
		t.Errorf("in a task: %q %v %v", msg, set, handled)
	}
}

type question struct {
	key string
	got *json.RawMessage
}

func (q question) Key() string { return q.key }
func (q question) Request() (json.RawMessage, error) {
	return json.RawMessage(`{"method":"elicitation/create","params":{}}`), nil
}
func (q question) Accept(raw json.RawMessage) error { *q.got = raw; return nil }

// TestRunAsk: a question inside a task makes it input_required until an
// answer arrives (Answer, then Poke); the answer reaches the question.
func TestRunAsk(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r1")
	rec, err := e.Create(ctx, "alice", Modern, "tool", time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRun(true)
	r.Decide(ctx, -1)
	r.Created(rec)
	var got json.RawMessage
	waiting := make(chan *Record, 1)
	errc := make(chan error)
	go func() {
		errc <- r.Ask(ctx, e, []Question{question{"q", &got}}, func(rec *Record) { waiting <- rec }, errors.New("no input"))
	}()
	if w := <-waiting; w.Status != InputRequired {
		t.Fatalf("status while asking %s", w.Status)
	}
	if _, taken, err := e.Answer(ctx, rec.ID, map[string]json.RawMessage{"q": json.RawMessage(`{"action":"accept"}`)}); err != nil || !taken {
		t.Fatalf("answer: %v %v", taken, err)
	}
	r.Poke()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"action":"accept"}` {
		t.Errorf("answer %s", got)
	}
	noInput := errors.New("no input")
	r2 := NewRun(true)
	r2.Decide(ctx, -1)
	r2.Created(&Record{ID: NewID()}) // no such record in the store
	if err := r2.Ask(ctx, e, []Question{question{"q", &got}}, func(*Record) {}, noInput); !errors.Is(err, noInput) {
		t.Errorf("ask on a missing record: %v", err)
	}
}
