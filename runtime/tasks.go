package runtime

// tasks.go: tools that run as tasks (docs/tasks.md): when a tools/call
// becomes a task, its handler running in the background, and its outcome
// stored. The engine, the run's phases and questions, the records and their
// wire shapes live in internal/tasks; the tasks/* methods are wired in
// tasks_methods.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
)

// A TaskSupport says whether a tool runs as a task (Tool.Task).
type TaskSupport string

// The values of Tool.Task ("" is a plain tool).
const (
	// TaskOptional: the server decides per call (docs/tasks.md): a call that
	// has not finished within Options.TaskThreshold becomes a task.
	TaskOptional TaskSupport = "optional"
	// TaskRequired: every call is a task; clients that do not support tasks
	// get -32021 (2026-07-28) or -32601 (2025-11-25).
	TaskRequired TaskSupport = "required"
)

// TaskLeaseEnv names the environment variable that sets the task lease
// (a Go duration, e.g. "5s") when Options.TaskLease is 0.
const TaskLeaseEnv = "MCP_TASK_LEASE"

const (
	extTasks = tasks.Extension
	// defaultTaskThreshold is how long a task tool's handler runs as a plain
	// call before it becomes a task.
	defaultTaskThreshold = 100 * time.Millisecond
)

// taskState is the server's task machinery, made on first use (the store may
// be replaced until then: SetStore).
type taskState struct {
	once sync.Once
	eng  *tasks.Engine
	any  atomic.Bool // a task tool is registered
	runs sync.Map    // task id -> *taskRun, the tasks whose handlers run here
}

// taskEngine returns the server's task engine.
func (s *Server) taskEngine() *tasks.Engine {
	t := &s.tasks
	t.once.Do(func() {
		o := &s.opts
		t.eng = tasks.Open(s.store, tasks.Limits{DefaultTTL: o.TaskTTL, MaxTTL: o.TaskMaxTTL,
			Poll: o.TaskPollInterval, Lease: o.TaskLease}, TaskLeaseEnv)
	})
	return t.eng
}

// A taskRun is a task tool's handler running in the background: its phases
// and questions (tasks.Run), and what it runs under and returned.
type taskRun struct {
	tasks.Run
	cancel context.CancelFunc
	s      *Server
	c      *call
	e      *toolEntry
	r      *round
	res    *ToolResult // set before Run.Returned
	rerr   *rpcError
	// stopped is set when the server shut down while the handler ran: a
	// handler that then fails (an error, or an isError result) ends its task
	// with the engine's StoppedMessage.
	stopped atomic.Bool
}

// The hooks of a run (tasks.Hooks).
func (t *taskRun) CancelHandler()                   { t.cancel() }
func (t *taskRun) Changed(rec *tasks.Record)        { t.s.taskStatusChanged(rec) }
func (t *taskRun) Started(rec *tasks.Record)        { t.s.tasks.runs.Store(rec.ID, t) }
func (t *taskRun) Warn(msg, task string, err error) { t.s.logger.Warn(msg, "task", task, "err", err) }

type taskKey struct{}

// taskFrom returns the task run of a handler's context, or nil.
func taskFrom(ctx context.Context) *taskRun {
	tr, _ := ctx.Value(taskKey{}).(*taskRun)
	return tr
}

// StartTask makes the call ctx belongs to a task now, if its tool may run as
// one and its client supports tasks; it reports whether the call is a task.
// A handler calls it before it asks the user something that should be
// answered through the task (tasks/update) rather than by retrying the call.
func StartTask(ctx context.Context) bool {
	tr := taskFrom(ctx)
	return tr != nil && tr.Start(ctx)
}

// callToolTask routes a tools/call of a task tool (tasks.Route): handled
// false lets it run as a plain call.
func (s *Server) callToolTask(ctx context.Context, c *call, e *toolEntry, args json.RawMessage) ([]byte, *rpcError, bool) {
	asTask, now, ttl, terr := tasks.Route(c.info.Modern, c.info.ProtocolVersion, c.info.ClientCapabilities, c.msg.Params, e.tool.Name, string(e.tool.Task))
	if terr != nil || !asTask {
		return nil, taskError(terr), terr != nil
	}
	threshold := s.opts.TaskThreshold
	if now {
		threshold = -1
	}
	b, rerr := s.runTask(ctx, c, e, args, ttl, threshold)
	return b, rerr, true
}

