package runtime

// tasks.go: tools that run as tasks (docs/tasks.md). The engine, records and
// wire shapes live in internal/tasks; this file decides when a tools/call
// becomes a task, runs its handler in the background and serves the tasks/*
// methods of both eras (tasks_methods.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

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
	extTasks        = "io.modelcontextprotocol/tasks"
	metaRelatedTask = "io.modelcontextprotocol/related-task"
	// defaultTaskThreshold is how long a task tool's handler runs as a plain
	// call before it becomes a task.
	defaultTaskThreshold = 100 * time.Millisecond
	defaultMaxTasks      = 1000
)

// taskState is the server's task machinery, made on first use (the store may
// be replaced until then: SetStore).
type taskState struct {
	once    sync.Once
	eng     *tasks.Engine
	any     atomic.Bool  // a task tool is registered
	running atomic.Int64 // task handlers running (Options.MaxTasks)
	runs    sync.Map     // task id -> *taskRun, the tasks whose handlers run here
}

// taskEngine returns the server's task engine.
func (s *Server) taskEngine() *tasks.Engine {
	t := &s.tasks
	t.once.Do(func() {
		o := &s.opts
		lease := o.TaskLease
		if d, err := time.ParseDuration(os.Getenv(TaskLeaseEnv)); lease == 0 && err == nil && d > 0 {
			lease = d
		}
		host, _ := os.Hostname()
		runner := fmt.Sprintf("%s pid %d, %s", host, os.Getpid(), tasks.NewID()[:8]) // named in abandoned tasks' messages
		t.eng = tasks.New(s.store, tasks.Limits{DefaultTTL: o.TaskTTL, MaxTTL: o.TaskMaxTTL,
			Poll: o.TaskPollInterval, Lease: lease}, runner)
	})
	return t.eng
}

// Phases of a taskRun.
const (
	phaseCall = iota // still an ordinary call: MRTR questions, plain result
	phaseTask        // a task: its record exists, the client polls it
)

// A taskRun is a task tool's handler running in the background.
type taskRun struct {
	s      *Server
	c      *call
	e      *toolEntry
	r      *round
	cancel context.CancelFunc

	start     chan struct{} // closed when StartTask asks for the task now
	startOnce sync.Once

	mu       sync.Mutex
	phase    int
	asked    bool // asked a question as an ordinary call (MRTR): it is about to return
	returned bool
	lastMsg  string        // the last progress message before the task existed
	rec      *tasks.Record // the record as created (phaseTask)
	created  chan struct{} // closed once rec exists
	done     chan struct{} // closed when the handler returned
	res      *ToolResult
	rerr     *rpcError
	wake     chan struct{} // answers or a cancel may have arrived
	used     map[string]json.RawMessage
}

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
	if tr == nil {
		return false
	}
	tr.startOnce.Do(func() { close(tr.start) })
	select {
	case <-tr.created:
		return tr.rec != nil
	case <-ctx.Done():
		return false
	}
}

// declaresTasks reports whether a 2026-07-28 request declared the tasks
// extension in its capabilities.
func declaresTasks(caps json.RawMessage) bool {
	var v struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	return json.Unmarshal(caps, &v) == nil && isObject(v.Extensions[extTasks])
}

// missingTasksExtension is the -32021 of a client that did not declare the
// tasks extension.
func missingTasksExtension(what string) *rpcError {
	e := errorf(CodeMissingClientCapability, "Missing required client capability: %s needs the %s extension", what, extTasks)
	e.data = map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{extTasks: map[string]any{}}}}
	return e
}

// callToolTask routes a tools/call of a task tool: handled false lets it run
// as a plain call.
func (s *Server) callToolTask(ctx context.Context, c *call, e *toolEntry, args json.RawMessage) ([]byte, *rpcError, bool) {
	if !c.info.Modern {
		return s.callToolTaskLegacy(ctx, c, e, args)
	}
	if !declaresTasks(c.info.ClientCapabilities) {
		if e.tool.Task == TaskRequired {
			return nil, missingTasksExtension("tool " + e.tool.Name), true
		}
		return nil, nil, false
	}
	b, rerr := s.runTask(ctx, c, e, args, 0, s.opts.TaskThreshold)
	return b, rerr, true
}

