package everything

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/testproc"
)

// The tests of this file run real everything-server processes that share a
// real Redis: tasks created through one are polled, answered and cancelled
// through another, a killed process leaves no task working past its lease,
// and results survive a restart of every process.

// A server is one everything-server process.
type server struct{ *testproc.Server }

// task is what the tests read of a task result.
type task struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	StatusMessage string                     `json:"statusMessage"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	Result        json.RawMessage            `json:"result"`
	Error         json.RawMessage            `json:"error"`
}

// rpc sends one 2026-07-28 request declaring the tasks extension, with the
// routing headers, and decodes its result.
func (s *server) rpc(t *testing.T, method string, params map[string]any) task {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest("POST", s.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set("Mcp-Name", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if i := bytes.LastIndex(raw, []byte("data: ")); strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") && i >= 0 {
		raw = raw[i+len("data: "):]
	}
	var m struct {
		Result task            `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Error != nil {
		t.Fatalf("%s %v: %s (%v)", method, params, raw, err)
	}
	return m.Result
}

// startTask calls a task tool and returns its task id.
func (s *server) startTask(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := s.rpc(t, "tools/call", map[string]any{"name": tool, "arguments": args})
	if res.ResultType != "task" || res.TaskID == "" {
		t.Fatalf("%s: no task: %+v", tool, res)
	}
	return res.TaskID
}

// pollUntil polls a task on s until pred holds (10 s at most).
func (s *server) pollUntil(t *testing.T, id string, pred func(task) bool) task {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := s.rpc(t, "tasks/get", map[string]any{"taskId": id})
		if pred(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: still %+v", id, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func ended(x task) bool {
	return x.Status == "completed" || x.Status == "failed" || x.Status == "cancelled"
}

func TestTasksAcrossReplicas(t *testing.T) {
	storeURL := testproc.Redis(t)
	bin := testproc.Build(t, "./cmd/everything-server")
	a, b := &server{testproc.Start(t, bin, []string{"-store", storeURL})}, &server{testproc.Start(t, bin, []string{"-store", storeURL})}

	// Created on a, waiting for input on b, answered through b, polled on a.
	id := a.startTask(t, "confirm_delete", map[string]any{"filename": "replicas.txt"})
	got := b.pollUntil(t, id, func(x task) bool { return x.Status == "input_required" })
	if len(got.InputRequests) != 1 || got.InputRequests["confirm_delete"] == nil {
		t.Fatalf("input requests seen on b: %+v", got)
	}
	b.rpc(t, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"confirm_delete": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	got = a.pollUntil(t, id, ended)
	if got.Status != "completed" || !bytes.Contains(got.Result, []byte("Deleted replicas.txt.")) {
		t.Fatalf("answered on b, completed on a: %+v", got)
	}

	// Created on a, cancelled through b: cancelled everywhere at once.
	id = a.startTask(t, "slow_compute", map[string]any{"seconds": 60, "label": "cancel-elsewhere"})
	b.rpc(t, "tasks/cancel", map[string]any{"taskId": id})
	if got := a.rpc(t, "tasks/get", map[string]any{"taskId": id}); got.Status != "cancelled" {
		t.Fatalf("cancelled on b, seen on a: %+v", got)
	}

	// A process killed mid-task: the task fails once its lease lapses
	// (MCP_TASK_LEASE=1s here), with a message saying so.
	c := &server{testproc.Start(t, bin, []string{"-store", storeURL}, "MCP_TASK_LEASE=1s")}
	id = c.startTask(t, "slow_compute", map[string]any{"seconds": 60, "label": "killed"})
	c.pollUntil(t, id, func(x task) bool { return strings.Contains(x.StatusMessage, "computing") })
	c.Kill()
	killed := time.Now()
	got = b.pollUntil(t, id, ended)
	if got.Status != "failed" || !strings.Contains(got.StatusMessage, "stopped renewing its lease") || !bytes.Contains(got.Error, []byte(`"code":-32603`)) {
		t.Fatalf("killed replica's task: %+v", got)
	}
	t.Logf("killed replica's task failed %v after the kill (lease 1s)", time.Since(killed).Round(10*time.Millisecond))

	// A completed task's result survives a restart of every process.
	id = a.startTask(t, "slow_compute", map[string]any{"seconds": 1, "label": "durable"})
	before := b.pollUntil(t, id, ended)
	a.Kill()
	b.Kill()
	d := &server{testproc.Start(t, bin, []string{"-store", storeURL})}
	after := d.rpc(t, "tasks/get", map[string]any{"taskId": id})
	if after.Status != "completed" || !bytes.Equal(after.Result, before.Result) || !bytes.Contains(after.Result, []byte(`computed \"durable\" in 1 seconds`)) {
		t.Fatalf("after restarting every process: %+v, want %s", after, before.Result)
	}
}
