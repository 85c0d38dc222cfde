package runtime

// resources.go: registering resources and templates, and answering
// resources/list, resources/templates/list and resources/read (the entries,
// routing and list encoding are internal/primitive's).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
	"github.com/mcpgen/mcpgen/runtime/internal/content"
	"github.com/mcpgen/mcpgen/runtime/internal/primitive"
	"github.com/mcpgen/mcpgen/runtime/internal/scope"
)

// CodeResourceNotFound is the 2025-11-25 error code for resources/read of an
// unknown URI; 2026-07-28 uses CodeInvalidParams instead.
const CodeResourceNotFound = -32002

// AddResource registers r. It panics on a programmer error: an empty or
// duplicate URI, or a nil handler. Subscribed 2026-07-28 listeners and
// 2025-11-25 sessions are told the resource list changed.
func (s *Server) AddResource(r *Resource) {
	switch {
	case r == nil || r.URI == "":
		panic("mcpgen runtime: AddResource: resource without a URI")
	case r.Handler == nil:
		panic(fmt.Sprintf("mcpgen runtime: AddResource: resource %q has no handler", r.URI))
	}
	e := primitive.NewResource(primitive.Desc{URI: r.URI, Name: r.Name, Title: r.Title,
		Description: r.Description, MIMEType: r.MIMEType}, r.Scopes, r)
	s.register(kindResources, s.prims.AddResource(e), "AddResource: duplicate resource URI "+strconv.Quote(r.URI))
}

// AddResourceTemplate registers t. It panics on a programmer error: a
// template that is not an RFC 6570 template mcpgen can match (see
// ResourceTemplate), a duplicate template, or a nil handler.
func (s *Server) AddResourceTemplate(t *ResourceTemplate) {
	if t == nil || t.Handler == nil {
		panic("mcpgen runtime: AddResourceTemplate: template without a handler")
	}
	e, err := primitive.NewTemplate(primitive.Desc{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title,
		Description: t.Description, MIMEType: t.MIMEType}, t.Values, t.Scopes, t)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddResourceTemplate: %v", err))
	}
	s.register(kindResources, s.prims.AddTemplate(e), "AddResourceTemplate: duplicate template "+strconv.Quote(t.URITemplate))
}

// RemoveResource unregisters the resource with uri, reporting whether there
// was one; listeners are told the list changed.
func (s *Server) RemoveResource(uri string) bool {
	return s.unregister(kindResources, s.prims.RemoveResource(uri))
}

// listResources answers resources/list: one page of direct resources in
// registration order.
func (s *Server) listResources(ctx context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, ctx, c, s.prims.Resources(), "resources", func(e *primitive.Resource[*Resource]) ([]byte, []string) { return e.Wire, e.Scopes })
}

// listTemplates answers resources/templates/list.
func (s *Server) listTemplates(ctx context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, ctx, c, s.prims.Templates(), "resourceTemplates", func(e *primitive.Template[*ResourceTemplate]) ([]byte, []string) { return e.Wire, e.Scopes })
}

// pageOf answers a paginated list method from cat: one page of the items under
// key (item gives an item's JSON and scopes) with, for 2026-07-28, the caching
// hints; or -32602 for a cursor the catalog did not issue. With
// Options.HideUnauthorized an item whose scopes the caller lacks is left off,
// and the list is private to the caller.
func pageOf[E any](s *Server, ctx context.Context, c *call, cat *catalog.Catalog[E], key string, item func(E) ([]byte, []string)) ([]byte, *rpcError) {
	hide := s.opts.HideUnauthorized
	var who scope.Caller
	if hide {
		who = scopeCaller(PrincipalFrom(ctx))
	}
	b, ok := primitive.ListPage(cat, c.msg.params.Cursor, s.opts.PageSize, key, func(e E) []byte {
		wire, scopes := item(e)
		if hide && len(scopes) > 0 && !who.Allows(scopes, s.implies()) {
			return nil
		}
		return wire
	})
	if !ok {
		return nil, errorf(CodeInvalidParams, "invalid cursor")
	}
	if c.info.Modern {
		b = s.appendCacheHints(b, 0, hide)
	}
	return s.modernResult(c, append(b, '}')), nil
}

// appendCacheHints appends ttlMs and cacheScope; ttl 0 means the server's.
func (s *Server) appendCacheHints(b []byte, ttl time.Duration, private bool) []byte {
	ms := s.ttlMs
	switch {
	case ttl > 0:
		ms = ttl.Milliseconds()
	case ttl < 0:
		ms = 0
	}
	return primitive.AppendCacheHints(b, ms, private)
}

