package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
)

// The tests of the tasks extension drive a runtime.Server in process (HandleRaw)
// and validate what it answers against the extension's schema (2026-07-28)
// or the 2025-11-25 schema.

// A taskHarness calls a server in process.
type taskHarness struct {
	t   *testing.T
	s   *runtime.Server
	x   *ext
	ctx context.Context
	id  int
}

// taskTools are the tools the task tests serve. release lets "slow" finish;
// cancelled receives the context error of a cancelled "slow".
func taskTools(release <-chan struct{}, cancelled chan<- error) []*runtime.Tool {
	empty := json.RawMessage(`{"type":"object"}`)
	return []*runtime.Tool{
		{Name: "slow", Description: "Waits for the test.", InputSchema: empty, Task: runtime.TaskOptional,
			Handler: func(ctx context.Context, _ *runtime.ToolRequest) (*runtime.ToolResult, error) {
				_ = runtime.Progress(ctx, 1, 2, "half way")
				select {
				case <-release:
					return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("slow done")}}, nil
				case <-ctx.Done():
					cancelled <- ctx.Err()
					return nil, ctx.Err()
				}
			}},
		{Name: "block", Description: "Runs until cancelled.", InputSchema: empty, Task: runtime.TaskOptional,
			Handler: func(ctx context.Context, _ *runtime.ToolRequest) (*runtime.ToolResult, error) {
				<-ctx.Done()
				cancelled <- ctx.Err()
				return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("stopped")}}, nil
			}},
		{Name: "quick", Description: "Answers at once.", InputSchema: empty, Task: runtime.TaskOptional,
			Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
				return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("quick")}}, nil
			}},
		{Name: "must", Description: "Always a task.", InputSchema: empty, Task: runtime.TaskRequired,
			Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
				return nil, &runtime.ToolError{Code: "upstream", Message: "upstream said no"}
			}},
		{Name: "crash", Description: "Panics.", InputSchema: empty, Task: runtime.TaskRequired,
			Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) { panic("boom") }},
		{Name: "ask", Description: "Asks twice inside a task.", InputSchema: empty, Task: runtime.TaskOptional,
			Handler: func(ctx context.Context, _ *runtime.ToolRequest) (*runtime.ToolResult, error) {
				Start(ctx)
				var a, b runtime.ElicitResult
				schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
				if err := runtime.Ask(ctx, runtime.AskElicitation("a", "First?", schema, &a), runtime.AskElicitation("b", "Second?", schema, &b)); err != nil {
					return nil, err
				}
				return &runtime.ToolResult{Content: []runtime.Content{runtime.Text(string(a.Content) + "+" + string(b.Content))}}, nil
			}},
		{Name: "plain", Description: "Not a task.", InputSchema: empty,
			Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
				return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("plain")}}, nil
			}},
	}
}

// newTaskHarness serves taskTools with opts.
func newTaskHarness(t *testing.T, opts *runtime.Options) (*taskHarness, chan struct{}, chan error) {
	release, cancelled := make(chan struct{}), make(chan error, 4)
	if opts == nil {
		opts = &runtime.Options{}
	}
	s, x := newTestServer(t, opts, taskTools(release, cancelled)...)
	ctx := runtime.WithPrincipal(context.Background(), &runtime.Principal{Subject: "alice"})
	return &taskHarness{t: t, s: s, x: x, ctx: ctx}, release, cancelled
}

// taskCaps declares elicitation and the tasks extension.
var taskCaps = map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{ID: map[string]any{}}}

// rpc sends a 2026-07-28 request with caps and returns its result or error.
func (h *taskHarness) rpc(ctx context.Context, method string, params map[string]any, caps map[string]any) (json.RawMessage, *msg) {
	h.t.Helper()
	h.id++
	if params == nil {
		params = map[string]any{}
	}
	meta := modernMeta()
	meta["io.modelcontextprotocol/clientCapabilities"] = caps
	params["_meta"] = meta
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id, "method": method, "params": params})
	if err != nil {
		h.t.Fatal(err)
	}
	r := h.s.HandleRaw(ctx, raw, nil, nil)
	m := &msg{raw: r.Body}
	if err := json.Unmarshal(r.Body, m); err != nil {
		h.t.Fatalf("%s: %s: %v", method, r.Body, err)
	}
	return m.Result, m
}

// call is rpc as alice with taskCaps, failing on an error.
func (h *taskHarness) call(method string, params map[string]any) json.RawMessage {
	h.t.Helper()
	res, m := h.rpc(h.ctx, method, params, taskCaps)
	if m.Error != nil {
		h.t.Fatalf("%s %v: error %d %s", method, params, m.Error.Code, m.Error.Message)
	}
	return res
}

// errCode is rpc's error code and message (0 for a result).
func (h *taskHarness) errCode(ctx context.Context, method string, params map[string]any, caps map[string]any) (int, string) {
	h.t.Helper()
	_, m := h.rpc(ctx, method, params, caps)
	if m.Error == nil {
		return 0, ""
	}
	return m.Error.Code, m.Error.Message
}