// runTask runs the handler in the background and answers the call: with its
// result if it finished (or asked a question) within threshold, else with a
// new task. A required tool always answers with a task; a negative threshold
// makes the task at once.
func (s *Server) runTask(ctx context.Context, c *call, e *toolEntry, args json.RawMessage, ttlMs int64, threshold time.Duration) ([]byte, *rpcError) {
	limit := int64(s.opts.MaxTasks)
	if limit <= 0 {
		limit = defaultMaxTasks
	}
	if s.tasks.running.Add(1) > limit {
		s.tasks.running.Add(-1)
		return nil, errorf(CodeInternalError, "server busy: %d tasks running (the limit)", limit)
	}
	eng := s.taskEngine()
	ttl := eng.ClampTTL(ttlMs)
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl)
	tr := &taskRun{s: s, e: e, cancel: cancel, start: make(chan struct{}),
		created: make(chan struct{}), done: make(chan struct{}), wake: make(chan struct{}, 1)}
	hc := handlerCall(c, context.WithValue(hctx, taskKey{}, tr))
	tr.c, tr.r = hc, &hc.round
	if threshold < 0 {
		tr.phase = phaseTask // before the handler starts: it may return at once
	}
	go func() {
		defer s.tasks.running.Add(-1)
		res, rerr := s.runTool(&hc.ctx, hc, e, args)
		tr.returnedWith(res, rerr)
	}()
	if threshold >= 0 {
		timer := time.NewTimer(threshold)
		select {
		case <-tr.done:
		case <-timer.C:
		case <-tr.start:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	tr.mu.Lock()
	if tr.phase == phaseTask {
		tr.mu.Unlock()
		return s.startTask(ctx, tr, ttl)
	}
	if tr.asked && !tr.returned {
		tr.mu.Unlock()
		<-tr.done // an MRTR question ends the handler at once
		tr.mu.Lock()
	}
	if tr.returned || tr.asked {
		tr.mu.Unlock()
		return s.concludeCallPhase(ctx, c, tr, ttl)
	}
	if ctx.Err() != nil { // the client went away before the task existed
		tr.mu.Unlock()
		cancel()
		<-tr.done
		return nil, errorf(CodeInternalError, "request cancelled")
	}
	tr.phase = phaseTask
	tr.mu.Unlock()
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
	hc.round.Inherit(&c.round)
	hc.ctx = callCtx{ctx, hc}
	return hc
}

// startTask creates the record of a run that became a task and answers the
// call with it.
func (s *Server) startTask(ctx context.Context, tr *taskRun, ttl time.Duration) ([]byte, *rpcError) {
	c, e, eng := tr.c, tr.e, s.taskEngine()
	tr.mu.Lock()
	msg := tr.lastMsg
	tr.mu.Unlock()
	rec, err := eng.Create(ctx, principalID(c.caller()), c.info.ProtocolVersion, e.tool.Name, ttl, msg)
	if err != nil {
		s.logger.Error("task not created", "tool", e.tool.Name, "err", err)
		tr.cancel()
		tr.rec = nil
		close(tr.created)
		return nil, errorf(CodeInternalError, "internal error: cannot create a task: %v", err)
	}
	s.index(ctx, rec)
	s.tasks.runs.Store(rec.ID, tr)
	tr.rec = rec
	close(tr.created)
	go tr.watch()
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
	eng := s.taskEngine()
	rec, err := eng.Create(ctx, principalID(c.caller()), c.info.ProtocolVersion, tr.e.tool.Name, ttl, "")
	if err != nil {
		return nil, errorf(CodeInternalError, "internal error: cannot create a task: %v", err)
	}
	s.index(ctx, rec)
	if rec, err = eng.Update(ctx, rec.ID, tr.final); err != nil {
		return nil, errorf(CodeInternalError, "internal error: cannot finish a task: %v", err)
	}
	s.taskStatusChanged(rec)
	return s.createdResult(c, rec), nil
}

// index adds a 2025-11-25 task to its owner's list (tasks/list); the
// 2026-07-28 extension has no list.
func (s *Server) index(ctx context.Context, rec *tasks.Record) {
	if rec.Era != versionLegacy {
		return
	}
	if err := s.taskEngine().Index(ctx, rec); err != nil {
		s.logger.Warn("task not listed", "task", rec.ID, "err", err)
	}
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
	t.mu.Lock()
	t.res, t.rerr, t.returned = res, rerr, true
	phase := t.phase
	t.mu.Unlock()
	defer close(t.done)
	defer t.cancel()
	if phase == phaseCall {
		return
	}
	<-t.created
	if t.rec == nil {
		return
	}
	defer t.s.tasks.runs.Delete(t.rec.ID)
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	rec, err := t.s.taskEngine().Update(ctx, t.rec.ID, t.final)
	if err != nil {
		t.s.logger.Error("task result not stored", "task", t.rec.ID, "err", err)
		return
	}
	t.s.taskStatusChanged(rec)
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
	case rerr != nil:
		tasks.Finish(rec, tasks.Failed, rerr.msg, nil, tasks.ErrorObject(rerr.code, rerr.msg, rerr.data))
	case res != nil && res.toolErr != nil && res.toolErr.Code == ErrCodeInternal:
		msg := res.toolErr.Message
		tasks.Finish(rec, tasks.Failed, msg, nil, tasks.ErrorObject(CodeInternalError, msg, map[string]any{"error": res.toolErr}))
	default:
		enc := &call{srv: s, msg: &Message{ID: json.RawMessage("0")}, info: t.c.info}
		b, rerr := s.encodeToolResult(enc, t.e, res)
		if rerr != nil {
			tasks.Finish(rec, tasks.Failed, rerr.msg, nil, tasks.ErrorObject(rerr.code, rerr.msg, rerr.data))
			return nil
		}
		result := b[len(`{"jsonrpc":"2.0","id":0,"result":`):]
		msg := "completed"
		if res.IsError {
			msg = "completed with a tool error"
		}
		tasks.Finish(rec, tasks.Completed, msg, result, nil)
	}
	return nil
}

