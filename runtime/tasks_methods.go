package runtime

// tasks_methods.go: wires the tasks/* methods of both eras (internal/tasks
// serves them) to the server, its running handlers and task status
// notifications.

import (
	"context"
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/tasks"
)

// taskMethodNames are the tasks/* methods of both eras (tasks.Methods says
// which era has which).
var taskMethodNames = [...]string{"tasks/get", "tasks/cancel", "tasks/update", "tasks/result", "tasks/list"}

// tasksExtension is the tasks extension (io.modelcontextprotocol/tasks), which
// the server registers (Use) with its first task tool: the tasks/* methods,
// the tasks capability of each era (the extension in 2026-07-28,
// capabilities.tasks in 2025-11-25; older revisions have no tasks) and the
// draining of task handlers on shutdown.
func (s *Server) tasksExtension() *Extension {
	x := &Extension{ID: extTasks,
		Advertise: func(revision string, caps map[string]any) {
			if revision == tasks.Modern { // beside the other extensions' entries
				AdvertiseExtension(caps, extTasks, nil)
				return
			}
			tasks.Capabilities(caps, revision)
		},
		Listen: s.taskListen, Shutdown: s.DrainTasks}
	for _, name := range taskMethodNames {
		modern, legacy, _ := tasks.Methods(name)
		x.Methods = append(x.Methods, Method{Name: name, Modern: modern, Legacy: legacy, Handle: s.taskMethod})
	}
	return x
}

// taskError is the JSON-RPC error of a tasks method's error; nil for nil.
func taskError(e *tasks.Error) *rpcError {
	if e == nil {
		return nil
	}
	return &rpcError{code: e.Code, msg: e.Msg, data: e.Data}
}

// taskMethod answers a tasks/* request (tasks.Engine.Serve): what changes
// a task reaches its handler when it runs here, and its listeners.
func (s *Server) taskMethod(ctx context.Context, req *MethodRequest) (json.RawMessage, error) {
	c := callFrom(ctx)
	b, err := s.taskEngine().Serve(ctx, &tasks.Request{Method: req.Method, Params: req.Params,
		Caps: c.info.ClientCapabilities, Owner: principalID(c.caller()), Version: c.info.ProtocolVersion,
		Meta: s.serverInfoMeta, Host: taskHost{s}})
	if err != nil {
		return nil, &RPCError{Code: err.Code, Message: err.Msg, Data: err.Data}
	}
	return b, nil
}

// A taskHost is the server as the tasks/* methods see it (tasks.Host).
type taskHost struct{ s *Server }

// Local returns the run of a task whose handler runs here, or nil.
func (h taskHost) Local(id string) *tasks.Run {
	if v, ok := h.s.tasks.runs.Load(id); ok {
		return &v.(*taskRun).Run
	}
	return nil
}

func (h taskHost) Changed(rec *tasks.Record) { h.s.taskStatusChanged(rec) }

// taskStatusChanged tells listeners that a task changed: 2026-07-28
// subscriptions/listen streams whose filter names the task, on any replica
// (notifications/tasks, through announce), and the 2025-11-25 session that
// created it (notifications/tasks/status; that session is on this process,
// where the handler runs). It is the one place task notifications go out.
func (s *Server) taskStatusChanged(rec *tasks.Record) {
	if rec.Era != versionLegacy {
		// Listen streams on any replica (subscriptions.go): the audience keeps
		// them to the task's owner and to the filters that named the task.
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
	s.deliver("notifications/tasks/status", hubConn{v.(*taskRun).c.sess}.Send(ctx, tasks.StatusNotification(rec)))
}

// taskListen checks the taskIds of a subscriptions/listen filter
// (Extension.Listen): the extension must be declared (-32021), and only the
// caller's tasks are kept.
func (s *Server) taskListen(ctx context.Context, f *ListenFilter) error {
	if f.TaskIDs == nil {
		return nil
	}
	c := callFrom(ctx)
	if !tasks.DeclaresTasks(c.info.ClientCapabilities) {
		e := tasks.MissingExtension("task notifications")
		return &RPCError{Code: e.Code, Message: e.Msg, Data: e.Data}
	}
	f.TaskIDs = s.taskEngine().Visible(ctx, f.TaskIDs, principalID(c.caller()), c.info.ProtocolVersion)
	return nil
}