// detailed is a DetailedTask as tests read it.
type detailed struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	StatusMessage string                     `json:"statusMessage"`
	TTLMs         int64                      `json:"ttlMs"`
	PollMs        int64                      `json:"pollIntervalMs"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// start calls a tool and returns the CreateTaskResult's task id.
func (h *taskHarness) start(tool string) string {
	h.t.Helper()
	res := h.call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{}})
	validateExt(h.t, "CreateTaskResult", res)
	var d detailed
	if err := json.Unmarshal(res, &d); err != nil || d.ResultType != "task" || d.TaskID == "" {
		h.t.Fatalf("%s: not a CreateTaskResult: %s", tool, res)
	}
	return d.TaskID
}

// get polls a task once.
func (h *taskHarness) get(id string) detailed {
	h.t.Helper()
	res := h.call("tasks/get", map[string]any{"taskId": id})
	validateExt(h.t, "GetTaskResult", res)
	var d detailed
	if err := json.Unmarshal(res, &d); err != nil {
		h.t.Fatal(err)
	}
	return d
}

// until polls a task until pred holds.
func (h *taskHarness) until(id string, pred func(detailed) bool) detailed {
	h.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		d := h.get(id)
		if pred(d) {
			return d
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("task %s stuck: %+v", id, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func terminal(d detailed) bool {
	return d.Status == "completed" || d.Status == "failed" || d.Status == "cancelled"
}

func TestTasksModernLifecycle(t *testing.T) {
	h, release, cancelled := newTaskHarness(t, nil)

	// discover advertises the extension, not a capabilities.tasks slot.
	disc := h.call("server/discover", nil)
	if !bytes.Contains(disc, []byte(`"extensions":{"io.modelcontextprotocol/tasks":{}}`)) || bytes.Contains(disc, []byte(`"tasks":{`)) {
		t.Errorf("discover capabilities: %s", disc)
	}
	// A handler that finishes within the threshold answers plainly.
	res := h.call("tools/call", map[string]any{"name": "quick"})
	if !bytes.Contains(res, []byte(`"resultType":"complete"`)) || bytes.Contains(res, []byte("taskId")) {
		t.Errorf("quick: %s", res)
	}
	// A slow one becomes a task; progress becomes its status message.
	id := h.start("slow")
	d := h.until(id, func(d detailed) bool { return d.StatusMessage == "half way" })
	if d.Status != "working" || d.Result != nil || d.TTLMs != time.Hour.Milliseconds() || d.PollMs != 500 {
		t.Errorf("working task: %+v", d)
	}
	close(release)
	d = h.until(id, terminal)
	if d.Status != "completed" || d.Result == nil || d.Result.Content[0].Text != "slow done" || d.Error != nil {
		t.Errorf("completed task: %+v", d)
	}
	// A tool error completes the task with isError; a required tool is a task
	// even when it finishes at once.
	d = h.until(h.start("must"), terminal)
	if d.Status != "completed" || d.Result == nil || !d.Result.IsError {
		t.Errorf("tool error: %+v", d)
	}
	// A panic fails it with a JSON-RPC error carrying the structured runtime.ToolError.
	d = h.until(h.start("crash"), terminal)
	if d.Status != "failed" || d.Error == nil || d.Error.Code != runtime.CodeInternalError || !bytes.Contains(d.Error.Data, []byte(`"code":"internal"`)) || d.Result != nil {
		t.Errorf("panic: %+v", d)
	}
	// tasks/cancel: acknowledged, cancelled before the answer, the handler's
	// context cancelled; cancelling again is acknowledged too.
	id = h.start("block")
	ack := h.call("tasks/cancel", map[string]any{"taskId": id})
	validateExt(t, "CancelTaskResult", ack)
	if bytes.Contains(ack, []byte("taskId")) {
		t.Errorf("cancel ack carries the task: %s", ack)
	}
	if d := h.get(id); d.Status != "cancelled" {
		t.Errorf("after cancel: %+v", d)
	}
	if err := waitFor(t, cancelled, "the cancelled handler"); err != context.Canceled {
		t.Errorf("handler context: %v", err)
	}
	validateExt(t, "CancelTaskResult", h.call("tasks/cancel", map[string]any{"taskId": id}))
	if d := h.get(id); d.Status != "cancelled" {
		t.Errorf("a cancelled handler's return changed the task: %+v", d)
	}
}

func TestTasksModernInput(t *testing.T) {
	h, _, _ := newTaskHarness(t, nil)
	id := h.start("ask")
	d := h.until(id, func(d detailed) bool { return len(d.InputRequests) == 2 })
	if d.Status != "input_required" || !bytes.Contains(d.InputRequests["a"], []byte(`"method":"elicitation/create"`)) {
		t.Fatalf("input_required: %+v", d)
	}
	// Keys never asked are ignored; a partial answer keeps the task waiting.
	ack := h.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"zzz": map[string]any{"action": "accept"}, "a": map[string]any{"action": "accept", "content": map[string]any{"name": "Ann"}}}})
	validateExt(t, "UpdateTaskResult", ack)
	d = h.get(id)
	if d.Status != "input_required" || len(d.InputRequests) != 1 || d.InputRequests["b"] == nil {
		t.Fatalf("after a partial answer: %+v", d)
	}
	h.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"b": map[string]any{"action": "accept", "content": map[string]any{"name": "Bo"}}}})
	d = h.until(id, terminal)
	if d.Status != "completed" || d.Result == nil || d.Result.Content[0].Text != `{"name":"Ann"}+{"name":"Bo"}` {
		t.Fatalf("after both answers: %+v", d)
	}
	// A finished task takes no more input.
	if code, msg := h.errCode(h.ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"b": map[string]any{"action": "accept"}}}, taskCaps); code != runtime.CodeInvalidParams || !strings.Contains(msg, "completed") {
		t.Errorf("update after completion: %d %q", code, msg)
	}
}

func TestTasksModernBadInput(t *testing.T) {
	h, release, _ := newTaskHarness(t, nil)
	defer close(release)
	id := h.start("slow")
	noExt := map[string]any{}
	bob := runtime.WithPrincipal(context.Background(), &runtime.Principal{Subject: "bob"})
	for _, c := range []struct {
		name   string
		ctx    context.Context
		method string
		params map[string]any
		caps   map[string]any
		code   int
		msg    string
	}{
		{"required tool without the extension", h.ctx, "tools/call", map[string]any{"name": "must"}, noExt, runtime.CodeMissingClientCapability, ID},
		{"tasks/get without the extension", h.ctx, "tasks/get", map[string]any{"taskId": id}, noExt, runtime.CodeMissingClientCapability, ID},
		{"tasks/update without the extension", h.ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{}}, noExt, runtime.CodeMissingClientCapability, ID},
		{"tasks/cancel without the extension", h.ctx, "tasks/cancel", map[string]any{"taskId": id}, noExt, runtime.CodeMissingClientCapability, ID},
		{"unknown id", h.ctx, "tasks/get", map[string]any{"taskId": "tasks-conformance-nonexistent-12345"}, taskCaps, runtime.CodeInvalidParams, "Task not found"},
		{"well-formed unknown id", h.ctx, "tasks/get", map[string]any{"taskId": strings.Repeat("A", 43)}, taskCaps, runtime.CodeInvalidParams, "Task not found"},
		{"numeric id", h.ctx, "tasks/get", map[string]any{"taskId": 5}, taskCaps, runtime.CodeInvalidParams, "taskId must be a string"},
		{"missing id", h.ctx, "tasks/cancel", map[string]any{}, taskCaps, runtime.CodeInvalidParams, "taskId must be a string"},
		{"another principal's task", bob, "tasks/get", map[string]any{"taskId": id}, taskCaps, runtime.CodeInvalidParams, "Task not found"},
		{"another principal's cancel", bob, "tasks/cancel", map[string]any{"taskId": id}, taskCaps, runtime.CodeInvalidParams, "Task not found"},
		{"inputResponses not an object", h.ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": []int{1}}, taskCaps, runtime.CodeInvalidParams, "inputResponses must be an object"},
		{"tasks/result is 2025-11-25 only", h.ctx, "tasks/result", map[string]any{"taskId": id}, taskCaps, runtime.CodeMethodNotFound, "method not found"},
		{"tasks/list is 2025-11-25 only", h.ctx, "tasks/list", nil, taskCaps, runtime.CodeMethodNotFound, "method not found"},
		{"listen for tasks without the extension", h.ctx, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}}}, noExt, runtime.CodeMissingClientCapability, ID},
	} {
		if code, msg := h.errCode(c.ctx, c.method, c.params, c.caps); code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: got %d %q, want %d containing %q", c.name, code, msg, c.code, c.msg)
		}
	}
	// Updates for a task not waiting for input are ignored (acknowledged, nothing stored).
	h.call("tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{"x": map[string]any{"action": "accept"}}})
	if rec, err := h.x.engine().Get(h.ctx, id); err != nil || rec.Status != "working" || len(rec.Answers) != 0 {
		t.Errorf("update of a working task: %+v, %v", rec, err)
	}
	// The legacy task param neither errors nor makes a plain tool a task.
	res := h.call("tools/call", map[string]any{"name": "plain", "task": map[string]any{"ttl": 60000}})
	if bytes.Contains(res, []byte("taskId")) {
		t.Errorf("legacy task hint on a plain tool: %s", res)
	}
	// Expired: the TTL ended (the engine's clock moved past it).
	h.x.engine().SetClock(func() time.Time { return time.Now().Add(2 * time.Hour) })
	defer h.x.engine().SetClock(time.Now)
	if code, msg := h.errCode(h.ctx, "tasks/get", map[string]any{"taskId": id}, taskCaps); code != runtime.CodeInvalidParams || !strings.Contains(msg, "Task has expired") {
		t.Errorf("expired task: %d %q", code, msg)
	}
}

// chanSink collects messages.
type chanSink chan []byte

func (c chanSink) Send(_ context.Context, msg []byte) error {
	c <- bytes.Clone(msg)
	return nil
}

func TestTasksStatusNotifications(t *testing.T) {
	h, release, _ := newTaskHarness(t, nil)
	id := h.start("slow")
	other := h.start("slow")
	out := make(chanSink, 16)
	lctx, stop := context.WithCancel(h.ctx)
	defer stop()
	go func() {
		meta := modernMeta()
		meta["io.modelcontextprotocol/clientCapabilities"] = taskCaps
		raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "subscriptions/listen",
			"params": map[string]any{"_meta": meta, "notifications": map[string]any{"taskIds": []string{id, strings.Repeat("B", 43)}}}})
		h.s.HandleRaw(lctx, raw, nil, out)
	}()
	ackMsg := waitFor(t, (<-chan []byte)(out), "the acknowledgement")
	if !bytes.Contains(ackMsg, []byte(`"taskIds":["`+id+`"]`)) {
		t.Fatalf("acknowledgement (unknown ids dropped): %s", ackMsg)
	}
	h.call("tasks/cancel", map[string]any{"taskId": other}) // not listened to
	close(release)
	for {
		n := waitFor(t, (<-chan []byte)(out), "a task notification")
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(n, &m); err != nil || m.Method != "notifications/tasks" {
			t.Fatalf("notification: %s", n)
		}
		validateExt(t, "TaskStatusNotification", n)
		var d detailed
		_ = json.Unmarshal(m.Params, &d)
		if d.TaskID != id {
			t.Fatalf("notification for a task not listened to: %s", n)
		}
		if d.Status == "completed" {
			if d.Result == nil {
				t.Fatalf("completed notification without its result: %s", n)
			}
			return
		}
	}
}

// legacySession initializes a 2025-11-25 session whose own stream is out.
func (h *taskHarness) legacySession(out runtime.Sink) *runtime.Session {
	h.t.Helper()
	sess := h.s.NewSession(out)
	r := h.s.HandleRaw(h.ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`), sess, out)
	if err := validateLegacy(h.t, "InitializeResult", rawMember(r.Body, "result")); err != nil {
		h.t.Fatal(err)
	}
	if !bytes.Contains(r.Body, []byte(`"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}`)) {
		h.t.Errorf("initialize capabilities: %s", r.Body)
	}
	h.s.HandleRaw(h.ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), sess, out)
	return sess
}

