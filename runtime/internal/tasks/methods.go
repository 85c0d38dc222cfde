package tasks

// methods.go: the tasks/* methods of both eras on the wire: their params,
// which era has which, the tasks capability, the routing of a 2025-11-25
// task-augmented tools/call, and the JSON-RPC errors clients get; the engine
// of a server process and the start of a task. The tasks extension
// (runtime/tasks) wires each method to its Server.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// The protocol versions with tasks: the extension (Modern) and
// capabilities.tasks (Legacy). A record's Era is one of them.
const (
	Modern = "2026-07-28"
	Legacy = "2025-11-25"
)

const (
	// Extension is the 2026-07-28 extension that carries tasks.
	Extension = "io.modelcontextprotocol/tasks"
	// MetaRelatedTask tags what a 2025-11-25 task sends with its task id.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
)

// The JSON-RPC error codes the methods answer (those of package runtime).
const (
	CodeInvalidRequest          = -32600
	CodeMethodNotFound          = -32601
	CodeInvalidParams           = -32602
	CodeInternalError           = -32603
	CodeMissingClientCapability = -32021
)

// An Error is the JSON-RPC error a client gets.
type Error struct {
	Code int
	Msg  string
	Data any // nil: none
}

func (e *Error) Error() string { return e.Msg }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// A Request is one tasks/* request as the methods see it.
type Request struct {
	Method  string
	Params  json.RawMessage
	Caps    json.RawMessage // the 2026-07-28 request's client capabilities
	Owner   string          // the caller's principal id
	Version string          // the protocol version it is served in
	Meta    json.RawMessage // the server's _meta member value of 2026-07-28 results

	Host Host
}

// A Host is the server process the methods run in.
type Host interface {
	// Local returns the run of a task whose handler runs on this process, or nil.
	Local(id string) *Run
	// Changed tells listeners that a task changed.
	Changed(*Record)
}

// Serve answers a tasks/* request (Methods says which era has which).
func (e *Engine) Serve(ctx context.Context, q *Request) ([]byte, *Error) {
	switch q.Method {
	case "tasks/get":
		return e.get(ctx, q)
	case "tasks/update":
		return e.update(ctx, q)
	case "tasks/cancel":
		return e.cancel(ctx, q)
	case "tasks/result":
		return e.result(ctx, q)
	}
	return e.list(ctx, q)
}

// modern reports whether the request is served in 2026-07-28.
func (q *Request) modern() bool { return q.Version == Modern }

// Methods says in which eras a tasks/* method exists (ok false: it is not
// one): tasks/update is 2026-07-28 only, tasks/result and tasks/list
// 2025-11-25 only (the extension removed them).
func Methods(name string) (modern, legacy, ok bool) {
	switch name {
	case "tasks/get", "tasks/cancel":
		return true, true, true
	case "tasks/update":
		return true, false, true
	case "tasks/result", "tasks/list":
		return false, true, true
	}
	return false, false, false
}

// Capabilities adds the tasks capability of version to caps: the extension
// (2026-07-28) or capabilities.tasks (2025-11-25); older revisions have none.
func Capabilities(caps map[string]any, version string) map[string]any {
	empty := map[string]any{}
	switch version {
	case Modern:
		caps["extensions"] = map[string]any{Extension: empty}
	case Legacy:
		caps["tasks"] = map[string]any{"list": empty, "cancel": empty,
			"requests": map[string]any{"tools": map[string]any{"call": empty}}}
	}
	return caps
}

// DeclaresTasks reports whether 2026-07-28 client capabilities declare the
// tasks extension.
func DeclaresTasks(caps json.RawMessage) bool {
	var v struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	return json.Unmarshal(caps, &v) == nil && bytes.HasPrefix(bytes.TrimSpace(v.Extensions[Extension]), []byte{'{'})
}

// MissingExtension is the -32021 of a client that did not declare the tasks
// extension, which what needs.
func MissingExtension(what string) *Error {
	e := errorf(CodeMissingClientCapability, "Missing required client capability: %s needs the %s extension", what, Extension)
	e.Data = map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{Extension: map[string]any{}}}}
	return e
}

// methodError maps an engine error to the JSON-RPC error clients get.
func methodError(err error) *Error {
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrMalformed):
		return errorf(CodeInvalidParams, "Failed to retrieve task: Task not found")
	case errors.Is(err, ErrExpired):
		return errorf(CodeInvalidParams, "Failed to retrieve task: Task has expired")
	}
	return errorf(CodeInternalError, "internal error: task store: %v", err)
}

