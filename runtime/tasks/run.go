package tasks

// run.go: a tools/call of a task tool: the interceptor that routes it, its
// handler running in the background (runtime.Detach) under CallHooks, the
// answer (its own result, or a CreateTaskResult), and the outcome stored.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
)

// toolCall routes a tools/call (tasks.Route): a call of a task tool from a
// client that supports tasks runs in the background; other calls go on
// (next), or are refused (a required tool, a 2025-11-25 params.task on a
// plain tool). It runs after the arguments were validated and the caller
// authorized: such refusals never become tasks.
func (x *ext) toolCall(ctx context.Context, req *runtime.ToolRequest, next runtime.ToolHandler) (*runtime.ToolResult, error) {
	params := runtime.RequestParams(ctx)
	if req.Tool == nil || req.Tool.Task == "" && !bytes.Contains(params, []byte(`"task"`)) {
		return next(ctx, req) // a plain call (a 2025-11-25 params.task on a plain tool is refused below)
	}
	info := runtime.RequestFrom(ctx)
	if info.Modern && req.Tool.Task == "" {
		return next(ctx, req) // 2026-07-28 ignores params.task
	}
	asTask, now, ttl, terr := tasks.Route(info.Modern, info.ProtocolVersion, info.ClientCapabilities, params, req.Name, string(req.Tool.Task))
	if terr != nil {
		return nil, rpcError(terr)
	}
	if !asTask {
		return next(ctx, req)
	}
	threshold := x.threshold
	if now {
		threshold = -1
	}
	return x.run(ctx, info, req, next, ttl, threshold)
}

// A run is a task tool's handler running in the background: its phases and
// questions (tasks.Run), and what it runs under and returned.
type run struct {
	tasks.Run
	x       *ext
	tool    *runtime.Tool
	modern  bool
	version string
	owner   string
	sess    *runtime.Session   // 2025-11-25: where its questions and status go
	ctx     context.Context    // the handler's (runtime.Detach)
	cancel  context.CancelFunc // cancels the handler
	res     *runtime.ToolResult
	err     error // res and err are set before Run.Returned

	ansOnce sync.Once
	ans     runtime.ToolAnswer
	// stopped is set when the server shut down while the handler ran: a
	// handler that then fails (an error, or an isError result) ends its task
	// with the engine's StoppedMessage.
	stopped atomic.Bool
}

// The hooks of a run (tasks.Hooks).
func (t *run) CancelHandler()                   { t.cancel() }
func (t *run) Changed(rec *tasks.Record)        { t.x.changed(rec) }
func (t *run) Started(rec *tasks.Record)        { t.x.runs.Store(rec.ID, t) }
func (t *run) Warn(msg, task string, err error) { t.x.s.Logger().Warn(msg, "task", task, "err", err) }

type runKey struct{}

// Start makes the call ctx belongs to a task now, if its tool may run as
// one and its client supports tasks; it reports whether the call is a task.
// A handler calls it before it asks the user something that should be
// answered through the task (tasks/update) rather than by retrying the call.
// Outside a task tool's call it reports false.
func Start(ctx context.Context) bool {
	t, _ := ctx.Value(runKey{}).(*run)
	return t != nil && t.Run.Start(ctx)
}