// legacy sends a 2025-11-25 request on sess.
func (h *taskHarness) legacy(sess *runtime.Session, method string, params any) *msg {
	h.t.Helper()
	h.id++
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.id, "method": method, "params": params})
	r := h.s.HandleRaw(h.ctx, raw, sess, nil)
	m := &msg{raw: r.Body}
	if err := json.Unmarshal(r.Body, m); err != nil {
		h.t.Fatalf("%s: %s", method, r.Body)
	}
	return m
}

// legacyValid checks a 2025-11-25 result against its definition.
func (h *taskHarness) legacyValid(m *msg, def string) {
	h.t.Helper()
	if m.Error != nil {
		h.t.Fatalf("%s: error %d %s", def, m.Error.Code, m.Error.Message)
	}
	if err := validateLegacy(h.t, def, m.Result); err != nil {
		h.t.Errorf("%s: %v", def, err)
	}
}

func TestTasksLegacy(t *testing.T) {
	h, release, _ := newTaskHarness(t, nil)
	out := make(chanSink, 64)
	sess := h.legacySession(out)
	list := h.legacy(sess, "tools/list", map[string]any{})
	h.legacyValid(list, "ListToolsResult")
	if !bytes.Contains(list.Result, []byte(`"name":"slow","description":"Waits for the test.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}`)) ||
		!bytes.Contains(list.Result, []byte(`"execution":{"taskSupport":"required"}`)) {
		t.Errorf("tools/list: %s", list.Result)
	}
	// Task augmentation: CreateTaskResult at once, with the requested TTL.
	m := h.legacy(sess, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "task": map[string]any{"ttl": 120000}})
	h.legacyValid(m, "CreateTaskResult")
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
			TTL    int64  `json:"ttl"`
		} `json:"task"`
	}
	_ = json.Unmarshal(m.Result, &created)
	id := created.Task.TaskID
	if created.Task.Status != "working" || created.Task.TTL != 120000 {
		t.Fatalf("CreateTaskResult: %s", m.Result)
	}
	g := h.legacy(sess, "tasks/get", map[string]any{"taskId": id})
	h.legacyValid(g, "GetTaskResult")
	l := h.legacy(sess, "tasks/list", map[string]any{})
	h.legacyValid(l, "ListTasksResult")
	if !bytes.Contains(l.Result, []byte(id)) {
		t.Errorf("tasks/list lacks the task: %s", l.Result)
	}
	// tasks/result waits for the end and carries the related-task _meta.
	done := make(chan *msg, 1)
	go func() { done <- h.legacy(sess, "tasks/result", map[string]any{"taskId": id}) }()
	time.Sleep(20 * time.Millisecond)
	close(release)
	r := waitFor(t, (<-chan *msg)(done), "tasks/result")
	h.legacyValid(r, "CallToolResult")
	if !bytes.Contains(r.Result, []byte(`"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`)) {
		t.Errorf("tasks/result: %s", r.Result)
	}
	// A finished task is still listed (tasks/get resolves it, so tasks/list must).
	if l := h.legacy(sess, "tasks/list", map[string]any{}); !bytes.Contains(l.Result, []byte(`"taskId":"`+id+`","status":"completed"`)) {
		t.Errorf("tasks/list after completion: %s", l.Result)
	}
	// Status notifications went to the session's stream.
	for len(out) > 0 {
		n := <-out
		if bytes.Contains(n, []byte("notifications/tasks/status")) {
			if err := validateLegacy(h.t, "TaskStatusNotification", n); err != nil {
				t.Errorf("status notification: %v", err)
			}
		}
	}
	// Cancelling a finished task is -32602 in 2025-11-25.
	if c := h.legacy(sess, "tasks/cancel", map[string]any{"taskId": id}); c.Error == nil || c.Error.Code != runtime.CodeInvalidParams {
		t.Errorf("cancel of a completed task: %s", c.raw)
	}
	// A tool error is a failed task whose tasks/result is the isError result.
	m = h.legacy(sess, "tools/call", map[string]any{"name": "must", "arguments": map[string]any{}, "task": map[string]any{}})
	h.legacyValid(m, "CreateTaskResult")
	_ = json.Unmarshal(m.Result, &created)
	r = h.legacy(sess, "tasks/result", map[string]any{"taskId": created.Task.TaskID})
	if h.legacyValid(r, "CallToolResult"); !bytes.Contains(r.Result, []byte(`"isError":true`)) {
		t.Errorf("tasks/result of a tool error: %s", r.Result)
	}
	if g := h.legacy(sess, "tasks/get", map[string]any{"taskId": created.Task.TaskID}); !bytes.Contains(g.Result, []byte(`"status":"failed"`)) || created.Task.TTL != time.Hour.Milliseconds() {
		t.Errorf("2025-11-25 status of a tool error / default TTL: %s %d", g.Result, created.Task.TTL)
	}
	// TTL edges and the tool-level rules.
	for _, c := range []struct {
		name   string
		params map[string]any
		code   int
		ttl    int64
	}{
		{"negative ttl", map[string]any{"name": "slow", "task": map[string]any{"ttl": -1}}, runtime.CodeInvalidParams, 0},
		{"fractional ttl", map[string]any{"name": "slow", "task": map[string]any{"ttl": 1.5}}, runtime.CodeInvalidParams, 0},
		{"task not an object", map[string]any{"name": "slow", "task": 3}, runtime.CodeInvalidParams, 0},
		{"huge ttl", map[string]any{"name": "quick", "task": map[string]any{"ttl": int64(1) << 62}}, 0, 24 * time.Hour.Milliseconds()},
		{"zero ttl", map[string]any{"name": "quick", "task": map[string]any{"ttl": 0}}, 0, time.Hour.Milliseconds()},
		{"tiny ttl", map[string]any{"name": "quick", "task": map[string]any{"ttl": 1}}, 0, time.Second.Milliseconds()},
		{"required tool without task", map[string]any{"name": "must"}, runtime.CodeMethodNotFound, 0},
		{"plain tool with task", map[string]any{"name": "plain", "task": map[string]any{}}, runtime.CodeMethodNotFound, 0},
	} {
		m := h.legacy(sess, "tools/call", c.params)
		switch {
		case c.code != 0 && (m.Error == nil || m.Error.Code != c.code):
			t.Errorf("%s: got %s, want error %d", c.name, m.raw, c.code)
		case c.code == 0:
			created.Task.TTL = 0
			_ = json.Unmarshal(m.Result, &created)
			if created.Task.TTL != c.ttl {
				t.Errorf("%s: ttl %d, want %d (%s)", c.name, created.Task.TTL, c.ttl, m.raw)
			}
		}
	}
}

