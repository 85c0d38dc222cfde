package runtime

// dispatch.go: dispatch: admit a request for its era, route it to its method
// (lookupMethod), and build its reply (conclude).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// An rpcError is a JSON-RPC error a method answers with.
type rpcError struct {
	code int
	msg  string
	data any
	meta bool // a missing or malformed required _meta field (HTTP 400)
	// challenge is the WWW-Authenticate value of a 403 insufficient_scope (authorize.go).
	challenge string
}

// errorf returns an rpcError with a formatted message.
func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{code: code, msg: fmt.Sprintf(format, args...)}
}

// metaErrorf returns the -32602 for a missing or malformed required _meta field.
func metaErrorf(format string, args ...any) *rpcError {
	e := errorf(CodeInvalidParams, format, args...)
	e.meta = true
	return e
}

// reply encodes e as the reply to the request with the given id.
func (e *rpcError) reply(id json.RawMessage, era Era) Reply {
	r := errorReply(id, e.code, e.msg, e.data)
	r.MetaError, r.Era, r.Challenge = e.meta, era, e.challenge
	return r
}

// A methodInfo says in which eras a method exists and how it is handled.
type methodInfo struct {
	modern, legacy bool
	// preInit: legacy clients may send it before initialize.
	preInit bool
	// capability is the server capability the method is gated behind: while
	// the server does not declare it, the method is -32601 (DIGEST A14).
	capability string
	handle     func(s *Server, ctx context.Context, c *call) ([]byte, *rpcError)
}

// lookupMethod returns the method table entry for name.
func lookupMethod(name string) (methodInfo, bool) {
	switch name {
	case "initialize":
		return methodInfo{legacy: true, preInit: true, handle: (*Server).initialize}, true
	case "ping":
		return methodInfo{legacy: true, preInit: true, handle: (*Server).ping}, true
	case "logging/setLevel":
		return methodInfo{legacy: true, handle: (*Server).setLevel}, true
	case "server/discover":
		return methodInfo{modern: true, handle: (*Server).discover}, true
	case "tools/list":
		return methodInfo{modern: true, legacy: true, handle: (*Server).listTools}, true
	case "tools/call":
		return methodInfo{modern: true, legacy: true, handle: (*Server).callTool}, true
	}
	return lookupPrimitiveMethod(name)
}

// lookupPrimitiveMethod returns the table entry of the resource, prompt,
// completion and subscription methods.
func lookupPrimitiveMethod(name string) (methodInfo, bool) {
	switch name {
	case "resources/list":
		return methodInfo{modern: true, legacy: true, capability: "resources", handle: (*Server).listResources}, true
	case "resources/templates/list":
		return methodInfo{modern: true, legacy: true, capability: "resources", handle: (*Server).listTemplates}, true
	case "resources/read":
		return methodInfo{modern: true, legacy: true, capability: "resources", handle: (*Server).readResource}, true
	case "prompts/list":
		return methodInfo{modern: true, legacy: true, capability: "prompts", handle: (*Server).listPrompts}, true
	case "prompts/get":
		return methodInfo{modern: true, legacy: true, capability: "prompts", handle: (*Server).getPrompt}, true
	case "completion/complete":
		return methodInfo{modern: true, legacy: true, capability: "completions", handle: (*Server).complete}, true
	case "resources/subscribe":
		return methodInfo{legacy: true, capability: "resources", handle: (*Server).subscribe}, true
	case "resources/unsubscribe":
		return methodInfo{legacy: true, capability: "resources", handle: (*Server).unsubscribe}, true
	case "subscriptions/listen":
		return methodInfo{modern: true, handle: (*Server).listen}, true
	}
	return methodInfo{}, false
}

// request serves one request and returns its reply.
func (s *Server) request(ctx context.Context, m *Message, sess *Session, out Sink) Reply {
	ctx, end := s.observe(ctx, m, sess) // extension.go; nil end: no observer
	c, rerr := s.prepare(m, sess, out)
	if rerr != nil {
		return s.refused(m, rerr, end)
	}
	if end != nil {
		c.observed = end
		c.effects() // for the outcome's tool error (noteResult)
	}
	return s.run(ctx, c)
}

// refused answers a request refused at admission.
func (s *Server) refused(m *Message, rerr *rpcError, end func(Outcome)) Reply {
	if s.audit != nil {
		s.auditRejected(m, rerr)
	}
	r := rerr.reply(m.ID, m.Era)
	if end != nil {
		end(outcome(nil, r, false))
	}
	return r
}