// watch follows the record while the handler runs (the lease, a cancel or
// answers given on another instance).
func (t *taskRun) watch() {
	t.s.taskEngine().Follow(t.rec.ID, t.done, t.cancel, t.poke, func(msg string, err error) {
		t.s.logger.Warn(msg, "task", t.rec.ID, "err", err)
	})
}

// poke wakes a handler waiting for answers.
func (t *taskRun) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// inTask reports whether the run is a task (waiting until its record
// exists); false for nil.
func (t *taskRun) inTask() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	phase := t.phase
	t.mu.Unlock()
	if phase == phaseCall {
		return false
	}
	<-t.created
	return t.rec != nil
}

// askAny asks questions from a task tool's handler: as an ordinary call
// (MRTR: a question without an answer ends the call with input_required and
// keeps it from becoming a task) or inside the task.
func (t *taskRun) askAny(ctx context.Context, qs []Question) error {
	t.mu.Lock()
	if t.phase == phaseCall {
		defer t.mu.Unlock()
		err := askModern(t.r, qs)
		if errors.Is(err, ErrInputRequired) {
			t.asked = true
		}
		return err
	}
	t.mu.Unlock()
	if !t.inTask() {
		return ErrNoInput
	}
	return t.ask(ctx, qs)
}

// ask answers questions asked inside a task: open ones become the task's
// inputRequests (input_required) until tasks/update delivers their answers.
func (t *taskRun) ask(ctx context.Context, qs []Question) error {
	if !t.c.info.Modern {
		return t.askLegacy(ctx, qs)
	}
	eng := t.s.taskEngine()
	for {
		open := map[string]json.RawMessage{}
		t.mu.Lock()
		for _, q := range qs {
			if _, ok := t.used[q.key]; !ok {
				b, err := json.Marshal(map[string]any{"method": q.method, "params": q.params(true)})
				if err != nil {
					t.mu.Unlock()
					return err
				}
				open[q.key] = b
			}
		}
		t.mu.Unlock()
		if len(open) > 0 {
			got, rec, err := eng.Ask(ctx, t.rec.ID, open)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrNoInput, err)
			}
			if rec.Status == tasks.InputRequired {
				t.s.taskStatusChanged(rec)
			}
			t.mu.Lock()
			for k, v := range got {
				if t.used == nil {
					t.used = map[string]json.RawMessage{}
				}
				t.used[k] = v
				delete(open, k)
			}
			t.mu.Unlock()
		}
		if len(open) == 0 {
			for _, q := range qs {
				t.mu.Lock()
				raw := t.used[q.key]
				t.mu.Unlock()
				if err := q.accept(raw); err != nil {
					return fmt.Errorf("answer to %s: %w", q.key, err)
				}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.wake:
		}
	}
}

// progressed turns a progress report into the task's status message: it
// reports true inside a task; before, the message is kept for the task's
// first status and the report goes out as usual.
func (t *taskRun) progressed(progress, total float64, message string) bool {
	if message == "" {
		message = fmt.Sprintf("progress %g", progress)
		if total > 0 {
			message += fmt.Sprintf(" of %g", total)
		}
	}
	t.mu.Lock()
	if t.phase == phaseCall {
		t.lastMsg = message
		t.mu.Unlock()
		return false
	}
	t.mu.Unlock()
	if t.inTask() {
		t.progress(message)
	}
	return true
}

// progress sets the task's status message.
func (t *taskRun) progress(message string) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if rec, changed, err := t.s.taskEngine().SetStatus(ctx, t.rec.ID, "", message); err == nil && changed {
		t.s.taskStatusChanged(rec)
	}
}
