// Package tasks is the tasks extension (io.modelcontextprotocol/tasks) of
// an mcpgen server, built on the runtime's public extension API
// (docs/extensions.md; docs/tasks.md says what tasks do). A tool whose
// Tool.Task is set runs as a task: a tools/call interceptor runs its handler
// in the background (runtime.Detach) and answers with a CreateTaskResult
// (runtime.RawToolResult) once the call outlasts Options.TaskThreshold; the
// handler's questions become the task's inputRequests (2026-07-28) or
// server-to-client requests (2025-11-25), its progress the task's status
// message (runtime.CallHooks); its outcome is stored per era
// (runtime.AnswerTool) on the server's store, where every replica reads it.
// The extension serves the tasks/* methods of both eras, advertises the
// capability of each era, checks the taskIds of subscriptions/listen
// filters, sends notifications/tasks (runtime.Server.NotifyListeners) and
// the 2025-11-25 notifications/tasks/status, writes a task's audit record
// when its handler ends (runtime.Audit), and drains the handlers on
// shutdown.
//
// Generated code registers it (RegisterMCP calls Use when a tool declares
// task=...); a hand-written server calls Use before adding task tools.
// The task engine (records, status machine, TTL, lease, wire shapes) is
// runtime/internal/tasks.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
)

// ID is the extension's identifier.
const ID = tasks.Extension

// LeaseEnv names the environment variable that sets the task lease (a Go
// duration, e.g. "5s") when Options.TaskLease is 0.
const LeaseEnv = "MCP_TASK_LEASE"

const (
	// defaultThreshold is how long a task tool's handler runs as a plain
	// call before it becomes a task (Options.TaskThreshold 0).
	defaultThreshold = 100 * time.Millisecond
	// notifyTimeout bounds a 2025-11-25 status notification.
	notifyTimeout = 5 * time.Second
	// stopGrace is how long the drain waits, after its context is done, for
	// the handlers it cancelled to return before it fails their tasks itself.
	stopGrace = time.Second
)

// Use registers the tasks extension with s (New), unless it is registered
// already. Call it before adding task tools (runtime.Server.AddTool panics
// on a task tool without it). It panics when s refuses the extension (a
// method of another extension is called tasks/get, ...).
func Use(s *runtime.Server) {
	for _, x := range s.Extensions() {
		if x.ID == ID {
			return
		}
	}
	s.MustUse(New(s))
}

// New returns the tasks extension of s, for s.Use.
func New(s *runtime.Server) *runtime.Extension {
	return newExt(s).extension()
}

// ext is the extension's state for one server.
type ext struct {
	s         *runtime.Server
	opts      runtime.Options
	threshold time.Duration
	meta      json.RawMessage // the server's _meta member of 2026-07-28 results

	once sync.Once
	eng  *tasks.Engine // on the server's store, opened on first use
	runs sync.Map      // task id -> *run, the tasks whose handlers run here
}

func newExt(s *runtime.Server) *ext {
	x := &ext{s: s, opts: s.Options()}
	x.threshold = x.opts.TaskThreshold
	if x.threshold == 0 {
		x.threshold = defaultThreshold
	}
	x.meta, _ = json.Marshal(map[string]runtime.Implementation{"io.modelcontextprotocol/serverInfo": s.Info()})
	return x
}

// engine returns the task engine, opened on the server's store on first
// use (SetStore may replace the store until the server serves).
func (x *ext) engine() *tasks.Engine {
	x.once.Do(func() {
		o := &x.opts
		x.eng = tasks.Open(x.s.Store(), tasks.Limits{DefaultTTL: o.TaskTTL, MaxTTL: o.TaskMaxTTL,
			Poll: o.TaskPollInterval, Lease: o.TaskLease}, LeaseEnv)
	})
	return x.eng
}

// extension is x on the runtime's extension API.
func (x *ext) extension() *runtime.Extension {
	e := &runtime.Extension{ID: ID,
		Advertise: func(revision string, caps map[string]any) {
			if revision == tasks.Modern { // beside the other extensions' entries
				runtime.AdvertiseExtension(caps, ID, nil)
				return
			}
			tasks.Capabilities(caps, revision) // capabilities.tasks in 2025-11-25
		},
		ToolCall: x.toolCall, Listen: x.listen, Shutdown: x.drain}
	for _, name := range [...]string{"tasks/get", "tasks/cancel", "tasks/update", "tasks/result", "tasks/list"} {
		modern, legacy, _ := tasks.Methods(name)
		e.Methods = append(e.Methods, runtime.Method{Name: name, Modern: modern, Legacy: legacy, Handle: x.method})
	}
	return e
}