// runTask runs the handler in the background and answers the call: with its
// result if it finished (or asked a question) within threshold, else with a
// new task. A required tool always answers with a task; a negative threshold
// makes the task at once.
func (s *Server) runTask(ctx context.Context, c *call, e *toolEntry, args json.RawMessage, ttlMs int64, threshold time.Duration) ([]byte, *rpcError) {
	eng := s.taskEngine()
	if terr := eng.Admit(s.opts.MaxTasks); terr != nil {
		return nil, taskError(terr)
	}
	ttl := eng.ClampTTL(ttlMs)
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl)
	tr := &taskRun{s: s, e: e, cancel: cancel}
	eng.InitRun(&tr.Run, threshold < 0, tr)
	hctx = WithCallHooks(context.WithValue(hctx, taskKey{}, tr), &CallHooks{Ask: tr.askAny,
		Progress: tr.progressed, Quiet: func(context.Context) bool { return tr.InTask() }})
	hc := handlerCall(c, hctx)
	tr.c, tr.r = hc, &hc.round
	go func() {
		defer eng.Release()
		res, rerr := s.runTool(&hc.ctx, hc, e, args)
		tr.returnedWith(res, rerr)
	}()
	switch tr.Decide(ctx, threshold) {
	case tasks.Answer:
		return s.concludeCallPhase(ctx, c, tr, ttl)
	case tasks.Gone: // the client went away before the task existed
		cancel()
		<-tr.Done()
		return nil, errorf(CodeInternalError, "request cancelled")
	}
	return s.startTask(ctx, tr, ttl)
}

// handlerCall is the call a task tool's handler runs under: made from the
// request's call, with its round, but its own, since it outlives the request
// (which is answered and audited while the handler runs on). Its context is
// ctx: the request's values without its cancellation; no CallTimeout deadline
// (the task's TTL bounds it).
func handlerCall(c *call, ctx context.Context) *call {
	hc := &call{srv: c.srv, msg: c.msg, sess: c.sess, out: c.out, info: c.info, handle: c.handle,
		tool: c.tool, progressToken: c.progressToken, logLevel: c.logLevel, clientInfo: c.clientInfo}
	if c.fx != nil { // audited: the task's record counts from the request's admission
		hc.fx = &callEffects{admitted: c.fx.admitted}
	}
	hc.round.Inherit(&c.round)
	hc.ctx = callCtx{ctx, hc}
	return hc
}