func TestTasksLegacyElicitation(t *testing.T) {
	h, _, _ := newTaskHarness(t, nil)
	out := make(chanSink, 64)
	sess := h.legacySession(out)
	m := h.legacy(sess, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}, "task": map[string]any{}})
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	_ = json.Unmarshal(m.Result, &created)
	for answered := 0; answered < 2; {
		req := waitFor(t, (<-chan []byte)(out), "an elicitation request")
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(req, &r)
		if r.Method != "elicitation/create" {
			continue
		}
		if err := validateLegacy(h.t, "ElicitRequest", req); err != nil || !bytes.Contains(req, []byte(`"io.modelcontextprotocol/related-task":{"taskId":"`+created.Task.TaskID+`"}`)) {
			t.Fatalf("elicitation request: %s (%v)", req, err)
		}
		if g := h.legacy(sess, "tasks/get", map[string]any{"taskId": created.Task.TaskID}); !bytes.Contains(g.Result, []byte(`"status":"input_required"`)) {
			t.Errorf("status while asking: %s", g.Result)
		}
		answered++
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"n%d"}}}`, r.ID, answered)
		h.s.HandleRaw(h.ctx, []byte(resp), sess, nil)
	}
	r := h.legacy(sess, "tasks/result", map[string]any{"taskId": created.Task.TaskID})
	if h.legacyValid(r, "CallToolResult"); !bytes.Contains(r.Result, []byte(`{\"name\":\"n1\"}+{\"name\":\"n2\"}`)) {
		t.Errorf("result: %s", r.Result)
	}
}