// rpcError is the JSON-RPC error of an engine error; nil for nil.
func rpcError(e *tasks.Error) error {
	if e == nil {
		return nil
	}
	return &runtime.RPCError{Code: e.Code, Message: e.Msg, Data: e.Data}
}

// owner is the id of the caller of the request ctx belongs to: a task
// belongs to it.
func owner(ctx context.Context) string { return runtime.CallerID(runtime.PrincipalFrom(ctx)) }

// method answers a tasks/* request (tasks.Engine.Serve).
func (x *ext) method(ctx context.Context, req *runtime.MethodRequest) (json.RawMessage, error) {
	info := runtime.RequestFrom(ctx)
	b, err := x.engine().Serve(ctx, &tasks.Request{Method: req.Method, Params: req.Params,
		Caps: info.ClientCapabilities, Owner: owner(ctx), Version: info.ProtocolVersion,
		Meta: x.meta, Host: host{x}})
	if err != nil {
		return nil, rpcError(err)
	}
	return b, nil
}

// A host is the server as the tasks/* methods see it (tasks.Host).
type host struct{ x *ext }

// Local returns the run of a task whose handler runs here, or nil.
func (h host) Local(id string) *tasks.Run {
	if v, ok := h.x.runs.Load(id); ok {
		return &v.(*run).Run
	}
	return nil
}

func (h host) Changed(rec *tasks.Record) { h.x.changed(rec) }

// changed tells listeners that a task changed: 2026-07-28 listen streams
// whose filter names the task, on any replica (notifications/tasks), and the
// 2025-11-25 session that created it (notifications/tasks/status; that
// session is on this process, where the handler runs). It is the one place
// task notifications go out.
func (x *ext) changed(rec *tasks.Record) {
	if rec.Era != tasks.Legacy {
		x.s.NotifyListeners("notifications/tasks", tasks.Detailed(rec), runtime.Listeners{TaskID: rec.ID, Caller: rec.Owner})
		return
	}
	v, ok := x.runs.Load(rec.ID)
	if !ok || v.(*run).sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if err := v.(*run).sess.Notify(ctx, "notifications/tasks/status", json.RawMessage(tasks.LegacyTask(rec))); err != nil {
		x.s.Logger().Debug("change notification not delivered", "method", "notifications/tasks/status", "err", err)
	}
}

// listen checks the taskIds of a subscriptions/listen filter: the extension
// must be declared (-32021), and only the caller's tasks are kept.
func (x *ext) listen(ctx context.Context, f *runtime.ListenFilter) error {
	if f.TaskIDs == nil {
		return nil
	}
	info := runtime.RequestFrom(ctx)
	if !tasks.DeclaresTasks(info.ClientCapabilities) {
		return rpcError(tasks.MissingExtension("task notifications"))
	}
	f.TaskIDs = x.engine().Visible(ctx, f.TaskIDs, owner(ctx), info.ProtocolVersion)
	return nil
}

// drain waits until the task handlers running here have finished or ctx is
// done (the extension's Shutdown). Those still running then are cancelled,
// and their tasks fail at once (-32603, the server shut down) instead of
// when their lease lapses; a handler that does not return within stopGrace
// of its cancellation has its task failed for it. It returns ctx's error
// when handlers were cut short.
func (x *ext) drain(ctx context.Context) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		idle := true
		x.runs.Range(func(any, any) bool { idle = false; return false })
		if idle {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			x.stop()
			return fmt.Errorf("drain task handlers: %w", ctx.Err())
		}
	}
}

// stop cancels the task handlers running here and fails the tasks of those
// that do not return within stopGrace.
func (x *ext) stop() {
	var running []*run
	x.runs.Range(func(_, v any) bool {
		t := v.(*run)
		t.stopped.Store(true)
		t.cancel()
		running = append(running, t)
		return true
	})
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	eng := x.engine()
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
		ctx, cancel := context.WithTimeout(context.Background(), stopGrace)
		failed := false
		rec, err := eng.Update(ctx, r.ID, func(rec *tasks.Record) error {
			if rec.Status.Terminal() {
				return tasks.ErrNoChange
			}
			tasks.Fail(rec, runtime.CodeInternalError, eng.StoppedMessage(), nil)
			eng.Touch(rec)
			failed = true
			return nil
		})
		cancel()
		switch {
		case err != nil:
			x.s.Logger().Warn("task not failed at shutdown", "task", r.ID, "err", err)
		case failed:
			x.changed(rec)
		}
	}
}