// params are the params of the tasks/* methods.
type params struct {
	TaskID         *string         `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// open checks a tasks/* request (the extension declared, a string taskId)
// and returns the caller's task.
func (e *Engine) open(ctx context.Context, q *Request, p *params) (*Record, *Error) {
	if q.modern() && !DeclaresTasks(q.Caps) {
		return nil, MissingExtension(q.Method)
	}
	if err := json.Unmarshal(q.Params, p); err != nil || p.TaskID == nil {
		return nil, errorf(CodeInvalidParams, "%s: params.taskId must be a string", q.Method)
	}
	rec, err := e.Observe(ctx, *p.TaskID, q.Owner, q.Version)
	if err != nil {
		return nil, methodError(err)
	}
	return rec, nil
}

// done is closed when the handler of task id, running here, ends; nil
// (never ready) for a task running elsewhere.
func (q *Request) done(id string) <-chan struct{} {
	if r := q.Host.Local(id); r != nil {
		return r.Done()
	}
	return nil
}

// ack is the empty result of tasks/update and tasks/cancel (2026-07-28).
func (q *Request) ack() []byte {
	return append(append([]byte(`{"resultType":"complete","_meta":`), q.Meta...), '}')
}

// get answers tasks/get: the DetailedTask (2026-07-28) or the Task
// (2025-11-25).
func (e *Engine) get(ctx context.Context, q *Request) ([]byte, *Error) {
	var p params
	rec, rerr := e.open(ctx, q, &p)
	if rerr != nil {
		return nil, rerr
	}
	if q.modern() {
		return GetResult(rec, q.Meta), nil
	}
	return LegacyTask(rec), nil
}

// update answers tasks/update (2026-07-28): answers to the task's open
// input requests are stored for its handler, which is woken when it runs
// here; keys never asked, or already answered, are ignored.
func (e *Engine) update(ctx context.Context, q *Request) ([]byte, *Error) {
	var p params
	rec, rerr := e.open(ctx, q, &p)
	if rerr != nil {
		return nil, rerr
	}
	var answers map[string]json.RawMessage
	if in := bytes.TrimSpace(p.InputResponses); len(in) == 0 || in[0] != '{' || json.Unmarshal(in, &answers) != nil {
		return nil, errorf(CodeInvalidParams, "tasks/update: params.inputResponses must be an object")
	}
	if rec.Status.Terminal() {
		return nil, errorf(CodeInvalidParams, "tasks/update: task is %s: it takes no more input", rec.Status)
	}
	rec, taken, err := e.Answer(ctx, rec.ID, answers)
	if errors.Is(err, ErrTerminal) {
		return nil, errorf(CodeInvalidParams, "tasks/update: %v: it takes no more input", err)
	}
	if err != nil {
		return nil, methodError(err)
	}
	if taken {
		if r := q.Host.Local(rec.ID); r != nil {
			r.Poke()
		}
		q.Host.Changed(rec)
	}
	return q.ack(), nil
}

// cancel answers tasks/cancel: the task is cancelled before the answer,
// and its handler's context at once when it runs here (else within a Follow
// interval on the instance running it). Cancelling a finished task is an
// acknowledged no-op in 2026-07-28 and -32602 in 2025-11-25.
func (e *Engine) cancel(ctx context.Context, q *Request) ([]byte, *Error) {
	var p params
	rec, rerr := e.open(ctx, q, &p)
	if rerr != nil {
		return nil, rerr
	}
	if rec.Status.Terminal() {
		if q.modern() {
			return q.ack(), nil
		}
		return nil, errorf(CodeInvalidParams, "tasks/cancel: task is already %s", LegacyStatus(rec))
	}
	rec, _, err := e.Cancel(ctx, rec.ID)
	if err != nil {
		return nil, methodError(err)
	}
	if r := q.Host.Local(rec.ID); r != nil {
		r.Cancel()
	}
	q.Host.Changed(rec)
	if q.modern() {
		return q.ack(), nil
	}
	return LegacyTask(rec), nil
}

// result answers tasks/result (2025-11-25): it waits for the task to end,
// polling its record (and waking at once when its handler, running here,
// ends), then answers what tools/call would have: its result (with the
// related-task _meta) or its error.
func (e *Engine) result(ctx context.Context, q *Request) ([]byte, *Error) {
	var p params
	rec, rerr := e.open(ctx, q, &p)
	if rerr != nil {
		return nil, rerr
	}
	for !rec.Status.Terminal() {
		wait := time.NewTimer(time.Duration(rec.PollMs) * time.Millisecond)
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil, errorf(CodeInternalError, "tasks/result: %v", ctx.Err())
		case <-q.done(rec.ID):
		case <-wait.C:
		}
		wait.Stop()
		var err error
		if rec, err = e.Observe(ctx, rec.ID, q.Owner, q.Version); err != nil {
			return nil, methodError(err)
		}
	}
	switch {
	case rec.Status == Cancelled:
		return nil, errorf(CodeInvalidRequest, "task %s was cancelled", rec.ID)
	case rec.Error != nil:
		var eo struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		_ = json.Unmarshal(rec.Error, &eo)
		out := &Error{Code: eo.Code, Msg: eo.Message}
		if eo.Data != nil {
			out.Data = eo.Data
		}
		return nil, out
	}
	return WithRelatedTask(rec.Result, rec.ID), nil
}

// list answers tasks/list (2025-11-25): the caller's tasks, from its list
// in the store (every instance's, finished ones too, until their TTL ends).
func (e *Engine) list(ctx context.Context, q *Request) ([]byte, *Error) {
	recs, err := e.List(ctx, q.Owner, q.Version)
	if err != nil {
		return nil, methodError(err)
	}
	b := []byte(`{"tasks":[`)
	for i, rec := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, LegacyTask(rec)...)
	}
	return append(b, "]}"...), nil
}

// Visible keeps the ids of a subscriptions/listen filter's taskIds that
// name tasks of owner.
func (e *Engine) Visible(ctx context.Context, ids []string, owner, version string) []string {
	kept := ids[:0]
	for _, id := range ids {
		if _, err := e.Observe(ctx, id, owner, version); err == nil {
			kept = append(kept, id)
		}
	}
	return kept
}

// Route decides how a tools/call of a tool whose task support is support
// ("", "optional", "required") runs, for a request of era modern and
// protocol version with client capabilities caps and params: as a task
// (asTask; now: a task at once, with ttl from 2025-11-25 params.task) or as a
// plain call, or its refusal. A 2026-07-28 client that did not declare the
// extension gets -32021 for a required tool; revisions before 2025-11-25
// have no tasks.
func Route(modern bool, version string, caps, params json.RawMessage, tool, support string) (asTask, now bool, ttl int64, err *Error) {
	switch {
	case modern && DeclaresTasks(caps):
		return true, false, 0, nil
	case modern && support == "required":
		return false, false, 0, MissingExtension("tool " + tool)
	case modern || version != Legacy:
		return false, false, 0, nil
	}
	ttl, asTask, err = LegacyCall(params, tool, support)
	return asTask, true, ttl, err
}

// LegacyCall routes a 2025-11-25 tools/call of a tool whose task support is
// support ("", "optional", "required"): one with params.task runs as a task
// at once (ttl from it); a required tool without it, or a plain tool with
// it, is -32601 (the spec's rule). asTask false, without error, is a plain
// call.
func LegacyCall(callParams json.RawMessage, tool, support string) (ttl int64, asTask bool, rerr *Error) {
	task, asked := legacyTaskParam(callParams)
	switch {
	case !asked && support == "required":
		return 0, false, errorf(CodeMethodNotFound, "tool %s must be called as a task (params.task)", tool)
	case !asked:
		return 0, false, nil
	case support == "":
		return 0, false, errorf(CodeMethodNotFound, "tool %s does not run as a task", tool)
	}
	ttl, err := LegacyTTL(task)
	if err != nil {
		return 0, false, errorf(CodeInvalidParams, "tools/call: %v", err)
	}
	return ttl, true, nil
}

// legacyTaskParam returns params.task and whether it is present.
func legacyTaskParam(callParams json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(callParams, []byte(`"task"`)) {
		return nil, false
	}
	var task json.RawMessage
	jsonwire.EachMember(callParams, func(key, val []byte) {
		if string(key) == "task" {
			task = val
		}
	})
	return task, task != nil && string(task) != "null"
}

// StatusNotification is the notifications/tasks/status of a 2025-11-25 task.
func StatusNotification(rec *Record) []byte {
	return append(append([]byte(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":`), LegacyTask(rec)...), '}')
}

