package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/store"
)

const caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`

func request(method, params, version string) *Request {
	return &Request{Method: method, Params: json.RawMessage(params), Caps: json.RawMessage(caps),
		Owner: "alice", Version: version, Meta: json.RawMessage(`{"m":1}`)}
}

func TestMethodsByEra(t *testing.T) {
	for _, c := range []struct {
		name               string
		modern, legacy, ok bool
	}{
		{"tasks/get", true, true, true}, {"tasks/cancel", true, true, true}, {"tasks/update", true, false, true},
		{"tasks/result", false, true, true}, {"tasks/list", false, true, true}, {"tasks/other", false, false, false},
	} {
		m, l, ok := Methods(c.name)
		if m != c.modern || l != c.legacy || ok != c.ok {
			t.Errorf("%s: modern %v legacy %v ok %v", c.name, m, l, ok)
		}
	}
	if b, _ := json.Marshal(Capabilities(map[string]any{}, Modern)); string(b) != `{"extensions":{"io.modelcontextprotocol/tasks":{}}}` {
		t.Errorf("modern capabilities %s", b)
	}
	if b, _ := json.Marshal(Capabilities(map[string]any{}, Legacy)); string(b) != `{"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}}` {
		t.Errorf("legacy capabilities %s", b)
	}
	if b, _ := json.Marshal(Capabilities(map[string]any{}, "2025-06-18")); string(b) != `{}` {
		t.Errorf("2025-06-18 capabilities %s", b)
	}
	for in, want := range map[string]bool{caps: true, `{}`: false, `{"extensions":{"io.modelcontextprotocol/tasks":true}}`: false, `nope`: false} {
		if DeclaresTasks(json.RawMessage(in)) != want {
			t.Errorf("DeclaresTasks(%s) != %v", in, want)
		}
	}
}

func TestLegacyCall(t *testing.T) {
	for _, c := range []struct {
		params, support string
		ttl             int64
		asTask          bool
		code            int
	}{
		{`{"name":"t"}`, "", 0, false, 0},
		{`{"name":"t"}`, "optional", 0, false, 0},
		{`{"name":"t"}`, "required", 0, false, CodeMethodNotFound},
		{`{"name":"t","task":null}`, "required", 0, false, CodeMethodNotFound},
		{`{"name":"t","task":{}}`, "", 0, false, CodeMethodNotFound},
		{`{"name":"t","task":{}}`, "optional", 0, true, 0},
		{`{"name":"t","task":{"ttl":5000}}`, "required", 5000, true, 0},
		{`{"name":"t","task":{"ttl":-1}}`, "required", 0, false, CodeInvalidParams},
		{`{"name":"t","task":7}`, "optional", 0, false, CodeInvalidParams},
		{`{"name":"t","arguments":{"task":{}}}`, "optional", 0, false, 0}, // a nested member is not params.task
	} {
		ttl, asTask, err := LegacyCall(json.RawMessage(c.params), "t", c.support)
		code := 0
		if err != nil {
			code = err.Code
		}
		if ttl != c.ttl || asTask != c.asTask || code != c.code {
			t.Errorf("%s (%q): ttl %d asTask %v code %d, want %d %v %d", c.params, c.support, ttl, asTask, code, c.ttl, c.asTask, c.code)
		}
	}
}

// serve answers q with local as the run of every task, returning the
// records it reported changed.
func serve(e *Engine, q *Request, local *Run) ([]byte, []*Record, *Error) {
	h := &host{local: local}
	q.Host = h
	b, err := e.Serve(context.Background(), q)
	return b, h.changed, err
}

// host has local as the run of every task and records the changes.
type host struct {
	local   *Run
	changed []*Record
}

func (h *host) Local(string) *Run { return h.local }
func (h *host) Changed(r *Record) { h.changed = append(h.changed, r) }