func TestTasksLimitAndLog(t *testing.T) {
	h, _, cancelled := newTaskHarness(t, &runtime.Options{MaxTasks: 1})
	logged := make(chan error, 1)
	h.s.AddTool(&runtime.Tool{Name: "logs", Description: "Logs inside its task.", InputSchema: json.RawMessage(`{"type":"object"}`), Task: runtime.TaskRequired,
		Handler: func(ctx context.Context, _ *runtime.ToolRequest) (*runtime.ToolResult, error) {
			Start(ctx)
			logged <- runtime.Log(ctx, "error", "t", "inside a task")
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("logged")}}, nil
		}})
	id := h.start("block")
	if code, msg := h.errCode(h.ctx, "tools/call", map[string]any{"name": "slow"}, taskCaps); code != runtime.CodeInternalError || !strings.Contains(msg, "server busy") {
		t.Fatalf("a second task over MaxTasks 1: %d %q", code, msg)
	}
	h.call("tasks/cancel", map[string]any{"taskId": id})
	waitFor(t, cancelled, "the cancelled handler")
	deadline := time.Now().Add(waitTimeout)
	for h.x.engine().Running() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// With a log level asked, a log message would go out on the call's stream,
	// which is over once the task exists: inside a task it is dropped.
	raw := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"logs","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	var created detailed
	if err := json.Unmarshal(rawMember(h.s.HandleRaw(h.ctx, []byte(raw), nil, nil).Body, "result"), &created); err != nil || created.TaskID == "" {
		t.Fatalf("logs: no task (%v)", err)
	}
	h.until(created.TaskID, terminal)
	if err := waitFor(t, (<-chan error)(logged), "the log call"); err != nil {
		t.Errorf("runtime.Log inside a task: %v, want nil (dropped)", err)
	}
}

