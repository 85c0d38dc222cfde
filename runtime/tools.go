package runtime

// tools.go: the handler adapter of tools/call (arguments validated, the handler run
// under the call's deadline, the result checked and encoded) and tools/list (its
// pages: internal/toolset).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/toolschema"
	"github.com/mcpgen/mcpgen/runtime/internal/toolset"
)

// errPanic marks a handler that panicked; the client sees only a generic text.
var errPanic = errors.New("tool handler panicked")

// listTools answers tools/list: one page of tools in registration order. While
// every client sees every tool (no Options.HideUnauthorized), a page's result
// depends only on the snapshot, the era and where the page starts, so it is
// built once per snapshot and then served as is.
func (s *Server) listTools(ctx context.Context, c *call) ([]byte, *rpcError) {
	set := s.tools.Load()
	start := 0
	if cur := c.msg.params.Cursor; cur != nil {
		var ok bool
		if start, ok = set.PageStart(*cur); !ok {
			return nil, errorf(CodeInvalidParams, "invalid cursor")
		}
	}
	size := s.opts.PageSize
	if x := s.exts.Load(); x != nil && len(x.views) > 0 {
		if v := x.variant(&c.info); v != 0 {
			return s.toolsVariant(ctx, c, set, start, x, v) // extension.go
		}
	}
	if s.opts.HideUnauthorized || start%size != 0 {
		return s.toolsPage(ctx, c, set, start)
	}
	slot := set.Slot(c.info.Modern, start/size, size)
	if b := slot.Load(); b != nil {
		return *b, nil
	}
	b, rerr := s.toolsPage(ctx, c, set, start)
	if rerr != nil {
		return nil, rerr
	}
	b = b[:len(b):len(b)] // shared: whoever appends copies
	slot.Store(&b)
	return b, nil
}