func TestMethodsModern(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{}, "r1")
	rec, err := e.Create(ctx, "alice", Modern, "tool", time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	cancels := 0
	run := e.NewRun(true, fnHooks{Cancel: func() { cancels++ }})
	id := `{"taskId":"` + rec.ID + `"}`
	q := request("tasks/get", id, Modern)
	q.Caps = json.RawMessage(`{}`)
	if _, _, err := serve(e, q, nil); err == nil || err.Code != CodeMissingClientCapability || err.Data == nil {
		t.Errorf("tasks/get without the extension: %v", err)
	}
	if _, _, err := serve(e, request("tasks/get", `{}`, Modern), nil); err == nil || err.Code != CodeInvalidParams {
		t.Errorf("tasks/get without taskId: %v", err)
	}
	if _, _, err := serve(e, request("tasks/get", `{"taskId":"`+NewID()+`"}`, Modern), nil); err == nil || err.Msg != "Failed to retrieve task: Task not found" {
		t.Errorf("tasks/get of an unknown task: %v", err)
	}
	other := request("tasks/get", id, Modern)
	other.Owner = "bob"
	if _, _, err := serve(e, other, nil); err == nil || err.Code != CodeInvalidParams {
		t.Errorf("tasks/get of another's task: %v", err)
	}
	b, _, gerr := serve(e, request("tasks/get", id, Modern), nil)
	if gerr != nil || !strings.Contains(string(b), `"status":"working"`) || !strings.Contains(string(b), `{"m":1}`) {
		t.Errorf("tasks/get: %s %v", b, gerr)
	}
	if _, changed, err := serve(e, request("tasks/update", `{"taskId":"`+rec.ID+`","inputResponses":[]}`, Modern), run); err == nil || changed != nil {
		t.Errorf("tasks/update with an array: %v", err)
	}
	if _, _, err := e.Ask(ctx, rec.ID, map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)}); err != nil {
		t.Fatal(err)
	}
	b, changed, uerr := serve(e, request("tasks/update", `{"taskId":"`+rec.ID+`","inputResponses":{"never":1}}`, Modern), run)
	if uerr != nil || changed != nil || string(b) != `{"resultType":"complete","_meta":{"m":1}}` || len(run.wake) != 0 {
		t.Errorf("tasks/update of a key never asked: %s %v %v", b, changed, uerr)
	}
	if _, changed, uerr = serve(e, request("tasks/update", `{"taskId":"`+rec.ID+`","inputResponses":{"q":{"action":"accept"}}}`, Modern), run); uerr != nil || len(changed) != 1 || len(run.wake) != 1 {
		t.Errorf("tasks/update of the open question: %v %v, handler woken %d", changed, uerr, len(run.wake))
	}
	b, changed, cerr := serve(e, request("tasks/cancel", id, Modern), run)
	if cerr != nil || len(changed) != 1 || changed[0].Status != Cancelled || cancels != 1 || string(b) != `{"resultType":"complete","_meta":{"m":1}}` {
		t.Errorf("tasks/cancel: %s %v %v, handler cancelled %d", b, changed, cerr, cancels)
	}
	if _, changed, cerr = serve(e, request("tasks/cancel", id, Modern), run); cerr != nil || changed != nil || cancels != 1 {
		t.Errorf("tasks/cancel of a cancelled task: %v %v", changed, cerr)
	}
	if _, _, uerr = serve(e, request("tasks/update", `{"taskId":"`+rec.ID+`","inputResponses":{}}`, Modern), run); uerr == nil || uerr.Code != CodeInvalidParams {
		t.Errorf("tasks/update of a cancelled task: %v", uerr)
	}
	ids := e.Visible(ctx, []string{rec.ID, NewID()}, "alice", Modern)
	if len(ids) != 1 || ids[0] != rec.ID {
		t.Errorf("visible %v", ids)
	}
}

func TestMethodsLegacy(t *testing.T) {
	ctx := context.Background()
	e := New(store.NewMemory(), Limits{Poll: time.Hour}, "r1") // tasks/result must be woken by the local run
	done, err := e.Create(ctx, "alice", Legacy, "tool", time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Index(ctx, done); err != nil {
		t.Fatal(err)
	}
	if done, err = e.Update(ctx, done.ID, func(r *Record) error {
		Succeed(r, json.RawMessage(`{"content":[]}`), false)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	failed, _ := e.Create(ctx, "alice", Legacy, "tool", time.Minute, "")
	run := e.NewRun(true, fnHooks{})
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = e.Update(ctx, failed.ID, func(r *Record) error {
			Fail(r, -32603, "boom", map[string]any{"k": 1})
			return nil
		})
		run.Finish()
	}()
	b, _, rerr := serve(e, request("tasks/result", `{"taskId":"`+done.ID+`"}`, Legacy), nil)
	if rerr != nil || string(b) != `{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+done.ID+`"}},"content":[]}` {
		t.Errorf("tasks/result of a completed task: %s %v", b, rerr)
	}
	_, _, rerr = serve(e, request("tasks/result", `{"taskId":"`+failed.ID+`"}`, Legacy), run)
	if rerr == nil || rerr.Code != -32603 || rerr.Msg != "boom" || string(rerr.Data.(json.RawMessage)) != `{"k":1}` {
		t.Errorf("tasks/result of a failed task: %+v", rerr)
	}
	b, _, lerr := serve(e, request("tasks/list", `{}`, Legacy), nil)
	if lerr != nil || !strings.HasPrefix(string(b), `{"tasks":[{"taskId":"`+done.ID+`"`) {
		t.Errorf("tasks/list: %s %v", b, lerr)
	}
	if _, _, cerr := serve(e, request("tasks/cancel", `{"taskId":"`+done.ID+`"}`, Legacy), nil); cerr == nil || cerr.Msg != "tasks/cancel: task is already completed" {
		t.Errorf("tasks/cancel of a completed task: %v", cerr)
	}
	if got := string(StatusNotification(done)); !strings.HasPrefix(got, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"`) {
		t.Errorf("status notification %s", got)
	}
}

func TestRoute(t *testing.T) {
	decl, none := json.RawMessage(caps), json.RawMessage(`{}`)
	plain := json.RawMessage(`{"name":"t"}`)
	for _, c := range []struct {
		modern       bool
		version      string
		caps, params json.RawMessage
		support      string
		asTask, now  bool
		ttl          int64
		code         int
	}{
		{true, Modern, decl, plain, "optional", true, false, 0, 0},
		{true, Modern, none, plain, "optional", false, false, 0, 0},
		{true, Modern, none, plain, "required", false, false, 0, CodeMissingClientCapability},
		{false, Legacy, nil, json.RawMessage(`{"name":"t","task":{"ttl":9}}`), "optional", true, true, 9, 0},
		{false, Legacy, nil, plain, "optional", false, true, 0, 0},
		{false, Legacy, nil, plain, "required", false, true, 0, CodeMethodNotFound},
		{false, "2025-06-18", nil, json.RawMessage(`{"name":"t","task":{}}`), "required", false, false, 0, 0},
	} {
		asTask, now, ttl, err := Route(c.modern, c.version, c.caps, c.params, "t", c.support)
		code := 0
		if err != nil {
			code = err.Code
		}
		if asTask != c.asTask || (asTask && now != c.now) || ttl != c.ttl || code != c.code {
			t.Errorf("%+v: asTask %v now %v ttl %d code %d", c, asTask, now, ttl, code)
		}
	}
}