func TestTasksAudited(t *testing.T) {
	var buf syncBuffer
	h, release, _ := newTaskHarness(t, &runtime.Options{Audit: slog.New(slog.NewJSONHandler(&buf, nil))})
	id := h.start("slow")
	close(release)
	if d := h.until(id, terminal); d.Status != "completed" {
		t.Fatalf("audited task: %+v", d)
	}
	crashed := h.start("crash")
	h.until(crashed, terminal)
	blocked := h.start("block")
	h.call("tasks/cancel", map[string]any{"taskId": blocked})
	h.until(blocked, terminal)

	// Each task has two records under its request's id: the call's, answered
	// with the task, and the task's own outcome when its handler ended.
	type record struct {
		RequestID  string   `json:"request_id"`
		Tool       string   `json:"tool"`
		TaskID     string   `json:"task_id"`
		TaskStatus string   `json:"task_status"`
		Outcome    string   `json:"outcome"`
		HandlerMs  *float64 `json:"handler_ms"`
		TotalMs    float64  `json:"total_ms"`
	}
	want := map[string][2]string{id: {"completed", "ok"}, crashed: {"failed", "rpc_error:-32603"}, blocked: {"cancelled", "cancelled"}}
	deadline := time.Now().Add(waitTimeout)
	for {
		seen := map[string]record{}
		calls := 0
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var r record
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("audit line %q: %v", line, err)
			}
			switch {
			case r.TaskID != "":
				seen[r.TaskID] = r
			case r.Tool != "":
				calls++
			}
		}
		ok := calls == 3 && len(seen) == 3
		for tid, w := range want {
			r := seen[tid]
			ok = ok && r.TaskStatus == w[0] && r.Outcome == w[1] && r.HandlerMs != nil && r.TotalMs >= *r.HandlerMs
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task audit records: %d calls, tasks %+v, want %v:\n%s", calls, seen, want, buf.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTasksLegacyHTTP runs a 2025-11-25 task over Streamable HTTP: the
// task-augmented call answers at once, the task's questions arrive on the
// session's GET stream with the related-task _meta, and tasks/result returns
// the result once they are answered.
func TestTasksLegacyHTTP(t *testing.T) {
	s, _ := newTestServer(t, nil, taskTools(make(chan struct{}), make(chan error, 1))...)
	ts := httptest.NewServer(s.HTTPHandler(nil))
	defer ts.Close()
	session := ""
	do := func(method string, body []byte) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", revLegacy)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// result posts a request and returns its response (the last message of an SSE reply).
	result := func(body []byte) []byte {
		t.Helper()
		resp := do(http.MethodPost, body)
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			return b
		}
		var last string
		_ = readEvents(resp.Body, func(ev sseEvent) bool { last = ev.data; return strings.Contains(ev.data, `"id"`) })
		return []byte(last)
	}
	request := func(id int, method string, params any) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		return b
	}
	resp := do(http.MethodPost, request(1, "initialize", map[string]any{
		"protocolVersion": revLegacy, "capabilities": map[string]any{"elicitation": map[string]any{}},
		"clientInfo": map[string]any{"name": "http-test", "version": "1"}}))
	resp.Body.Close()
	if session = resp.Header.Get("Mcp-Session-Id"); session == "" {
		t.Fatal("no session")
	}
	do(http.MethodPost, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)).Body.Close()
	stream := do(http.MethodGet, nil)
	defer stream.Body.Close()
	asks := make(chan string, 4)
	go func() {
		_ = readEvents(stream.Body, func(ev sseEvent) bool {
			if strings.Contains(ev.data, `"elicitation/create"`) {
				asks <- ev.data
			}
			return false
		})
	}()
	body := result(request(2, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}}))
	if err := validateLegacy(t, "CreateTaskResult", rawMember(body, "result")); err != nil {
		t.Fatalf("CreateTaskResult over HTTP: %s: %v", body, err)
	}
	id := strings.Trim(string(rawMember(rawMember(rawMember(body, "result"), "task"), "taskId")), `"`)
	for i := 1; i <= 2; i++ {
		ask := waitFor(t, (<-chan string)(asks), "an elicitation on the GET stream")
		if err := validateLegacy(t, "ElicitRequest", []byte(ask)); err != nil {
			t.Error(err)
		}
		if !strings.Contains(ask, `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
			t.Fatalf("elicitation without the related task: %s", ask)
		}
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"h%d"}}}`, rawMember([]byte(ask), "id"), i)
		do(http.MethodPost, []byte(answer)).Body.Close()
	}
	final := result(request(3, "tasks/result", map[string]any{"taskId": id}))
	if !bytes.Contains(final, []byte(`{\"name\":\"h1\"}+{\"name\":\"h2\"}`)) {
		t.Fatalf("tasks/result over HTTP: %s", final)
	}
	if err := validateLegacy(t, "CallToolResult", rawMember(final, "result")); err != nil {
		t.Error(err)
	}
}