// toolsPage builds the tools/list result of the page starting at start
// (internal/toolset: a tool serialised here for the first time, a generated
// one, keeps its bytes as a part of the page) and adds the era's members.
func (s *Server) toolsPage(ctx context.Context, c *call, set *toolset.Set[*toolEntry], start int) ([]byte, *rpcError) {
	modern := c.info.Modern
	var listed func(*toolEntry) bool
	if s.opts.HideUnauthorized {
		listed = func(e *toolEntry) bool { return s.mayList(ctx, e) }
	}
	b, failed, err := toolset.Page(set, start, s.opts.PageSize, modern, 120+len(s.serverInfoMeta), listed)
	if err != nil {
		s.logger.Error("tool cannot be listed", "tool", failed, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s cannot be listed", failed)
	}
	return s.closeToolsPage(b, modern), nil
}

// closeToolsPage adds the era's members to a tools/list page and closes it.
func (s *Server) closeToolsPage(b []byte, modern bool) []byte {
	if modern { // as modernResult, in place
		b = append(b, `,"ttlMs":`...)
		b = strconv.AppendInt(b, s.ttlMs, 10)
		b = append(b, listCacheScope(s.opts.HideUnauthorized)...)
		b = append(b, `,"resultType":"complete","_meta":`...)
		b = append(b, s.serverInfoMeta...)
	}
	return append(b, '}')
}

// callTool answers tools/call: validate the arguments, run the handler, check and
// shape its result for the era.
func (s *Server) callTool(ctx context.Context, c *call) ([]byte, *rpcError) {
	p := &c.msg.params
	if p.Name == "" {
		return nil, errorf(CodeInvalidParams, "tools/call: missing tool name")
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	} else if !isObject(args) {
		return nil, errorf(CodeInvalidParams, "tools/call: arguments must be an object")
	}
	e := s.tools.Load().Get(p.Name)
	if e == nil {
		return nil, errorf(CodeInvalidParams, "Unknown tool: %s", p.Name)
	}
	r, rerr := s.openRound(c, p.Name, args)
	if rerr != nil {
		return nil, rerr
	}
	c.tool = e
	res, rerr := s.runTool(withRound(ctx, r), c, e, args)
	if c.fx != nil {
		c.fx.noteResult(res)
	}
	if rerr == errAbandonedRPC {
		return nil, nil // the deadline answered (overdue)
	}
	return s.toolReply(c, e, r, res, rerr)
}

// toolReply finishes tools/call once the handler is done: the round's outcome or
// the encoded result.
func (s *Server) toolReply(c *call, e *toolEntry, r *round, res *ToolResult, rerr *rpcError) ([]byte, *rpcError) {
	if rerr == nil && res != nil && res.raw != nil { // an interceptor's answer (RawToolResult)
		return s.completeResult(c, e.tool.Name, *res.raw)
	}
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	if rerr != nil {
		return nil, rerr
	}
	return s.encodeToolResult(c, e, res)
}

// timeoutResult is the isError result of a call cut off at Options.CallTimeout.
func (s *Server) timeoutResult(c *call, e *toolEntry) *ToolResult {
	return toolErrorResult(e, s.timeoutError(c, e))
}

// errorResult is an isError result with one text block.
func errorResult(text string) *ToolResult {
	return &ToolResult{Content: []Content{Text(text)}, IsError: true}
}

var (
	// errCallTimeout reports a handler still running at Options.CallTimeout.
	errCallTimeout = errors.New("tool call timed out")
	// errAbandoned reports, to the goroutine running an asynchronous call's
	// handler, that the deadline answered the call meanwhile: the handler's
	// result is dropped.
	errAbandoned    = errors.New("tool call answered at its deadline")
	errAbandonedRPC = &rpcError{code: CodeInternalError, msg: errAbandoned.Error()}
)

// invoke calls the handler under the call's deadline (Options.CallTimeout). A
// handler that ignores its cancelled context is abandoned at the deadline, so one
// stuck tool never holds a request, a drain or a slot forever. One mechanism
// serves both kinds of caller: the deadline (overdue, from the server's
// deadline watch, deadline.go) and the handler's return (returned) race to
// claim the call (c.state), and the loser's outcome is dropped. An asynchronous
// call runs its handler on the calling goroutine and is answered by the
// deadline itself (invokeInline); a synchronous one runs its handler on a
// goroutine of its own, left to finish alone if the deadline wins
// (invokeAside). A handler whose deadline passed before it started (a long
// consent or authorization wait) does not run.
func (s *Server) invoke(ctx context.Context, c *call, t *Tool, req *ToolRequest) (*ToolResult, error) {
	if st := c.stage(ctx, StageHandler); st != nil {
		res, err := s.invokeAt(ctx, c, t, req)
		st.end(err)
		return res, err
	}
	return s.invokeAt(ctx, c, t, req)
}

// invokeAt calls the handler as invoke says.
func (s *Server) invokeAt(ctx context.Context, c *call, t *Tool, req *ToolRequest) (*ToolResult, error) {
	switch {
	case c.watch.When.IsZero():
		return s.invokeNow(ctx, t, req)
	case c.async != nil:
		return s.invokeInline(ctx, c, t, req)
	}
	return s.invokeAside(ctx, c, t, req)
}

// invokeInline runs the handler on the calling goroutine. If it is still running
// at the deadline, overdue claims the call and answers it; the handler's result is
// then dropped (errAbandoned).
func (s *Server) invokeInline(ctx context.Context, c *call, t *Tool, req *ToolRequest) (*ToolResult, error) {
	if c.startHandler() {
		return nil, errAbandoned
	}
	res, err := s.invokeNow(ctx, t, req)
	if !c.returned() {
		return nil, errAbandoned
	}
	return res, err
}

// invokeAside runs the handler on a goroutine of its own and waits until the
// handler's return or the deadline claims the call; at the deadline the handler
// is abandoned (errCallTimeout).
func (s *Server) invokeAside(ctx context.Context, c *call, t *Tool, req *ToolRequest) (*ToolResult, error) {
	c.claimed = make(chan struct{})
	if !c.startHandler() {
		handlerWorkers.Go(func() {
			res, err := s.invokeNow(ctx, t, req)
			if c.returned() {
				c.asideRes, c.asideErr = res, err
				close(c.claimed)
			}
		})
	}
	<-c.claimed
	if c.state.Load() == callTimedOut {
		s.logger.Error("tool call timed out; handler abandoned", "tool", t.Name, "timeout", s.opts.CallTimeout)
		return nil, errCallTimeout
	}
	return c.asideRes, c.asideErr
}

// returned claims the call for the handler's result; false means the deadline
// claimed it first.
func (c *call) returned() bool {
	return c.state.CompareAndSwap(callRunning, callReturned)
}

// overdue claims a tools/call whose deadline passed while its handler runs
// (called by expire or startHandler, deadline.go), unless the handler returned
// just in time: an asynchronous call is answered here with a timeout result, a
// synchronous one wakes its waiting caller (invokeAside), which answers it.
func (c *call) overdue() {
	if c.async == nil {
		if c.state.CompareAndSwap(callRunning, callTimedOut) {
			close(c.claimed)
		}
		return
	}
	if !c.state.CompareAndSwap(callRunning, callOverdue) {
		return
	}
	s := c.srv
	s.logger.Error("tool call timed out; handler abandoned", "tool", c.tool.tool.Name, "timeout", s.opts.CallTimeout)
	result, rerr := s.toolReply(c, c.tool, &c.round, s.timeoutResult(c, c.tool), nil)
	c.deliver(s.conclude(c, result, rerr))
}

// invokeNow calls the handler, recovering a panic into errPanic (details go to the
// log only).
func (s *Server) invokeNow(ctx context.Context, t *Tool, req *ToolRequest) (res *ToolResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("tool handler panicked", "tool", t.Name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, errPanic
		}
	}()
	return t.Handler(ctx, req)
}

