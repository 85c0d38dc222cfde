//go:build unix

package tasks

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/store"
	"github.com/mcpgen/mcpgen/runtime/store/redisstore"
)

// BenchmarkTaskCall measures a task against a plain call at the dispatcher
// (no transport), per call, with process CPU (cpu-ns/op, every goroutine
// included: the task's handler and its record updates run in the
// background):
//
//   - plain: tools/call of a readonly tool, answered with its result;
//   - task_create: the same handler as a task tool made a task at once
//     (TaskThreshold < 0): record created, handler run, result stored;
//   - task_create_poll: task_create, then tasks/get until completed;
//   - poll_store: tasks/get of a completed task, read from the store each
//     time (pollIntervalMs 1: no snapshot);
//   - poll_storm: tasks/get far faster than pollIntervalMs, answered from the
//     snapshot of the previous poll.
//
// With MCPGEN_TEST_REDIS set, the task cases run on Redis too.
func BenchmarkTaskCall(b *testing.B) {
	const caps = `"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	call := func(tool string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `}}}`)
	}
	get := func(id string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + id + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` + caps + `}}}`)
	}
	stores := map[string]func(b *testing.B) store.Store{"memory": func(*testing.B) store.Store { return store.NewMemory() }}
	if u := os.Getenv("MCPGEN_TEST_REDIS"); u != "" {
		stores["redis"] = func(b *testing.B) store.Store {
			s, err := redisstore.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}
	}
	server := func(b *testing.B, st store.Store, poll time.Duration) *runtime.Server {
		task := addTool()
		task.Name, task.Task = "add_task", runtime.TaskOptional
		plain := addTool()
		plain.Annotations = &runtime.ToolAnnotations{ReadOnlyHint: true}
		task.Annotations = plain.Annotations
		s := runtime.NewServer(runtime.Implementation{Name: "bench", Version: "0"}, &runtime.Options{Logger: slog.New(slog.DiscardHandler), Store: st, TaskThreshold: -1, TaskPollInterval: poll})
		Use(s)
		s.AddTool(plain)
		s.AddTool(task)
		return s
	}
	// createTask returns a new task's id.
	createTask := func(b *testing.B, s *runtime.Server) string {
		r := s.HandleRaw(context.Background(), call("add_task"), nil, nil)
		var m struct {
			Result struct {
				TaskID string `json:"taskId"`
			} `json:"result"`
		}
		if json.Unmarshal(r.Body, &m) != nil || m.Result.TaskID == "" {
			b.Fatalf("no task: %s", r.Body)
		}
		return m.Result.TaskID
	}
	// waitDone polls until the task completed; it returns the polls made.
	waitDone := func(b *testing.B, s *runtime.Server, id string) int {
		for n := 1; ; n++ {
			body := s.HandleRaw(context.Background(), get(id), nil, nil).Body
			if strings.Contains(string(body), `"status":"completed"`) {
				return n
			}
			if !strings.Contains(string(body), `"status":"working"`) {
				b.Fatalf("poll: %s", body)
			}
			goruntime.Gosched() // a client's next poll comes later: let the handler run
		}
	}
	measure := func(b *testing.B, op func()) {
		op()
		b.ReportAllocs()
		cpu0 := processCPU()
		for b.Loop() {
			op()
		}
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("plain", func(b *testing.B) {
		s := server(b, store.NewMemory(), 0)
		msg := call("add")
		measure(b, func() { s.HandleRaw(context.Background(), msg, nil, nil) })
	})
	for name, open := range stores {
		b.Run("task_create_"+name, func(b *testing.B) {
			st := open(b)
			defer st.Close()
			s := server(b, st, 0)
			measure(b, func() { createTask(b, s) })
		})
		b.Run("task_create_poll_"+name, func(b *testing.B) {
			st := open(b)
			defer st.Close()
			s := server(b, st, 0)
			polls := 0
			measure(b, func() { polls += waitDone(b, s, createTask(b, s)) })
			b.ReportMetric(float64(polls)/float64(b.N+1), "polls/op")
		})
		b.Run("poll_store_"+name, func(b *testing.B) {
			st := open(b)
			defer st.Close()
			s := server(b, st, time.Microsecond) // pollIntervalMs 0: no snapshot
			id := createTask(b, s)
			waitDone(b, s, id)
			msg := get(id)
			measure(b, func() { s.HandleRaw(context.Background(), msg, nil, nil) })
		})
		b.Run("poll_storm_"+name, func(b *testing.B) {
			st := open(b)
			defer st.Close()
			s := server(b, st, 0)
			id := createTask(b, s)
			waitDone(b, s, id)
			msg := get(id)
			measure(b, func() { s.HandleRaw(context.Background(), msg, nil, nil) })
		})
	}
}

// addTool adds two integers.
func addTool() *runtime.Tool {
	return &runtime.Tool{
		Name: "add", Description: "Add adds.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"integer"}`),
		Handler: func(ctx context.Context, req *runtime.ToolRequest) (*runtime.ToolResult, error) {
			var in struct{ A, B int }
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			return runtime.Structured(in.A + in.B)
		},
	}
}

// processCPU is the process's CPU time so far (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