// run runs the rest of the call in the background and answers it: with its
// result if it finished (or asked a question) within threshold, else with a
// new task. A required tool always answers with a task; a negative
// threshold makes the task at once.
func (x *ext) run(ctx context.Context, info *runtime.RequestInfo, req *runtime.ToolRequest, next runtime.ToolHandler, ttlMs int64, threshold time.Duration) (*runtime.ToolResult, error) {
	eng := x.engine()
	if terr := eng.Admit(x.opts.MaxTasks); terr != nil {
		return nil, rpcError(terr)
	}
	ttl := eng.ClampTTL(ttlMs)
	hctx, cancel := context.WithTimeout(runtime.Detach(ctx), ttl) // the TTL bounds the handler
	t := &run{x: x, tool: req.Tool, modern: info.Modern, version: info.ProtocolVersion, owner: owner(ctx),
		sess: runtime.SessionFrom(ctx), cancel: cancel}
	eng.InitRun(&t.Run, threshold < 0, t)
	t.ctx = runtime.WithCallHooks(context.WithValue(hctx, runKey{}, t), &runtime.CallHooks{Ask: t.ask,
		Progress: t.progressed, Quiet: func(context.Context) bool { return t.InTask() }})
	go t.handle(req, next)
	switch t.Decide(ctx, threshold) {
	case tasks.Answer:
		return t.callPhase(ctx, ttl)
	case tasks.Gone: // the client went away before the task existed
		cancel()
		<-t.Done()
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: "request cancelled"}
	}
	return t.begin(ctx, ttl)
}

// handle runs the rest of the call (next) and records its outcome; a panic
// of an interceptor after this one fails it as a handler's panic would.
func (t *run) handle(req *runtime.ToolRequest, next runtime.ToolHandler) {
	defer t.x.engine().Release()
	res, err := func() (res *runtime.ToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				t.x.s.Logger().Error("tool interceptor panicked", "tool", t.tool.Name, "panic", fmt.Sprint(p))
				res, err = nil, &runtime.ToolError{Code: runtime.ErrCodeInternal, Message: "internal error in tool " + t.tool.Name}
			}
		}()
		return next(t.ctx, req)
	}()
	t.returnedWith(res, err)
}

// answer is what the call's outcome answers (runtime.AnswerTool), made once
// the handler returned.
func (t *run) answer() runtime.ToolAnswer {
	t.ansOnce.Do(func() { t.ans = runtime.AnswerTool(t.ctx, t.res, t.err) })
	return t.ans
}

// begin creates the record of a run that became a task and answers the call
// with it.
func (t *run) begin(ctx context.Context, ttl time.Duration) (*runtime.ToolResult, error) {
	rec, err := t.x.engine().Begin(ctx, &t.Run, t.owner, t.version, t.tool.Name, ttl)
	if err != nil {
		t.x.s.Logger().Error("task not created", "tool", t.tool.Name, "err", err)
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: fmt.Sprintf("internal error: cannot create a task: %v", err)}
	}
	t.x.changed(rec)
	return runtime.RawToolResult(t.x.created(t.modern, rec)), nil
}

// callPhase answers a call whose handler returned (or asked a question)
// before it became a task: as a plain call (the core encodes it, or its
// input_required round), or, for a required tool without open questions, a
// task already in its final state.
func (t *run) callPhase(ctx context.Context, ttl time.Duration) (*runtime.ToolResult, error) {
	if t.tool.Task != runtime.TaskRequired || t.Asked() || t.answer().Error != nil {
		return t.res, t.err
	}
	rec, err := t.x.engine().Settle(ctx, &t.Run, t.owner, t.version, t.tool.Name, ttl, t.final)
	if err != nil {
		return nil, &runtime.RPCError{Code: runtime.CodeInternalError, Message: "internal error: " + err.Error()}
	}
	t.x.changed(rec)
	t.audit(rec)
	return runtime.RawToolResult(t.x.created(t.modern, rec)), nil
}

// created is the CreateTaskResult of the call's era.
func (x *ext) created(modern bool, rec *tasks.Record) []byte {
	if modern {
		return tasks.CreateResult(rec, x.meta)
	}
	return tasks.LegacyCreate(rec)
}

// returnedWith records the handler's outcome; a task stores it.
func (t *run) returnedWith(res *runtime.ToolResult, err error) {
	t.res, t.err = res, err
	defer t.Finish()
	defer t.Cancel()
	rec, serr := t.x.engine().Complete(&t.Run, t.final)
	if r := t.Record(); r != nil {
		defer t.x.runs.Delete(r.ID)
	}
	switch {
	case serr != nil:
		t.x.s.Logger().Error("task result not stored", "task", t.Record().ID, "err", serr)
	case rec != nil:
		t.x.changed(rec)
		t.audit(rec)
	}
}

