package runtime

// resources.go: resources/list, resources/templates/list and resources/read, and
// registering resources.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/internal/uritemplate"
	"github.com/mcpgen/mcpgen/runtime/internal/catalog"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// CodeResourceNotFound is the 2025-11-25 error code for resources/read of an
// unknown URI; 2026-07-28 uses CodeInvalidParams instead.
const CodeResourceNotFound = -32002

// A resourceEntry is a registered resource with its pre-serialised listing.
type resourceEntry struct {
	res  *Resource
	wire []byte
}

// A templateEntry is a registered template with its parsed form.
type templateEntry struct {
	tpl    *ResourceTemplate
	parsed *uritemplate.Template
	wire   []byte
	// literal and spanning rank the template for routing (moreSpecific).
	literal, spanning int
}

// wireResource is the JSON shape of a Resource and a ResourceTemplate in the
// list results.
type wireResourceDesc struct {
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

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
	name := r.Name
	if name == "" {
		name = r.URI
	}
	e := &resourceEntry{res: r, wire: mustMarshal(wireResourceDesc{URI: r.URI, Name: name,
		Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})}
	s.register(kindResources, func(p *primitives) bool {
		next, ok := p.resources.Load().With(r.URI, e)
		p.resources.Store(next)
		return ok
	}, "AddResource: duplicate resource URI "+strconv.Quote(r.URI))
}

// AddResourceTemplate registers t. It panics on a programmer error: a
// template that is not an RFC 6570 template mcpgen can match (see
// ResourceTemplate), a duplicate template, or a nil handler.
func (s *Server) AddResourceTemplate(t *ResourceTemplate) {
	if t == nil || t.Handler == nil {
		panic("mcpgen runtime: AddResourceTemplate: template without a handler")
	}
	parsed, err := uritemplate.Parse(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: AddResourceTemplate: %v", err))
	}
	name := t.Name
	if name == "" {
		name = t.URITemplate
	}
	lit, span := parsed.Specificity()
	e := &templateEntry{tpl: t, parsed: parsed, literal: lit, spanning: span, wire: mustMarshal(wireResourceDesc{URITemplate: t.URITemplate,
		Name: name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})}
	s.register(kindResources, func(p *primitives) bool {
		next, ok := p.templates.Load().With(t.URITemplate, e)
		p.templates.Store(next)
		return ok
	}, "AddResourceTemplate: duplicate template "+strconv.Quote(t.URITemplate))
}

// RemoveResource unregisters the resource with uri, reporting whether there
// was one; listeners are told the list changed.
func (s *Server) RemoveResource(uri string) bool {
	return s.unregister(kindResources, func(p *primitives) bool {
		next, ok := p.resources.Load().Without(uri)
		p.resources.Store(next)
		return ok
	})
}

// listResources answers resources/list: one page of direct resources in
// registration order.
func (s *Server) listResources(_ context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, c, s.prims.resources.Load(), "resources", func(e *resourceEntry) []byte { return e.wire })
}

// listTemplates answers resources/templates/list.
func (s *Server) listTemplates(_ context.Context, c *call) ([]byte, *rpcError) {
	return pageOf(s, c, s.prims.templates.Load(), "resourceTemplates", func(e *templateEntry) []byte { return e.wire })
}

// pageOf answers a paginated list method from cat: one page of the
// pre-encoded items (wire gives an item's JSON) under key, or -32602 for a
// cursor the catalog did not issue.
func pageOf[E any](s *Server, c *call, cat *catalog.Catalog[E], key string, wire func(E) []byte) ([]byte, *rpcError) {
	items, next, ok := cat.Page(c.msg.params.Cursor, s.opts.PageSize)
	if !ok {
		return nil, errorf(CodeInvalidParams, "invalid cursor")
	}
	wires := make([][]byte, len(items))
	for i, e := range items {
		wires[i] = wire(e)
	}
	return s.listResult(c, key, wires, next), nil
}

// listResult encodes a list result: the items under key, nextCursor, and for
// 2026-07-28 the public caching hints.
func (s *Server) listResult(c *call, key string, items [][]byte, next string) []byte {
	b := append(jsonwire.AppendString([]byte{'{'}, key), ":["...)
	for i, w := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, w...)
	}
	b = append(b, ']')
	if next != "" {
		b = jsonwire.AppendString(append(b, `,"nextCursor":`...), next)
	}
	if c.info.Modern {
		b = s.appendCacheHints(b, 0, false)
	}
	return s.modernResult(c, append(b, '}'))
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
	b = strconv.AppendInt(append(b, `,"ttlMs":`...), ms, 10)
	if private {
		return append(b, `,"cacheScope":"private"`...)
	}
	return append(b, `,"cacheScope":"public"`...)
}

