package reports

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// call sends one 2026-07-28 request, declaring the tasks extension when tasks
// is true, and returns its result.
func call(t *testing.T, s *mcpruntime.Server, tasks bool, method string, params map[string]any) json.RawMessage {
	t.Helper()
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	body := s.HandleRaw(context.Background(), raw, nil, nil).Body
	if err := json.Unmarshal(body, &m); err != nil || m.Error != nil {
		t.Fatalf("%s: %s", method, body)
	}
	return m.Result
}

func newServer() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "reports", Version: "test"}, nil)
	RegisterMCP(s)
	return s
}

func TestReportAsTask(t *testing.T) {
	StepDelay = 20 * time.Millisecond
	s := newServer()
	var created struct {
		ResultType, TaskID string
	}
	res := call(t, s, true, "tools/call", map[string]any{"name": "build_sales_report", "arguments": map[string]any{"region": "emea", "days": 25}})
	if json.Unmarshal(res, &created); created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("a 25-day report (0.5 s) is not a task: %s", res)
	}
	var task struct {
		Status, StatusMessage string
		Result                struct {
			StructuredContent Report
		}
	}
	sawProgress := false
	for deadline := time.Now().Add(10 * time.Second); task.Status != "completed"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("report task stuck: %+v", task)
		}
		if err := json.Unmarshal(call(t, s, true, "tasks/get", map[string]any{"taskId": created.TaskID}), &task); err != nil {
			t.Fatal(err)
		}
		sawProgress = sawProgress || strings.Contains(task.StatusMessage, "days)")
	}
	rep := task.Result.StructuredContent
	var sum int64
	for _, d := range rep.Days {
		sum += d.Cents
	}
	if !sawProgress || rep.Region != "emea" || len(rep.Days) != 25 || rep.TotalCents != sum || rep.Days[24].Day != "2026-11-30" {
		t.Fatalf("report (progress seen: %v): %+v", sawProgress, rep)
	}
}

func TestShortReportIsPlain(t *testing.T) {
	StepDelay = time.Millisecond
	s := newServer()
	// A report that finishes within the threshold is answered plainly, and a
	// client without tasks always waits for its answer.
	for _, tasks := range []bool{true, false} {
		res := call(t, s, tasks, "tools/call", map[string]any{"name": "build_sales_report", "arguments": map[string]any{"region": "apac", "days": 2}})
		if strings.Contains(string(res), "taskId") || !strings.Contains(string(res), `"total_cents"`) {
			t.Fatalf("tasks=%v: %s", tasks, res)
		}
	}
}
