package otel

// stages.go: child spans for the stages of a tools/call; a handler that
// outlives its request is a task's.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// quickStage is how long validation, authorization or a handler may take
// and pass without a span of its own: such steps (microseconds) would
// otherwise double a sampled call's spans. A slow one (a large argument
// document, a token introspection, a handler that does I/O) or a refusal
// gets its span.
const quickStage = 100 * time.Microsecond

// stage observes one stage of a tools/call. Its span is a child of the
// request's server span, made when the stage ends with the stage's start
// time, so a stage of an unsampled request costs a clock read at most. The
// handler's stage is the exception: handler (below).
func (x *ext) stage(ctx context.Context, st mcpruntime.Stage) func(error) {
	r, _ := ctx.Value(stateKey{}).(*reqState)
	if r == nil {
		return nil
	}
	if st == mcpruntime.StageHandler {
		return r.handler(ctx)
	}
	if !r.recording {
		return nil
	}
	start := time.Now()
	return func(err error) {
		if err == nil && (st == mcpruntime.StageValidate || st == mcpruntime.StageAuthorize) && time.Since(start) < quickStage {
			return // a check that passed at once is not worth a span
		}
		_, sp := r.ins.tracer.Start(trace.ContextWithSpan(ctx, r.span), st.String(),
			trace.WithTimestamp(start), trace.WithAttributes(keyStage.String(st.String())))
		endWith(sp, err)
	}
}

// handler observes the handler's stage. A handler still running when its
// request is answered runs as a task: mcpgen.tasks.active counts it until it
// ends. Its span, a child of the request's server span made when it ends
// with its start time, exists when it ran as a task (mcpgen.task=true),
// failed, or took quickStage or more: a handler of microseconds is the
// server span's whole content, and a span of its own would double what a
// sampled call exports.
func (r *reqState) handler(ctx context.Context) func(error) {
	start := time.Now()
	r.mu.Lock()
	r.running++
	if r.answered { // answered before its handler started: a task from the start
		r.ins.activeTasks.Add(context.Background(), 1)
	}
	r.mu.Unlock()
	return func(err error) {
		r.mu.Lock()
		r.running--
		task := r.answered
		if task {
			r.ins.activeTasks.Add(context.Background(), -1)
		}
		r.mu.Unlock()
		if !r.recording || (!task && err == nil && time.Since(start) < quickStage) {
			return
		}
		_, sp := r.ins.tracer.Start(trace.ContextWithSpan(ctx, r.span), mcpruntime.StageHandler.String(),
			trace.WithTimestamp(start), trace.WithAttributes(keyStage.String(mcpruntime.StageHandler.String())))
		if task {
			sp.SetAttributes(keyTask.Bool(true))
		}
		endWith(sp, err)
	}
}

// answered notes that the request was answered; a handler still running
// becomes an active task.
func (r *reqState) answer() {
	r.mu.Lock()
	r.answered = true
	if r.running > 0 {
		r.ins.activeTasks.Add(context.Background(), int64(r.running))
	}
	r.mu.Unlock()
}

// endWith ends sp, with error.type and status Error for err.
func endWith(sp trace.Span, err error) {
	if err != nil {
		t := errorType(err)
		sp.SetAttributes(keyErrorType.String(t))
		sp.SetStatus(codes.Error, t)
	}
	sp.End()
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
