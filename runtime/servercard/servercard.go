// Package servercard serves a server's Server Card (SEP-2127,
// docs/publishing.md#the-server-card) at <endpoint>/server-card, and
// optionally an AI Catalog carrying it at /.well-known/ai-catalog.json. The
// card is static public metadata: mcpgen builds it from //mcp:server at
// generate time, the same data as server.json, and it holds nothing the
// protected resource metadata does not publish already (no scopes, no
// authorization server, no secrets).
//
// The card is a registry feature, not part of the protocol: it is an
// extension (runtime.Extension) whose Routes serve it beside the MCP endpoint
// of ListenAndServe (and so of runtime/serve's -http). Generated RegisterMCP
// of a //mcp:server package calls Use; a program serving the runtime's
// HTTPHandler on a mux of its own mounts Card.Handler itself.
package servercard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/internal/wellknown"
)

// Media types and paths of the documents served here.
const (
	// MediaType is the Server Card's media type.
	MediaType          = "application/mcp-server-card+json"
	aiCatalogMediaType = "application/ai-catalog+json"
	// AICatalogPath is where Options.AICatalog serves the AI Catalog.
	AICatalogPath = "/.well-known/ai-catalog.json"
)

// Options say where ListenAndServe serves a card.
type Options struct {
	// Path is the card's path: "" means the MCP endpoint's path (HTTPOptions.Path)
	// + "/server-card", "-" serves none.
	Path string
	// AICatalog also serves AICatalogPath, an AI Catalog whose one entry
	// carries the card inline, for clients that discover servers by domain.
	AICatalog bool
}

// A Card is a Server Card ready to serve. Its methods are safe for concurrent
// use.
type Card struct {
	doc  atomic.Pointer[document]
	mu   sync.Mutex
	opts Options
}

// A document is a card's bytes and entity tag, and the AI Catalog that
// carries it.
type document struct {
	body, catalog []byte
	etag, catETag string
}

// New returns a Card serving card, which must be a JSON object with a "name";
// it is served as given.
func New(card []byte) (*Card, error) {
	d, err := newDocument(card)
	if err != nil {
		return nil, err
	}
	c := &Card{}
	c.doc.Store(d)
	return c, nil
}

// newDocument checks card and builds what is served of it.
func newDocument(card []byte) (*document, error) {
	var head struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(card, &head); err != nil || head.Name == "" {
		return nil, fmt.Errorf("servercard: not a Server Card with a name: %v", err)
	}
	catalog, _ := json.Marshal(map[string]any{"specVersion": "1.0", "entries": []any{map[string]any{
		"identifier": wellknown.CatalogID(head.Name), "type": MediaType, "data": json.RawMessage(card)}}})
	return &document{body: slices.Clone(card), catalog: catalog, etag: wellknown.ETag(card), catETag: wellknown.ETag(catalog)}, nil
}

// Use makes card the Server Card s serves, and returns it (generated
// RegisterMCP calls it with the card built from //mcp:server). A server has
// one card: when s has one already, its document is replaced and its Options
// stay. It panics on a card that is not a JSON object with a name, as AddTool
// panics on a programmer error.
func Use(s *mcpruntime.Server, card []byte) *Card {
	d, err := newDocument(card)
	if err != nil {
		panic(err.Error())
	}
	if c := Of(s); c != nil {
		c.doc.Store(d)
		return c
	}
	c := &Card{}
	c.doc.Store(d)
	s.MustUse(&mcpruntime.Extension{Routes: c.routes, Value: c}) // no ID: the card is found over HTTP, not in capabilities
	return c
}

// Of returns the card s serves, or nil.
func Of(s *mcpruntime.Server) *Card {
	for _, x := range s.Extensions() {
		if c, ok := x.Value.(*Card); ok {
			return c
		}
	}
	return nil
}

// SetOptions sets where ListenAndServe serves the card; call it before serving.
func (c *Card) SetOptions(o Options) {
	c.mu.Lock()
	c.opts = o
	c.mu.Unlock()
}

// JSON returns the card's JSON.
func (c *Card) JSON() []byte { return slices.Clone(c.doc.Load().body) }

// Handler serves the card, for a mux of your own: mount it at your endpoint's
// path + "/server-card". It is public (no authentication), cacheable (an
// ETag; 304 for a matching If-None-Match) and has the CORS headers the draft
// asks for; methods other than GET, HEAD and OPTIONS get 405.
func (c *Card) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := c.doc.Load()
		wellknown.Serve(w, r, d.body, d.etag, MediaType)
	})
}

// CatalogHandler serves the AI Catalog with the card inline, for a mux of
// your own (mount it at AICatalogPath).
func (c *Card) CatalogHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := c.doc.Load()
		wellknown.Serve(w, r, d.catalog, d.catETag, aiCatalogMediaType)
	})
}

// routes serves the card (and the AI Catalog) beside the MCP endpoint
// (Extension.Routes), outside its authentication: the card is public.
func (c *Card) routes(mux *http.ServeMux, endpoint string) {
	c.mu.Lock()
	o := c.opts
	c.mu.Unlock()
	if o.Path == "-" {
		return
	}
	if o.Path == "" {
		o.Path = strings.TrimSuffix(endpoint, "/") + "/server-card"
	}
	mux.Handle(o.Path, c.Handler())
	if o.AICatalog {
		mux.Handle(AICatalogPath, c.CatalogHandler())
	}
}
