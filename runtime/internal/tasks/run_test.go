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
	e := New(store.NewMemory(), Limits{}, "r1")
	// Returned within the threshold: the call answers itself.
	r := e.NewRun(false, fnHooks{})
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
	r = e.NewRun(false, fnHooks{})
	if got := r.Decide(ctx, time.Millisecond); got != BecomeTask {
		t.Errorf("slow: %v, want BecomeTask", got)
	}
	if r.InCall(func() bool { t.Error("asked as a call inside a task"); return true }) {
		t.Error("InCall true inside a task")
	}
	// tasks.Start: a task at once, and Start learns it once the record exists.
	r = e.NewRun(false, fnHooks{})
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
	r = e.NewRun(false, fnHooks{})
	if !r.InCall(func() bool { return true }) {
		t.Fatal("InCall false in a call")
	}
	go func() { time.Sleep(10 * time.Millisecond); r.Returned(); r.Finish() }()
	if got := r.Decide(ctx, time.Minute); got != Answer {
		t.Errorf("asked: %v, want Answer", got)
	}
	// The client gone before the task existed.
	r = e.NewRun(false, fnHooks{})
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if got := r.Decide(cctx, time.Minute); got != Gone {
		t.Errorf("gone: %v, want Gone", got)
	}
	// A task from the start: no wait; a record that could not be created.
	r = e.NewRun(true, fnHooks{})
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
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r1")
	var changed []*Record
	r := e.NewRun(false, fnHooks{Change: func(rec *Record) { changed = append(changed, rec) }})
	if r.Progressed(3, 10, "") {
		t.Error("a report before the task existed was handled")
	}
	if r.LastMessage() != "progress 3 of 10" {
		t.Errorf("last message %q", r.LastMessage())
	}
	r.Decide(ctx, 0)
	rec, err := e.Begin(ctx, r, "alice", Modern, "tool", time.Minute)
	if err != nil || rec.Message != "progress 3 of 10" {
		t.Fatalf("begin: %v %v", rec, err)
	}
	if !r.Progressed(4, 0, "") || len(changed) != 1 || changed[0].Message != "progress 4" {
		t.Errorf("inside the task: %v", changed)
	}
	r.Progressed(4, 0, "") // no change: no notification
	if len(changed) != 1 {
		t.Errorf("%d notifications for one change", len(changed))
	}
	r.Returned()
	r.Finish()
}

type question struct {
	key string
	got *json.RawMessage
}

func (q question) Key() string { return q.key }
func (q question) Request() (json.RawMessage, error) {
	return json.RawMessage(`{"method":"elicitation/create","params":{}}`), nil
}
func (q question) Legacy() (string, any)            { return "elicitation/create", map[string]any{"message": "m"} }
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
	waiting := make(chan *Record, 1)
	r := e.NewRun(true, fnHooks{Change: func(rec *Record) { waiting <- rec }})
	r.Decide(ctx, -1)
	r.Created(rec)
	var got json.RawMessage
	errc := make(chan error)
	go func() {
		errc <- r.Ask(ctx, []Question{question{"q", &got}}, errors.New("no input"))
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
	r2 := e.NewRun(true, fnHooks{})
	r2.Decide(ctx, -1)
	r2.Created(&Record{ID: NewID()}) // no such record in the store
	if err := r2.Ask(ctx, []Question{question{"q", &got}}, noInput); !errors.Is(err, noInput) {
		t.Errorf("ask on a missing record: %v", err)
	}
}