// handleAsync serves a request like Handle, but hands its reply to done, exactly
// once: a tools/call handler still running at its deadline (Options.CallTimeout)
// is answered by the deadline and abandoned without a goroutine of its own. out
// must not be nil.
func (s *Server) handleAsync(ctx context.Context, m *Message, sess *Session, out Sink, done replier) {
	ctx, end := s.observe(ctx, m, sess) // extension.go
	c, rerr := s.prepare(m, sess, out)
	if rerr != nil {
		done.answer(s.refused(m, rerr, end))
		return
	}
	c.async = done
	if end != nil {
		c.observed = end
		c.effects()
	}
	s.run(ctx, c)
}

// prepare admits a request and tracks it in its session (from then on
// Session.Cancel reaches it). The caller must then run it, or drop it if it never
// gets to run.
func (s *Server) prepare(m *Message, sess *Session, out Sink) (*call, *rpcError) {
	c, rerr := s.admit(m, sess, out)
	if rerr != nil {
		return nil, rerr
	}
	if sess != nil && !sess.track(c) {
		return nil, errorf(CodeInvalidRequest, "request id %s is already in flight", m.ID)
	}
	s.auditStart(c)
	return c, nil
}

// drop forgets a prepared call that never ran.
func (c *call) drop() {
	if c.sess != nil {
		c.sess.untrack(c)
	}
}

// run serves a prepared call under parent and returns its reply; an asynchronous
// call (c.async) also hands the reply to c.async, unless its deadline already
// answered it (then run returns an empty Reply).
func (s *Server) run(parent context.Context, c *call) Reply {
	if !c.begin(parent) {
		return c.deliver(s.conclude(c, nil, nil))
	}
	result, rerr := c.handle(s, &c.ctx, c)
	if c.state.Load() == callOverdue {
		return Reply{Era: c.msg.Era} // answered by the deadline (overdue)
	}
	return c.deliver(s.conclude(c, result, rerr))
}

// deliver hands an asynchronous call's reply to its replier; a reply its
// deadline gives (overdue, the handler still running) is marked late.
func (c *call) deliver(r Reply) Reply {
	if c.async != nil {
		r.late = c.state.Load() == callOverdue
		c.async.answer(r)
	}
	return r
}

// conclude ends a call and builds its reply: nothing for a call the client
// cancelled, else the error or the result.
func (s *Server) conclude(c *call, result []byte, rerr *rpcError) Reply {
	aborted := c.finish()
	if c.cancel != nil {
		c.cancel(nil)
	}
	if !c.watch.When.IsZero() {
		s.deadlines.Remove(&c.watch) // deadline.go
	}
	c.drop()
	r := concludedReply(c, result, rerr, aborted)
	if s.audit != nil {
		s.auditCall(c, r, aborted)
	}
	if c.observed != nil {
		c.observed(outcome(c, r, aborted))
	}
	return r
}

// concludedReply builds a concluded call's reply.
func concludedReply(c *call, result []byte, rerr *rpcError, aborted bool) Reply {
	m := c.msg
	switch {
	case aborted:
		return Reply{Era: m.Era}
	case rerr != nil:
		return rerr.reply(m.ID, m.Era)
	case c.framed:
		result = append(result, '}')
	default:
		result = jsonrpc.ResultResponse(m.ID, result)
	}
	if v := c.revision(); v != "" {
		result = shapeResponse(v, m.Method, m.ID, result) // revisions.go
	}
	return Reply{Body: result, Era: m.Era}
}

// startResult returns a buffer for the call's result that already holds the
// response's frame up to the result, so that the response needs no copy: a
// method returning a result built on it must return it whole (frame included).
func (c *call) startResult(n int) []byte {
	id := c.msg.ID
	b := make([]byte, 0, len(id)+len(resultFrame)+n+1)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	c.framed = true
	return b
}

// resultFrame is the fixed part of a result response.
const resultFrame = `{"jsonrpc":"2.0","id":,"result":}`