// Open returns the engine of one server process over st: a zero lim.Lease
// is taken from the environment variable leaseEnv (a Go duration), and the
// runner named in abandoned tasks' messages is this host and process.
func Open(st store.Store, lim Limits, leaseEnv string) *Engine {
	if d, err := time.ParseDuration(os.Getenv(leaseEnv)); lim.Lease == 0 && err == nil && d > 0 {
		lim.Lease = d
	}
	host, _ := os.Hostname()
	return New(st, lim, fmt.Sprintf("%s pid %d, %s", host, os.Getpid(), NewID()[:8]))
}

// Start creates the record of a task that starts now (Create) and, in
// 2025-11-25, adds it to its owner's list (tasks/list; listErr says why
// not: the task runs anyway).
func (e *Engine) Start(ctx context.Context, owner, era, tool string, ttl time.Duration, msg string) (rec *Record, listErr, err error) {
	if rec, err = e.Create(ctx, owner, era, tool, ttl, msg); err != nil || era != Legacy {
		return rec, nil, err
	}
	return rec, e.Index(ctx, rec), nil
}

// Succeed puts r into the completed state with the result of its
// tools/call (isError: a tool error, still a completed task).
func Succeed(r *Record, result json.RawMessage, isError bool) {
	msg := "completed"
	if isError {
		msg = "completed with a tool error"
	}
	Finish(r, Completed, msg, result, nil)
}

// Fail puts r into the failed state with a JSON-RPC error (a Finish).
func Fail(r *Record, code int, msg string, data any) {
	Finish(r, Failed, msg, nil, ErrorObject(code, msg, data))
}

// RelatedParams returns params (any JSON object) with the related-task
// _meta of task id, for what a 2025-11-25 task sends its client.
func RelatedParams(params any, id string) (map[string]any, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["_meta"] = map[string]any{MetaRelatedTask: map[string]string{"taskId": id}}
	return m, nil
}