// readResource answers resources/read: a direct resource by exact URI, else
// the most specific template that matches.
func (s *Server) readResource(ctx context.Context, c *call) ([]byte, *rpcError) {
	uri := c.msg.params.URI
	if uri == "" {
		return nil, errorf(CodeInvalidParams, "resources/read: missing uri")
	}
	req := &ResourceRequest{URI: uri}
	var h ResourceHandler
	var mime string
	var scopes []string
	switch res, tpl, vals := s.prims.Route(uri); {
	case res != nil:
		h, mime, scopes = res.Src.Handler, res.MIMEType, res.Scopes
	case tpl != nil:
		h, mime, scopes = tpl.Src.Handler, tpl.MIMEType, tpl.Scopes
		req.Vars, req.Lists = vals.Vars, vals.Lists
	default:
		return nil, notFound(c, uri)
	}
	if rerr := s.authorizeStatic(ctx, scopes); rerr != nil {
		return nil, rerr
	}
	r, rerr := s.openRound(c, uri, nil)
	if rerr != nil {
		return nil, rerr
	}
	rctx := withRound(ctx, r)
	if x := s.exts.Load(); x != nil && len(x.resRead) > 0 {
		h = wrap(x.resRead, h) // extension.go
	}
	res, err := recovered(s, "resource handler panicked", "uri", uri, func() (*ResourceResult, error) { return h(rctx, req) })
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	switch {
	case errors.Is(err, ErrResourceNotFound), errors.Is(err, fs.ErrNotExist):
		return nil, notFound(c, uri)
	case errors.Is(err, errPanic):
		return nil, errorf(CodeInternalError, "internal error reading %s", uri)
	case errors.As(err, new(*RPCError)):
		return nil, extError(c, "read "+uri, err)
	case err != nil:
		return nil, errorf(CodeInternalError, "read %s: %v", uri, err)
	case res == nil:
		s.logger.Error("resource handler returned no result", "uri", uri)
		return nil, errorf(CodeInternalError, "internal error: no contents for %s", uri)
	}
	return s.encodeRead(c, uri, mime, res)
}

// notFound is the era's error for an unknown resource.
func notFound(c *call, uri string) *rpcError {
	code := CodeResourceNotFound
	if c.info.Modern {
		code = CodeInvalidParams
	}
	e := errorf(code, "Resource not found: %s", uri)
	e.data = map[string]string{"uri": uri}
	return e
}

// recovered calls f, turning a panic into errPanic after logging msg with
// key=val, the panic and its stack.
func recovered[T any](s *Server, msg, key, val string, f func() (T, error)) (res T, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error(msg, key, val, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			var zero T
			res, err = zero, errPanic
		}
	}()
	return f()
}

// encodeRead encodes a ReadResourceResult, filling each content's URI and MIME
// type from the request and the resource when the handler left them empty.
func (s *Server) encodeRead(c *call, uri, mime string, res *ResourceResult) ([]byte, *rpcError) {
	b, err := content.AppendContents([]byte(`{"contents":`), uri, mime, len(res.Contents),
		func(i int) content.Resource { return content.Resource(res.Contents[i]) })
	if err != nil {
		s.logger.Error("resource contents unusable", "uri", uri, "err", err)
		return nil, errorf(CodeInternalError, "internal error: unencodable contents for %s", uri)
	}
	if c.info.Modern {
		b = s.appendCacheHints(b, res.CacheTTL, res.Private)
	}
	return s.finishResult(c, b, res.Meta)
}

// finishResult closes a result object opened in b (without its final brace):
// 2026-07-28 results get resultType and _meta with the server's identity
// merged into meta; 2025-11-25 results get meta as is, if any.
func (s *Server) finishResult(c *call, b []byte, meta map[string]any) ([]byte, *rpcError) {
	enc, err := s.resultMeta(c, meta)
	if err != nil {
		s.logger.Error("result _meta unusable", "method", c.msg.Method, "err", err)
		return nil, errorf(CodeInternalError, "internal error: unusable _meta")
	}
	if c.info.Modern {
		b = append(b, `,"resultType":"complete"`...)
	}
	if enc != nil {
		b = append(append(b, `,"_meta":`...), enc...)
	}
	return append(b, '}'), nil
}