// TestRunLifecycle: Begin creates and lists the record (2025-11-25),
// registers it before the handler learns it is a task, and follows it;
// Complete stores the outcome; Settle makes a finished task at once; a
// store that refuses the record cancels the handler.
func TestRunLifecycle(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r1")
	cancelled := 0
	var registered *Record
	r := e.NewRun(true, fnHooks{Cancel: func() { cancelled++ }, Warned: func(msg, task string, err error) { t.Errorf("%s %s: %v", msg, task, err) },
		Start: func(rec *Record) { registered = rec }})
	r.Decide(ctx, -1)
	learnt := make(chan bool)
	go func(r *Run) { learnt <- r.Start(ctx) && registered != nil }(r)
	rec, err := e.Begin(ctx, r, "alice", Legacy, "tool", time.Minute)
	if err != nil || registered != rec || r.Record() != rec {
		t.Fatalf("begin: %v", err)
	}
	if !<-learnt {
		t.Error("the handler learnt of its task before it was registered")
	}
	if list, _ := e.List(ctx, "alice", Legacy); len(list) != 1 || list[0].ID != rec.ID {
		t.Errorf("listed: %v", list)
	}
	done, err := e.Complete(r, func(rec *Record) error { Finish(rec, Completed, "ok", json.RawMessage(`{}`), nil); return nil })
	r.Finish()
	if err != nil || done.Status != Completed {
		t.Fatalf("complete: %v %v", done, err)
	}
	settled, err := e.Settle(ctx, r, "alice", Modern, "tool", time.Minute, func(rec *Record) error { Fail(rec, -32603, "boom", nil); return nil })
	if err != nil || settled.Status != Failed || string(settled.Error) != `{"code":-32603,"message":"boom"}` {
		t.Errorf("settle: %+v %v", settled, err)
	}
	if rec, err := e.Complete(e.NewRun(false, fnHooks{}), nil); rec != nil || err != nil {
		t.Errorf("complete of a call: %v %v", rec, err)
	}
	down := New(failingStore{store.NewMemory()}, Limits{}, "r1")
	r = down.NewRun(true, fnHooks{Cancel: func() { cancelled++ }, Start: func(*Record) { t.Error("registered a record the store refused") }})
	if _, err := down.Begin(ctx, r, "alice", Modern, "tool", time.Minute); err == nil || cancelled != 1 || r.InTask() {
		t.Errorf("begin on a store that refuses: %v, cancelled %d", err, cancelled)
	}
}

// failingStore refuses every new key.
type failingStore struct{ *store.Memory }

func (failingStore) PutIfAbsent(context.Context, string, []byte, time.Duration) (bool, error) {
	return false, errors.New("store down")
}

// TestRunAskLegacy: a 2025-11-25 task's questions go out as requests with
// the related-task _meta while the task is input_required; it works again
// after.
func TestRunAskLegacy(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r1")
	rec, err := e.Create(ctx, "alice", Legacy, "tool", time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	var statuses []Status
	r := e.NewRun(true, fnHooks{Change: func(rec *Record) { statuses = append(statuses, rec.Status) }})
	r.Decide(ctx, -1)
	r.Created(rec)
	var got json.RawMessage
	var sent string
	err = r.AskLegacy(ctx, []Question{question{"q", &got}}, time.Second, func(_ context.Context, method string, params any) (json.RawMessage, error) {
		b, _ := json.Marshal(params)
		sent = method + " " + string(b)
		return json.RawMessage(`{"action":"decline"}`), nil
	})
	if err != nil || string(got) != `{"action":"decline"}` {
		t.Fatalf("ask: %v %s", err, got)
	}
	if want := `elicitation/create {"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + rec.ID + `"}},"message":"m"}`; sent != want {
		t.Errorf("sent %s, want %s", sent, want)
	}
	if len(statuses) != 2 || statuses[0] != InputRequired || statuses[1] != Working {
		t.Errorf("statuses %v", statuses)
	}
	failed := errors.New("client gone")
	if err := r.AskLegacy(ctx, []Question{question{"q", &got}}, time.Second, func(context.Context, string, any) (json.RawMessage, error) { return nil, failed }); !errors.Is(err, failed) {
		t.Errorf("a failed request: %v", err)
	}
}

func TestAdmit(t *testing.T) {
	e := New(store.NewMemory(), Limits{}, "r1")
	if err := e.Admit(1); err != nil || e.Running() != 1 {
		t.Fatalf("first: %v, running %d", err, e.Running())
	}
	if err := e.Admit(1); err == nil || err.Code != CodeInternalError || err.Msg != "server busy: 1 tasks running (the limit)" {
		t.Errorf("beyond the limit: %v", err)
	}
	e.Release()
	if e.Running() != 0 {
		t.Errorf("running %d after release", e.Running())
	}
	for range DefaultMaxRunning {
		if err := e.Admit(0); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Admit(0); err == nil {
		t.Error("the default limit let one more run")
	}
	rec := &Record{}
	Succeed(rec, json.RawMessage(`{"isError":true}`), true)
	if rec.Status != Completed || rec.Message != "completed with a tool error" {
		t.Errorf("succeed: %+v", rec)
	}
}

// fnHooks are Hooks made of functions; nil ones do nothing.
type fnHooks struct {
	Cancel        func()
	Warned        func(msg, task string, err error)
	Change, Start func(*Record)
}

func (h fnHooks) CancelHandler() {
	if h.Cancel != nil {
		h.Cancel()
	}
}

func (h fnHooks) Warn(msg, task string, err error) {
	if h.Warned != nil {
		h.Warned(msg, task, err)
	}
}

func (h fnHooks) Changed(rec *Record) {
	if h.Change != nil {
		h.Change(rec)
	}
}

func (h fnHooks) Started(rec *Record) {
	if h.Start != nil {
		h.Start(rec)
	}
}