// readResource answers resources/read: a direct resource by exact URI, else
// the most specific template that matches.
func (s *Server) readResource(ctx context.Context, c *call) ([]byte, *rpcError) {
	uri := c.msg.params.URI
	if uri == "" {
		return nil, errorf(CodeInvalidParams, "resources/read: missing uri")
	}
	h, mime, vals, scopes, ok := s.findResource(uri)
	if !ok {
		return nil, notFound(c, uri)
	}
	if rerr := s.authorizeStatic(ctx, scopes); rerr != nil {
		return nil, rerr
	}
	req := &ResourceRequest{URI: uri}
	if vals != nil {
		req.Vars, req.Lists = vals.Vars, vals.Lists
	}
	r, rerr := s.openRound(c, uri, nil)
	if rerr != nil {
		return nil, rerr
	}
	res, err := s.invokeResource(withRound(ctx, r), h, req)
	if b, rerr, handled := s.closeRound(c, r); handled {
		return b, rerr
	}
	switch {
	case errors.Is(err, ErrResourceNotFound):
		return nil, notFound(c, uri)
	case errors.Is(err, errPanic):
		return nil, errorf(CodeInternalError, "internal error reading %s", uri)
	case err != nil:
		return nil, errorf(CodeInternalError, "read %s: %v", uri, err)
	case res == nil:
		s.logger.Error("resource handler returned no result", "uri", uri)
		return nil, errorf(CodeInternalError, "internal error: no contents for %s", uri)
	}
	return s.encodeRead(c, uri, mime, res)
}

// findResource returns the handler serving uri, the resource's MIME type and
// the template variables (nil for a direct resource) and the scopes it needs.
// A direct resource wins; among templates that match, the most specific does
// (see moreSpecific).
func (s *Server) findResource(uri string) (ResourceHandler, string, *uritemplate.Values, []string, bool) {
	if e, ok := s.prims.resources.Load().Get(uri); ok {
		return e.res.Handler, e.res.MIMEType, nil, e.res.Scopes, true
	}
	tpls := s.prims.templates.Load()
	if tpls == nil {
		return nil, "", nil, nil, false
	}
	var best *templateEntry
	var bestVals uritemplate.Values
	for _, e := range tpls.All() {
		if best != nil && !e.moreSpecific(best) {
			continue
		}
		if vals, ok := e.parsed.Match(uri); ok && e.admits(vals.Vars) {
			best, bestVals = e, vals
		}
	}
	if best == nil {
		return nil, "", nil, nil, false
	}
	return best.tpl.Handler, best.tpl.MIMEType, &bestVals, best.tpl.Scopes, true
}

// moreSpecific reports whether e routes before o when both match a URI: the
// template with more literal characters wins, then the one with fewer
// expressions whose values may span slashes ({+v}, {#v}, {/v*}); on a tie the
// one registered first (o, since templates are visited in registration
// order) wins.
func (e *templateEntry) moreSpecific(o *templateEntry) bool {
	if e.literal != o.literal {
		return e.literal > o.literal
	}
	return e.spanning < o.spanning
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

// invokeResource calls the handler, recovering a panic into errPanic.
func (s *Server) invokeResource(ctx context.Context, h ResourceHandler, req *ResourceRequest) (res *ResourceResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("resource handler panicked", "uri", req.URI, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = nil, errPanic
		}
	}()
	return h(ctx, req)
}

// encodeRead encodes a ReadResourceResult, filling each content's URI and MIME
// type from the request and the resource when the handler left them empty.
func (s *Server) encodeRead(c *call, uri, mime string, res *ResourceResult) ([]byte, *rpcError) {
	b := []byte(`{"contents":[`)
	for i, rc := range res.Contents {
		if rc.URI == "" {
			rc.URI = uri
		}
		if rc.MIMEType == "" {
			rc.MIMEType = mime
		}
		enc, err := json.Marshal(rc)
		if err != nil {
			s.logger.Error("resource contents unusable", "uri", uri, "err", err)
			return nil, errorf(CodeInternalError, "internal error: unencodable contents for %s", uri)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, enc...)
	}
	b = append(b, ']')
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

// admits reports whether every variable with an enum has one of its values.
func (e *templateEntry) admits(vars map[string]string) bool {
	for name, allowed := range e.tpl.Values {
		if v, ok := vars[name]; ok && !slices.Contains(allowed, v) {
			return false
		}
	}
	return true
}