// startTask creates the record of a run that became a task and answers the
// call with it.
func (s *Server) startTask(ctx context.Context, tr *taskRun, ttl time.Duration) ([]byte, *rpcError) {
	c, name := tr.c, tr.e.tool.Name
	rec, err := s.taskEngine().Begin(ctx, &tr.Run, principalID(c.caller()), c.info.ProtocolVersion, name, ttl)
	if err != nil {
		s.logger.Error("task not created", "tool", name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: cannot create a task: %v", err)
	}
	s.taskStatusChanged(rec)
	return s.createdResult(c, rec), nil
}

// concludeCallPhase answers a call whose handler returned (or asked a
// question) before it became a task: its own reply, or, for a required tool
// without open questions, a task already in its final state.
func (s *Server) concludeCallPhase(ctx context.Context, c *call, tr *taskRun, ttl time.Duration) ([]byte, *rpcError) {
	r := tr.r
	mrtr := r.Pending()
	if tr.e.tool.Task != TaskRequired || mrtr || tr.rerr != nil {
		return s.toolReply(c, tr.e, r, tr.res, tr.rerr)
	}
	rec, err := s.taskEngine().Settle(ctx, &tr.Run, principalID(c.caller()), c.info.ProtocolVersion, tr.e.tool.Name, ttl, tr.final)
	if err != nil {
		return nil, errorf(CodeInternalError, "internal error: %v", err)
	}
	s.taskStatusChanged(rec)
	if s.audit != nil {
		s.auditTask(tr, rec)
	}
	return s.createdResult(c, rec), nil
}

// createdResult is the CreateTaskResult of the call's era.
func (s *Server) createdResult(c *call, rec *tasks.Record) []byte {
	if c.info.Modern {
		return tasks.CreateResult(rec, s.serverInfoMeta)
	}
	return tasks.LegacyCreate(rec)
}

// returnedWith records the handler's outcome; a task records it in the store.
func (t *taskRun) returnedWith(res *ToolResult, rerr *rpcError) {
	t.res, t.rerr = res, rerr
	defer t.Finish()
	defer t.Cancel()
	rec, err := t.s.taskEngine().Complete(&t.Run, t.final)
	if r := t.Record(); r != nil {
		defer t.s.tasks.runs.Delete(r.ID)
	}
	switch {
	case err != nil:
		t.s.logger.Error("task result not stored", "task", t.Record().ID, "err", err)
	case rec != nil:
		t.s.taskStatusChanged(rec)
		if t.s.audit != nil {
			t.s.auditTask(t, rec)
		}
	}
}

// final puts a record into the terminal state the handler's outcome makes
// (an Update function): a cancelled or abandoned task stays as it is.
func (t *taskRun) final(rec *tasks.Record) error {
	if rec.Status.Terminal() {
		return tasks.ErrNoChange
	}
	s, eng := t.s, t.s.taskEngine()
	defer eng.Touch(rec)
	fail := failed(t.r.Failure())
	rerr, res := t.rerr, t.res
	if fail != nil {
		rerr = fail
	}
	switch {
	case t.stopped.Load() && (rerr != nil || res == nil || res.IsError):
		tasks.Fail(rec, CodeInternalError, eng.StoppedMessage(), nil)
	case rerr != nil:
		tasks.Fail(rec, rerr.code, rerr.msg, rerr.data)
	case res != nil && res.toolErr != nil && res.toolErr.Code == ErrCodeInternal:
		tasks.Fail(rec, CodeInternalError, res.toolErr.Message, map[string]any{"error": res.toolErr})
	default:
		enc := &call{srv: s, msg: &Message{ID: json.RawMessage("0")}, info: t.c.info}
		b, rerr := s.encodeToolResult(enc, t.e, res)
		if rerr != nil {
			tasks.Fail(rec, rerr.code, rerr.msg, rerr.data)
			return nil
		}
		tasks.Succeed(rec, b[len(`{"jsonrpc":"2.0","id":0,"result":`):], res.IsError)
	}
	return nil
}

// askAny asks questions from a task tool's handler: as an ordinary call
// (MRTR: a question without an answer ends the call with input_required and
// keeps it from becoming a task) or inside the task: open ones become the
// task's inputRequests (input_required) until tasks/update delivers their
// answers (2026-07-28), or server-to-client requests on the session's own
// stream (2025-11-25).
func (t *taskRun) askAny(ctx context.Context, qs []Question, plain func() error) error {
	var err error
	if t.InCall(func() bool { err = plain(); return errors.Is(err, ErrInputRequired) }) {
		return err
	}
	if !t.InTask() {
		return ErrNoInput
	}
	asked := make([]tasks.Question, len(qs))
	for i := range qs {
		asked[i] = ask.InTask{Q: &qs[i].q}
	}
	if t.c.info.Modern {
		return t.Ask(ctx, asked, ErrNoInput)
	}
	if t.c.sess == nil {
		return ErrNoInput
	}
	return t.AskLegacy(ctx, asked, t.s.opts.InputTimeout, func(ctx context.Context, method string, params any) (json.RawMessage, error) {
		return t.c.sess.Request(ctx, method, params, nil)
	})
}

// progressed turns a progress report into the task's status message: it
// reports true inside a task; before, the message is kept for the task's
// first status and the report goes out as usual.
func (t *taskRun) progressed(_ context.Context, progress, total float64, message string) bool {
	return t.Progressed(progress, total, message)
}

// taskStopGrace is how long DrainTasks waits, after its context is done, for
// the handlers it cancelled to return before it fails their tasks itself.
const taskStopGrace = time.Second

// DrainTasks waits until the task handlers running in this process have
// finished or ctx is done. Those still running then are cancelled, and their
// tasks fail at once (a JSON-RPC internal error whose message says the server
// shut down) instead of when their lease lapses; a handler that does not
// return within a second of its cancellation has its task failed for it.
// HTTPHandler.Shutdown and ListenAndServe call it; call it yourself on the
// way out of a server you run another way. It returns ctx's error when
// handlers were cut short.
func (s *Server) DrainTasks(ctx context.Context) error {
	if !s.tasks.any.Load() {
		return nil
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		idle := true
		s.tasks.runs.Range(func(any, any) bool { idle = false; return false })
		if idle {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			s.stopTasks()
			return fmt.Errorf("drain task handlers: %w", ctx.Err())
		}
	}
}

// stopTasks cancels the task handlers running here and fails the tasks of
// those that do not return within taskStopGrace.
func (s *Server) stopTasks() {
	var running []*taskRun
	s.tasks.runs.Range(func(_, v any) bool {
		t := v.(*taskRun)
		t.stopped.Store(true)
		t.cancel()
		running = append(running, t)
		return true
	})
	grace := time.NewTimer(taskStopGrace)
	defer grace.Stop()
	eng := s.taskEngine()
	for _, t := range running {
		select {
		case <-t.Done():
			continue
		case <-grace.C:
			grace.Reset(0) // the grace is over for the rest too
		}
		r := t.Record()
		if r == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), taskStopGrace)
		failed := false
		rec, err := eng.Update(ctx, r.ID, func(rec *tasks.Record) error {
			if rec.Status.Terminal() {
				return tasks.ErrNoChange
			}
			tasks.Fail(rec, CodeInternalError, eng.StoppedMessage(), nil)
			eng.Touch(rec)
			failed = true
			return nil
		})
		cancel()
		switch {
		case err != nil:
			s.logger.Warn("task not failed at shutdown", "task", r.ID, "err", err)
		case failed:
			s.taskStatusChanged(rec)
		}
	}
}
