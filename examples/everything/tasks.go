package everything

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	mcptasks "github.com/mcpgen/mcpgen/runtime/tasks"
)

// The tools of this file are the fixtures of the conformance suite's tasks-*
// scenarios (the io.modelcontextprotocol/tasks extension of 2026-07-28; the
// same tools are tasks for 2025-11-25 clients that ask for one).

// GreetInput names whom to greet.
type GreetInput struct {
	// Name is whom to greet.
	Name string `json:"name"`
}

// Greet greets someone at once: a plain tool, never a task.
//
//mcp:tool name=greet readonly openworld=false
func Greet(ctx context.Context, in GreetInput) ([]mcpruntime.Content, error) {
	return text("Hello, " + in.Name + "!"), nil
}

// SlowComputeInput says how long to compute.
type SlowComputeInput struct {
	// Seconds is how long the computation takes; 0 answers at once.
	Seconds int `json:"seconds" jsonschema:"minimum=0,maximum=3600"`
	// Label names the computation in its result.
	Label string `json:"label,omitempty"`
}

// SlowCompute computes for the given number of seconds, reporting progress
// every second. It runs as a task when it takes longer than the server's
// threshold; cancelling the task stops it.
//
//mcp:tool name=slow_compute readonly task=optional openworld=false
func SlowCompute(ctx context.Context, in SlowComputeInput) ([]mcpruntime.Content, error) {
	for i := range in.Seconds {
		if err := mcpruntime.Progress(ctx, float64(i), float64(in.Seconds), fmt.Sprintf("computing %s: %d of %d seconds", in.Label, i, in.Seconds)); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return text(fmt.Sprintf("computed %q in %d seconds", in.Label, in.Seconds)), nil
}

// errJobFailed is the tool error failing_job always ends with.
var errJobFailed = errors.New("job failed: the upstream system rejected the batch")

// FailingJob works for about a second, then fails with a tool error (the
// task completes with isError true). Clients must support tasks to call it.
//
//mcp:tool name=failing_job task=required openworld=false destructive=false
func FailingJob(ctx context.Context) ([]mcpruntime.Content, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Second):
	}
	return nil, errJobFailed
}

// ProtocolErrorJob panics: its task fails with a JSON-RPC error.
//
//mcp:tool name=protocol_error_job task=required openworld=false destructive=false
func ProtocolErrorJob(ctx context.Context) ([]mcpruntime.Content, error) {
	panic("protocol_error_job: simulated crash")
}

// DeleteInput names the file to delete.
type DeleteInput struct {
	// Filename is the file to delete.
	Filename string `json:"filename"`
}

// confirmDeleteSchema asks for a yes/no confirmation.
const confirmDeleteSchema = `{"type":"object","properties":{"confirm":{"type":"boolean","description":"Delete the file?"}},"required":["confirm"]}`

// ConfirmDelete becomes a task at once, then asks the user (through the
// task: input_required) whether to delete the file.
//
//mcp:tool name=confirm_delete destructive task=optional openworld=false
func ConfirmDelete(ctx context.Context, in DeleteInput) ([]mcpruntime.Content, error) {
	mcptasks.Start(ctx)
	ok, err := askConfirm(ctx, "confirm_delete", "Delete "+in.Filename+"?")
	if err != nil {
		return nil, err
	}
	if !ok {
		return text("Kept " + in.Filename + "."), nil
	}
	return text("Deleted " + in.Filename + "."), nil
}

// askConfirm asks a yes/no question whose answer is {"confirm": bool}.
func askConfirm(ctx context.Context, key, message string) (bool, error) {
	var res mcpruntime.ElicitResult
	if err := mcpruntime.Ask(ctx, mcpruntime.AskElicitation(key, message, json.RawMessage(confirmDeleteSchema), &res)); err != nil {
		return false, err
	}
	var form struct {
		Confirm bool `json:"confirm"`
	}
	if res.Action != mcpruntime.Accept || json.Unmarshal(res.Content, &form) != nil {
		return false, nil
	}
	return form.Confirm, nil
}

// MultiInput becomes a task, then asks two questions at once; the task waits
// for both answers.
//
//mcp:tool name=multi_input task=optional openworld=false destructive=false
func MultiInput(ctx context.Context) ([]mcpruntime.Content, error) {
	mcptasks.Start(ctx)
	var first, second mcpruntime.ElicitResult
	err := mcpruntime.Ask(ctx,
		mcpruntime.AskElicitation("first_name", "What is your name?", json.RawMessage(nameSchema), &first),
		mcpruntime.AskElicitation("second_name", "And your colleague's?", json.RawMessage(nameSchema), &second),
	)
	if err != nil {
		return nil, err
	}
	return text(fmt.Sprintf("Got %s and %s.", nameOf(first), nameOf(second))), nil
}

// nameOf reads the name of an accepted name form.
func nameOf(res mcpruntime.ElicitResult) string {
	var form NameForm
	if res.Action != mcpruntime.Accept || json.Unmarshal(res.Content, &form) != nil {
		return "nobody"
	}
	return form.Name
}

// ToolWithTask asks for the user's name as an ordinary call (input_required,
// no task yet), then works for a second as a task and greets them.
//
//mcp:tool name=test_tool_with_task task=required openworld=false destructive=false
func ToolWithTask(ctx context.Context) ([]mcpruntime.Content, error) {
	form, action, err := mcpruntime.Elicit[NameForm](ctx, "user_name", "What is your name?")
	if err != nil {
		return nil, err
	}
	if action != mcpruntime.Accept {
		return text("No name given."), nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(time.Second):
	}
	return text("Hello, " + form.Name + "! (from a task)"), nil
}