// TestTasksDrainOnShutdown: the extension's Shutdown (drain) waits for running task handlers; at
// its deadline it cancels them and their tasks fail at once with the
// shutdown message (not when the lease lapses), also for a handler that
// ignores its cancellation.
func TestTasksDrainOnShutdown(t *testing.T) {
	release, cancelled := make(chan struct{}), make(chan error, 4)
	unblock := make(chan struct{})
	deaf := &runtime.Tool{Name: "deaf", Description: "Ignores its cancellation.", InputSchema: json.RawMessage(`{"type":"object"}`), Task: runtime.TaskRequired,
		Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
			<-unblock
			return nil, errors.New("late")
		}}
	quits := &runtime.Tool{Name: "quits", Description: "Fails when cancelled.", InputSchema: json.RawMessage(`{"type":"object"}`), Task: runtime.TaskRequired,
		Handler: func(ctx context.Context, _ *runtime.ToolRequest) (*runtime.ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	s, x := newTestServer(t, &runtime.Options{}, append(taskTools(release, cancelled), deaf, quits)...)
	h := &taskHarness{t: t, s: s, x: x, ctx: runtime.WithPrincipal(context.Background(), &runtime.Principal{Subject: "alice"})}

	// Nothing runs: it returns at once, even with a done context.
	done, stop := context.WithCancel(context.Background())
	stop()
	if err := x.drain(done); err != nil {
		t.Fatalf("drain with no task running: %v", err)
	}

	// A handler that finishes within the deadline: the drain waits for it.
	id := h.start("slow")
	drained := make(chan error, 1)
	go func() { drained <- x.drain(context.Background()) }()
	select {
	case err := <-drained:
		t.Fatalf("drain returned while a task handler ran: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := waitFor(t, drained, "the drain"); err != nil {
		t.Fatalf("drain after the handler finished: %v", err)
	}
	if d := h.get(id); d.Status != "completed" {
		t.Errorf("drained task: %+v", d)
	}

	// Handlers still running at the deadline are cancelled; the one that
	// returns an error fails with the shutdown message, and so does the one
	// that does not return (after the grace), without waiting for its lease.
	id = h.start("block")
	quitsID := h.start("quits")
	deafID := h.start("deaf")
	slowCtx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := x.drain(slowCtx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("drain cut short: %v", err)
	}
	if err := waitFor(t, cancelled, "the cancelled handler"); err != context.Canceled {
		t.Errorf("handler context: %v", err)
	}
	// block returns a result when cancelled: its task completes with it.
	if d := h.until(id, terminal); d.Status != "completed" {
		t.Errorf("a handler that returned a result at shutdown: %+v", d)
	}
	if d := h.until(quitsID, terminal); d.Status != "failed" || d.Error == nil || d.Error.Code != runtime.CodeInternalError || !strings.Contains(d.Error.Message, "shut down before it finished") {
		t.Errorf("a handler that failed at shutdown: %+v", d)
	}
	d := h.get(deafID)
	if d.Status != "failed" || d.Error == nil || d.Error.Code != runtime.CodeInternalError || !strings.Contains(d.Error.Message, "shut down before it finished") {
		t.Errorf("a handler that ignored the shutdown: %+v", d)
	}
	// Its late return changes nothing: wait until it is recorded as ended
	// (its run leaves the server's list), then read the task again.
	close(unblock)
	deadline := time.Now().Add(waitTimeout)
	for _, running := x.runs.Load(deafID); running; _, running = x.runs.Load(deafID) {
		if time.Now().After(deadline) {
			t.Fatal("the deaf handler's run never ended")
		}
		time.Sleep(time.Millisecond)
	}
	if d2 := h.get(deafID); d2.Status != "failed" || d2.Error == nil || d2.Error.Message != d.Error.Message {
		t.Errorf("the late return changed the failed task: %+v", d2)
	}
}

// TestTasksDrainedByListenAndServe: ListenAndServe's graceful shutdown
// drains the task handlers within ShutdownTimeout and fails what still runs.
func TestTasksDrainedByListenAndServe(t *testing.T) {
	h, _, cancelled := newTaskHarness(t, nil)
	id := h.start("slow")
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- h.s.ListenAndServe(ctx, "127.0.0.1:0", &runtime.HTTPOptions{ShutdownTimeout: 30 * time.Millisecond})
	}()
	time.Sleep(20 * time.Millisecond)
	stop()
	err := waitFor(t, served, "ListenAndServe")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "drain task handlers") {
		t.Errorf("ListenAndServe with a task running past ShutdownTimeout: %v", err)
	}
	if err := waitFor(t, cancelled, "the cancelled handler"); err != context.Canceled {
		t.Errorf("handler context: %v", err)
	}
	if d := h.until(id, terminal); d.Status != "failed" || d.Error == nil || !strings.Contains(d.Error.Message, "shut down before it finished") {
		t.Errorf("task after shutdown: %+v", d)
	}
}