// final puts a record into the terminal state the handler's outcome makes
// (an Update function): a cancelled or abandoned task stays as it is.
func (t *run) final(rec *tasks.Record) error {
	if rec.Status.Terminal() {
		return tasks.ErrNoChange
	}
	eng := t.x.engine()
	defer eng.Touch(rec)
	a := t.answer()
	switch {
	case t.stopped.Load() && (a.Error != nil || a.IsError):
		tasks.Fail(rec, runtime.CodeInternalError, eng.StoppedMessage(), nil)
	case a.Error != nil:
		tasks.Fail(rec, a.Error.Code, a.Error.Message, a.Error.Data)
	case a.ToolError != nil && a.ToolError.Code == runtime.ErrCodeInternal:
		tasks.Fail(rec, runtime.CodeInternalError, a.ToolError.Message, map[string]any{"error": a.ToolError})
	default:
		tasks.Succeed(rec, a.Result, a.IsError)
	}
	return nil
}

// audit writes the record of a task whose handler ended (runtime.Audit),
// under the id of the request that created it (audited when it was
// answered, with the task as its result): the task's own outcome (failed:
// rpc_error, completed with isError: tool_error, cancelled).
func (t *run) audit(rec *tasks.Record) {
	end := runtime.AuditEnd{TaskID: rec.ID, TaskStatus: string(rec.Status)}
	switch rec.Status {
	case tasks.Failed:
		var e struct{ Code int }
		if json.Unmarshal(rec.Error, &e) != nil || e.Code == 0 {
			e.Code = runtime.CodeInternalError
		}
		end.Code = e.Code
	case tasks.Completed:
		if a := t.answer(); a.IsError {
			end.ToolError = "error"
			if a.ToolError != nil {
				end.ToolError = a.ToolError.Code
			}
		}
	}
	runtime.Audit(t.ctx, end)
}

// ask asks questions from a task tool's handler (CallHooks.Ask): as an
// ordinary call (MRTR: a question without an answer ends the call with
// input_required and keeps it from becoming a task) or inside the task: open
// ones become the task's inputRequests (input_required) until tasks/update
// delivers their answers (2026-07-28), or server-to-client requests on the
// session's own stream (2025-11-25).
func (t *run) ask(ctx context.Context, qs []runtime.Question, plain func() error) error {
	var err error
	if t.InCall(func() bool { err = plain(); return errors.Is(err, runtime.ErrInputRequired) }) {
		return err
	}
	if !t.InTask() {
		return runtime.ErrNoInput
	}
	asked := make([]tasks.Question, len(qs))
	for i := range qs {
		asked[i] = question{&qs[i]}
	}
	if t.modern {
		return t.Ask(ctx, asked, runtime.ErrNoInput)
	}
	if t.sess == nil {
		return runtime.ErrNoInput
	}
	return t.AskLegacy(ctx, asked, t.x.opts.InputTimeout, func(ctx context.Context, method string, params any) (json.RawMessage, error) {
		return t.sess.Request(ctx, method, params, nil)
	})
}

// progressed turns a progress report into the task's status message
// (CallHooks.Progress): it reports true inside a task; before, the message is
// kept for the task's first status and the report goes out as usual.
func (t *run) progressed(_ context.Context, progress, total float64, message string) bool {
	return t.Progressed(progress, total, message)
}

// A question is a runtime.Question as the engine asks it inside a task
// (tasks.Question).
type question struct{ q *runtime.Question }

func (a question) Key() string                      { return a.q.Key() }
func (a question) Legacy() (string, any)            { return a.q.Request(false) }
func (a question) Accept(raw json.RawMessage) error { return a.q.Answer(raw) }
func (a question) Request() (json.RawMessage, error) {
	method, params := a.q.Request(true)
	return json.Marshal(map[string]any{"method": method, "params": params})
}
