package otel

// stages.go: child spans for the stages of a tools/call, and task handlers.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// stage observes one stage of a tools/call. Its span is made when the stage
// ends, with the stage's start time: a stage costs a clock read when the
// request is not sampled. A handler that starts after its request was answered
// runs as a task: it gets a span of its own, linked to the request's.
func (x *ext) stage(ctx context.Context, st mcpruntime.Stage) func(error) {
	r, _ := ctx.Value(stateKey{}).(*reqState)
	if r == nil {
		return nil
	}
	r.stages.Or(1 << st)
	if st == mcpruntime.StageHandler && r.ended.Load() {
		return r.task(ctx)
	}
	if !r.span.IsRecording() {
		if st == mcpruntime.StageReplay || st == mcpruntime.StageClaim {
			return func(err error) {
				if err != nil {
					r.failed.Or(1 << st)
				}
			}
		}
		return nil
	}
	start := time.Now()
	return func(err error) {
		if err != nil {
			r.failed.Or(1 << st)
		}
		_, sp := r.ins.tracer.Start(trace.ContextWithSpan(ctx, r.span), st.String(),
			trace.WithTimestamp(start), trace.WithAttributes(keyStage.String(st.String())))
		if err != nil {
			t := errorType(err)
			sp.SetAttributes(keyErrorType.String(t))
			sp.SetStatus(codes.Error, t)
		}
		sp.End()
	}
}

// task starts the span of a task's handler: a new trace's root, linked to the
// span of the request that created the task, and counts it as active.
func (r *reqState) task(ctx context.Context) func(error) {
	ins := r.ins
	ins.activeTasks.Add(ctx, 1)
	name := "task " + r.method
	if r.target != "" {
		name += " " + r.target
	}
	_, sp := ins.tracer.Start(ctx, name, trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithLinks(trace.Link{Attributes: nil, SpanContext: r.span.SpanContext()}),
		trace.WithAttributes(keyMethod.String(r.method), keyTool.String(r.target), keyTask.Bool(true)))
	return func(err error) {
		ins.activeTasks.Add(context.Background(), -1)
		if err != nil {
			t := errorType(err)
			sp.SetAttributes(keyErrorType.String(t))
			sp.SetStatus(codes.Error, t)
		}
		sp.End()
	}
}

// errorType names a stage's error: a ToolError's code, an RPCError's
// JSON-RPC code, else "error" (never the error's text, which may quote
// arguments).
func errorType(err error) string {
	var te *mcpruntime.ToolError
	if errors.As(err, &te) && te.Code != "" {
		return te.Code
	}
	var re *mcpruntime.RPCError
	if errors.As(err, &re) {
		return strconv.Itoa(re.Code)
	}
	return "error"
}