// admit checks a request against its era's rules and builds its call. Modern checks
// run in the order the spec's probes expect: _meta fields (-32602), version (-32022),
// method (-32601).
func (s *Server) admit(m *Message, sess *Session, out Sink) (*call, *rpcError) {
	c := &call{srv: s, msg: m, sess: sess, out: out, logLevel: -1}
	if m.Era == EraModern {
		if rerr := c.admitModern(); rerr != nil {
			return nil, rerr
		}
	}
	info, ok := lookupMethod(m.Method)
	if !ok {
		info, ok = s.extMethod(m.Method) // extension.go
	}
	switch {
	case !ok || m.Era == EraModern && !info.modern:
		return nil, errorf(CodeMethodNotFound, "method not found: %q", m.Method)
	case info.capability != "" && !s.declares(info.capability):
		return nil, errorf(CodeMethodNotFound, "method not found: %q (the server declares no %s capability)", m.Method, info.capability)
	case m.Era == EraLegacy && !info.legacy:
		return nil, metaErrorf("missing %s in params._meta", metaProtocolVersion)
	case m.Era == EraLegacy:
		if rerr := c.admitLegacy(info); rerr != nil {
			return nil, rerr
		}
	}
	if m.paramsErr != nil {
		return nil, errorf(CodeInvalidParams, "invalid params: %v", m.paramsErr)
	}
	c.handle = info.handle
	c.progressToken = progressToken(m.params.Meta)
	return c, nil
}

// admitModern validates the request's own _meta and fills the call's info from it.
func (c *call) admitModern() *rpcError {
	meta := c.msg.params.Meta
	if meta == nil || meta.ProtocolVersion == nil {
		return metaErrorf("missing %s in params._meta", metaProtocolVersion)
	}
	version, ok := rawString(meta.ProtocolVersion)
	if !ok {
		return metaErrorf("%s must be a string", metaProtocolVersion)
	}
	if meta.ClientCapabilities == nil || !isObject(meta.ClientCapabilities) {
		return metaErrorf("missing %s object in params._meta", metaClientCapabilities)
	}
	if version != versionModern {
		return unsupportedVersion(version)
	}
	if meta.LogLevel != nil {
		level, _ := rawString(meta.LogLevel)
		if c.logLevel = jsonrpc.LogLevel(level); c.logLevel < 0 {
			return metaErrorf("invalid %s %s", metaLogLevel, meta.LogLevel)
		}
	}
	c.info = RequestInfo{ProtocolVersion: version, Modern: true, ClientCapabilities: meta.ClientCapabilities}
	c.clientInfo = meta.ClientInfo // decoded only if the handler asks (RequestFrom)
	return nil
}

// unsupportedVersion is the -32022 error for a version this server does not serve
// statelessly.
func unsupportedVersion(requested string) *rpcError {
	msg := "Unsupported protocol version"
	if requested == versionLegacy {
		msg += ": " + versionLegacy + " requires initialize"
	}
	e := errorf(CodeUnsupportedVersion, "%s", msg)
	e.data = map[string]any{"supported": supportedVersions(), "requested": requested}
	return e
}

// admitLegacy checks that a 2025-11-25 request comes after initialize (ping and
// initialize may come first) and fills the call's info from the session.
func (c *call) admitLegacy(info methodInfo) *rpcError {
	initialized := false
	if c.sess != nil {
		var version string
		initialized, version, c.info.ClientInfo, c.info.ClientCapabilities = c.sess.snapshot()
		c.info.ProtocolVersion = version
		if olderRevision(version) {
			c.out = revisionSink{out: c.out, version: version} // revisions.go
		}
	}
	if !initialized && !info.preInit {
		return metaErrorf("missing %s in params._meta (2025-11-25 clients must initialize first)", metaProtocolVersion)
	}
	return nil
}

// progressToken returns the request's progressToken if it is a string or an integer.
func progressToken(meta *requestMeta) json.RawMessage {
	if meta == nil || !jsonrpc.ValidID(meta.ProgressToken) {
		return nil
	}
	return meta.ProgressToken
}

// notify handles a notification; notifications are never answered.
func (s *Server) notify(ctx context.Context, m *Message, sess *Session) {
	switch m.Method {
	case "notifications/initialized":
		if sess != nil {
			sess.markReady()
		}
	case "notifications/cancelled":
		if sess != nil && jsonrpc.ValidID(m.params.RequestID) {
			sess.Cancel(m.params.RequestID)
		}
	default:
		if !s.extNotify(ctx, m, sess) { // extension.go
			s.logger.Debug("ignored notification", "method", m.Method)
		}
	}
}

// modernResult completes a result object for its era: 2026-07-28 results get
// resultType and the server's identity in _meta; 2025-11-25 results are unchanged.
// obj must be a JSON object without resultType or _meta.
func (s *Server) modernResult(c *call, obj []byte) []byte {
	if !c.info.Modern {
		return obj
	}
	return jsonrpc.CompleteResult(obj, s.serverInfoMeta, false, false)
}
