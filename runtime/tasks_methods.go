package runtime

// tasks_methods.go: the tasks/* methods of both eras, 2025-11-25 task
// augmentation of tools/call, and task status notifications.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/subscribe"
	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
)

// lookupTaskMethod returns the method table entry of the tasks/* methods:
// tasks/update is 2026-07-28 only, tasks/result and tasks/list 2025-11-25
// only (the extension removed them).
func lookupTaskMethod(name string) (methodInfo, bool) {
	switch name {
	case "tasks/get":
		return methodInfo{modern: true, legacy: true, handle: (*Server).taskGet}, true
	case "tasks/cancel":
		return methodInfo{modern: true, legacy: true, handle: (*Server).taskCancel}, true
	case "tasks/update":
		return methodInfo{modern: true, handle: (*Server).taskUpdate}, true
	case "tasks/result":
		return methodInfo{legacy: true, handle: (*Server).taskResult}, true
	case "tasks/list":
		return methodInfo{legacy: true, handle: (*Server).taskList}, true
	}
	return methodInfo{}, false
}

// taskCapabilities adds the tasks capability of the era to caps once a task
// tool is registered: the extension (2026-07-28) or capabilities.tasks
// (2025-11-25); older revisions have no tasks.
func (s *Server) taskCapabilities(caps map[string]any, version string) map[string]any {
	if !s.tasks.any.Load() {
		return caps
	}
	empty := map[string]any{}
	switch version {
	case versionModern:
		caps["extensions"] = map[string]any{extTasks: empty}
	case versionLegacy:
		caps["tasks"] = map[string]any{"list": empty, "cancel": empty,
			"requests": map[string]any{"tools": map[string]any{"call": empty}}}
	}
	return caps
}