// encodeToolResult validates structured output against the output schema and encodes
// the CallToolResult for the request's era.
func (s *Server) encodeToolResult(c *call, e *toolEntry, res *ToolResult) ([]byte, *rpcError) {
	var sc json.RawMessage
	switch {
	case !res.IsError && res.StructuredContent != nil:
		var rerr *rpcError
		if sc, rerr = s.structured(c, e, res.StructuredContent); rerr != nil {
			return nil, rerr
		}
	case res.toolErr != nil:
		sc = res.StructuredContent // {"error": ...}, only when the tool has no outputSchema
	}
	meta, err := s.resultMeta(c, res.Meta)
	if err != nil {
		s.logger.Error("tool result _meta unusable", "tool", e.tool.Name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s returned an unusable _meta", e.tool.Name)
	}
	b := c.startResult(96 + 2*len(sc) + len(meta))
	b = append(b, `{"content":[`...)
	if b, err = appendContent(b, res.Content, sc); err != nil {
		s.logger.Error("tool content unusable", "tool", e.tool.Name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s returned unencodable content", e.tool.Name)
	}
	b = append(b, ']')
	if sc != nil {
		b = append(append(b, `,"structuredContent":`...), sc...)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	if c.info.Modern {
		b = append(b, `,"resultType":"complete"`...)
	}
	if meta != nil {
		b = append(append(b, `,"_meta":`...), meta...)
	}
	return append(b, '}'), nil
}

// appendContent appends the content blocks; with none and structured content sc, one
// text block holding sc's JSON.
func appendContent(b []byte, content []Content, sc json.RawMessage) ([]byte, error) {
	if len(content) == 0 && sc != nil {
		b = append(b, `{"type":"text","text":`...)
		return append(jsonwire.AppendString(b, string(sc)), '}'), nil
	}
	for i, block := range content {
		if i > 0 {
			b = append(b, ',')
		}
		if block.raw != nil { // replayed from the idempotency ledger
			b = append(b, block.raw...)
			continue
		}
		if block.Type == contentText && block.Meta == nil {
			b = append(b, `{"type":"text","text":`...)
			b = append(jsonwire.AppendString(b, block.Text), '}')
			continue
		}
		enc, err := json.Marshal(block)
		if err != nil {
			return nil, err
		}
		b = append(b, enc...)
	}
	return b, nil
}

// structured checks sc against the output schema (a mismatch is a server bug: logged,
// -32603) and wraps it for 2025-11-25 clients when the tool asks to. It returns the
// compact structured content to send, or nil when the era cannot carry it.
func (s *Server) structured(c *call, e *toolEntry, sc json.RawMessage) (json.RawMessage, *rpcError) {
	valid := jsonwire.Valid(sc)
	if e.tool.OutputSchema != nil {
		if err := e.output.CheckOutput(sc, valid); err != nil {
			s.logger.Error("structured output does not match the output schema", "tool", e.tool.Name, "err", err)
			return nil, errorf(CodeInternalError, "internal error: tool %s returned output that does not match its outputSchema", e.tool.Name)
		}
	}
	sc, err := toolschema.Compact(sc, valid)
	if err != nil {
		s.logger.Error("structured output is not JSON", "tool", e.tool.Name, "err", err)
		return nil, errorf(CodeInternalError, "internal error: tool %s returned invalid JSON", e.tool.Name)
	}
	if c.info.Modern {
		return sc, nil
	}
	if e.tool.LegacyWrap != "" { // {LegacyWrap: sc}
		b := make([]byte, 0, len(e.tool.LegacyWrap)+len(sc)+8)
		b = jsonwire.AppendString(append(b, '{'), e.tool.LegacyWrap)
		return append(append(append(b, ':'), sc...), '}'), nil
	}
	if !isObject(sc) {
		return nil, nil // 2025-11-25 structuredContent must be an object: text only
	}
	return sc, nil
}

// resultMeta builds the result's _meta: the handler's plus, for 2026-07-28, the
// server's identity.
func (s *Server) resultMeta(c *call, meta map[string]any) (json.RawMessage, error) {
	if !c.info.Modern {
		if len(meta) == 0 {
			return nil, nil
		}
		return json.Marshal(meta)
	}
	if len(meta) == 0 {
		return s.serverInfoMeta, nil
	}
	merged := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		merged[k] = v
	}
	merged[metaServerInfo] = s.info
	return json.Marshal(merged)
}

// checkArgs validates arguments against the input schema. It returns "" when they are
// valid, else a text for the model naming each failure and the valid argument names.
// Objects repeating a member name and numbers beyond float64 are refused first.
func (e *toolEntry) checkArgs(args json.RawMessage) (string, error) {
	fails, err := e.input.Failures(args)
	if err != nil || fails == nil {
		return "", err
	}
	return toolschema.DescribeInvalid(e.tool.Name, fails, e.names()), nil
}

// compactJSON returns raw without line breaks (internal/toolschema.Compact).
func compactJSON(raw json.RawMessage, valid bool) (json.RawMessage, error) {
	return toolschema.Compact(raw, valid)
}