// TestTasksInvalidArguments: the route is an interceptor, after validation,
// so a task tool called with invalid arguments gets the invalid_arguments
// isError result, never a task, in both eras (a required tool too, and with
// 2025-11-25 params.task); its handler never runs. Valid arguments still
// make a task.
func TestTasksInvalidArguments(t *testing.T) {
	h, _, _ := newTaskHarness(t, nil)
	ran := make(chan struct{}, 4)
	h.s.AddTool(&runtime.Tool{Name: "strict", Description: "Needs n.", Task: runtime.TaskRequired,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Handler: func(context.Context, *runtime.ToolRequest) (*runtime.ToolResult, error) {
			ran <- struct{}{}
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("ran")}}, nil
		}})
	res := h.call("tools/call", map[string]any{"name": "strict", "arguments": map[string]any{"n": "x"}})
	if bytes.Contains(res, []byte("taskId")) || !bytes.Contains(res, []byte(`"isError":true`)) || !bytes.Contains(res, []byte(`"invalid_arguments"`)) {
		t.Errorf("2026-07-28 invalid arguments: %s", res)
	}
	sess := h.legacySession(make(chanSink, 16))
	m := h.legacy(sess, "tools/call", map[string]any{"name": "strict", "arguments": map[string]any{}, "task": map[string]any{}})
	if m.Error != nil || bytes.Contains(m.Result, []byte(`"task"`)) || !bytes.Contains(m.Result, []byte(`"invalid_arguments"`)) {
		t.Errorf("2025-11-25 invalid arguments: %s", m.raw)
	}
	if len(ran) != 0 {
		t.Fatal("the handler ran for invalid arguments")
	}
	res = h.call("tools/call", map[string]any{"name": "strict", "arguments": map[string]any{"n": 1}})
	var d detailed
	if err := json.Unmarshal(res, &d); err != nil || d.ResultType != "task" {
		t.Fatalf("valid arguments: %s", res)
	}
	if d = h.until(d.TaskID, terminal); d.Status != "completed" || len(ran) != 1 {
		t.Errorf("valid arguments: %+v, handler ran %d times", d, len(ran))
	}
}