// taskParams are the params of the tasks/* methods.
type taskParams struct {
	TaskID         *string         `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
	Cursor         *string         `json:"cursor"`
}

// openTask checks a tasks/* request (the extension declared, a string
// taskId) and returns the caller's task.
func (s *Server) openTask(ctx context.Context, c *call, p *taskParams) (*tasks.Record, *rpcError) {
	if c.info.Modern && !declaresTasks(c.info.ClientCapabilities) {
		return nil, missingTasksExtension(c.msg.Method)
	}
	if err := json.Unmarshal(c.msg.Params, p); err != nil || p.TaskID == nil {
		return nil, errorf(CodeInvalidParams, "%s: params.taskId must be a string", c.msg.Method)
	}
	rec, err := s.taskEngine().Observe(ctx, *p.TaskID, principalID(c.caller()), c.info.ProtocolVersion)
	if err != nil {
		return nil, taskError(err)
	}
	return rec, nil
}

// taskError maps an engine error to the JSON-RPC error clients get.
func taskError(err error) *rpcError {
	switch {
	case errors.Is(err, tasks.ErrNotFound), errors.Is(err, tasks.ErrMalformed):
		return errorf(CodeInvalidParams, "Failed to retrieve task: Task not found")
	case errors.Is(err, tasks.ErrExpired):
		return errorf(CodeInvalidParams, "Failed to retrieve task: Task has expired")
	}
	return errorf(CodeInternalError, "internal error: task store: %v", err)
}

// taskGet answers tasks/get: the DetailedTask (2026-07-28) or the Task
// (2025-11-25).
func (s *Server) taskGet(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p taskParams
	rec, rerr := s.openTask(ctx, c, &p)
	if rerr != nil {
		return nil, rerr
	}
	if c.info.Modern {
		return tasks.GetResult(rec, s.serverInfoMeta), nil
	}
	return tasks.LegacyTask(rec), nil
}

// ackResult is the empty result of tasks/update and tasks/cancel (2026-07-28).
func (s *Server) ackResult() []byte {
	return append(append([]byte(`{"resultType":"complete","_meta":`), s.serverInfoMeta...), '}')
}

// taskUpdate answers tasks/update (2026-07-28): answers to the task's open
// input requests are handed to its handler; keys never asked, or already
// answered, are ignored.
func (s *Server) taskUpdate(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p taskParams
	rec, rerr := s.openTask(ctx, c, &p)
	if rerr != nil {
		return nil, rerr
	}
	var answers map[string]json.RawMessage
	if !isObject(p.InputResponses) || json.Unmarshal(p.InputResponses, &answers) != nil {
		return nil, errorf(CodeInvalidParams, "tasks/update: params.inputResponses must be an object")
	}
	if rec.Status.Terminal() {
		return nil, errorf(CodeInvalidParams, "tasks/update: task is %s: it takes no more input", rec.Status)
	}
	rec, taken, err := s.taskEngine().Answer(ctx, rec.ID, answers)
	if errors.Is(err, tasks.ErrTerminal) {
		return nil, errorf(CodeInvalidParams, "tasks/update: %v: it takes no more input", err)
	}
	if err != nil {
		return nil, taskError(err)
	}
	if !taken {
		return s.ackResult(), nil
	}
	if v, ok := s.tasks.runs.Load(rec.ID); ok {
		v.(*taskRun).poke()
	}
	s.taskStatusChanged(rec)
	return s.ackResult(), nil
}

// taskCancel answers tasks/cancel: the task is cancelled before the answer
// and its handler's context is cancelled (at once here, within a watch
// interval on the instance running it). Cancelling a finished task is an
// acknowledged no-op in 2026-07-28 and -32602 in 2025-11-25.
func (s *Server) taskCancel(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p taskParams
	rec, rerr := s.openTask(ctx, c, &p)
	if rerr != nil {
		return nil, rerr
	}
	if rec.Status.Terminal() {
		if c.info.Modern {
			return s.ackResult(), nil
		}
		return nil, errorf(CodeInvalidParams, "tasks/cancel: task is already %s", tasks.LegacyStatus(rec))
	}
	rec, _, err := s.taskEngine().Cancel(ctx, rec.ID)
	if err != nil {
		return nil, taskError(err)
	}
	if v, ok := s.tasks.runs.Load(rec.ID); ok {
		v.(*taskRun).cancel()
	}
	s.taskStatusChanged(rec)
	if c.info.Modern {
		return s.ackResult(), nil
	}
	return tasks.LegacyTask(rec), nil
}

// taskResult answers tasks/result (2025-11-25): it waits for the task to end,
// then answers what tools/call would have: its result (with the
// related-task _meta) or its error.
func (s *Server) taskResult(ctx context.Context, c *call) ([]byte, *rpcError) {
	var p taskParams
	rec, rerr := s.openTask(ctx, c, &p)
	if rerr != nil {
		return nil, rerr
	}
	owner := principalID(c.caller())
	for !rec.Status.Terminal() {
		wait := time.Duration(rec.PollMs) * time.Millisecond
		var done <-chan struct{}
		if v, ok := s.tasks.runs.Load(rec.ID); ok {
			done = v.(*taskRun).done
		}
		select {
		case <-ctx.Done():
			return nil, errorf(CodeInternalError, "tasks/result: %v", ctx.Err())
		case <-done:
		case <-time.After(wait):
		}
		var err error
		if rec, err = s.taskEngine().Observe(ctx, rec.ID, owner, c.info.ProtocolVersion); err != nil {
			return nil, taskError(err)
		}
	}
	switch {
	case rec.Status == tasks.Cancelled:
		return nil, errorf(CodeInvalidRequest, "task %s was cancelled", rec.ID)
	case rec.Error != nil:
		var e struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(rec.Error, &e)
		out := &rpcError{code: e.Code, msg: e.Message}
		if e.Data != nil {
			out.data = e.Data
		}
		return nil, out
	}
	return tasks.WithRelatedTask(rec.Result, rec.ID), nil
}

// taskList answers tasks/list (2025-11-25): the caller's tasks, from its list
// in the store (every instance's, finished ones too, until their TTL ends).
func (s *Server) taskList(ctx context.Context, c *call) ([]byte, *rpcError) {
	recs, err := s.taskEngine().List(ctx, principalID(c.caller()), c.info.ProtocolVersion)
	if err != nil {
		return nil, taskError(err)
	}
	b := []byte(`{"tasks":[`)
	for i, rec := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, tasks.LegacyTask(rec)...)
	}
	return append(b, "]}"...), nil
}

// callToolTaskLegacy routes a 2025-11-25 tools/call: one with params.task
// becomes a task at once; a required tool without it, or a plain tool with
// it, is -32601 (the spec's rule).
func (s *Server) callToolTaskLegacy(ctx context.Context, c *call, e *toolEntry, args json.RawMessage) ([]byte, *rpcError, bool) {
	if c.info.ProtocolVersion != versionLegacy {
		return nil, nil, false
	}
	task, asked := legacyTaskParam(c.msg.Params)
	switch {
	case !asked && e.tool.Task == TaskRequired:
		return nil, errorf(CodeMethodNotFound, "tool %s must be called as a task (params.task)", e.tool.Name), true
	case !asked:
		return nil, nil, false
	case e.tool.Task == "":
		return nil, errorf(CodeMethodNotFound, "tool %s does not run as a task", e.tool.Name), true
	}
	ttl, err := tasks.LegacyTTL(task)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "tools/call: %v", err), true
	}
	b, rerr := s.runTask(ctx, c, e, args, ttl, -1)
	return b, rerr, true
}

// legacyTaskParam returns params.task and whether it is present.
func legacyTaskParam(params json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return nil, false
	}
	var task json.RawMessage
	jsonwire.EachMember(params, func(key, val []byte) {
		if string(key) == "task" {
			task = val
		}
	})
	return task, task != nil && string(task) != "null"
}

// askLegacy asks a 2025-11-25 task's questions as server-to-client requests
// on the session's own stream, with the related-task _meta; the task is
// input_required meanwhile.
func (t *taskRun) askLegacy(ctx context.Context, qs []Question) error {
	c := t.c
	if c.sess == nil {
		return ErrNoInput
	}
	t.setStatus(tasks.InputRequired, "waiting for input")
	defer t.setStatus(tasks.Working, "input received")
	ctx, cancel := context.WithTimeout(ctx, t.s.opts.InputTimeout)
	defer cancel()
	for _, q := range qs {
		var params map[string]any
		if err := json.Unmarshal(mustMarshal(q.params(false)), &params); err != nil {
			return err
		}
		params["_meta"] = map[string]any{metaRelatedTask: map[string]string{"taskId": t.rec.ID}}
		raw, err := c.sess.Request(ctx, q.method, params, nil)
		if err != nil {
			return err
		}
		if err := q.accept(raw); err != nil {
			return err
		}
	}
	return nil
}

// setStatus moves a running task between working and input_required.
func (t *taskRun) setStatus(st tasks.Status, msg string) {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if rec, changed, err := t.s.taskEngine().SetStatus(ctx, t.rec.ID, st, msg); err == nil && changed {
		t.s.taskStatusChanged(rec)
	}
}

// taskStatusChanged tells listeners that a task changed: 2026-07-28
// subscriptions/listen streams whose filter names the task, on any replica
// (notifications/tasks, through announce), and the 2025-11-25 session that
// created it (notifications/tasks/status; that session is on this process,
// where the handler runs). It is the one place task notifications go out.
func (s *Server) taskStatusChanged(rec *tasks.Record) {
	if rec.Era != versionLegacy {
		// Listen streams on any replica (subscriptions.go): the audience keeps them to
		// the task's owner and to the filters that named the task.
		s.announce(notice{Method: "notifications/tasks", Params: tasks.Detailed(rec),
			To: audience{TaskID: rec.ID, Principal: rec.Owner}})
		return
	}
	v, ok := s.tasks.runs.Load(rec.ID)
	if !ok || v.(*taskRun).c.sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	msg := append(append([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":`), tasks.LegacyTask(rec)...), '}')
	s.deliver("notifications/tasks/status", hubConn{v.(*taskRun).c.sess}.Send(ctx, msg))
}

// honourTaskFilter checks the taskIds of a subscriptions/listen filter: the
// extension must be declared (-32021), and only the caller's tasks are kept.
func (s *Server) honourTaskFilter(ctx context.Context, c *call, f *subscribe.Filter) *rpcError {
	if f == nil || f.TaskIDs == nil {
		return nil
	}
	if !declaresTasks(c.info.ClientCapabilities) {
		return missingTasksExtension("task notifications")
	}
	owner, kept := principalID(c.caller()), f.TaskIDs[:0]
	for _, id := range f.TaskIDs {
		if _, err := s.taskEngine().Observe(ctx, id, owner, c.info.ProtocolVersion); err == nil {
			kept = append(kept, id)
		}
	}
	f.TaskIDs = kept
	return nil
}
