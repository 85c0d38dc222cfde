package runtime

// servercard.go: the Server Card (SEP-2127, docs/publishing.md#the-server-card)
// that ListenAndServe serves at <endpoint>/server-card, and the optional AI
// Catalog at /.well-known/ai-catalog.json. The card is static public
// metadata: mcpgen builds it from //mcp:server at generate time, the same data
// as server.json, and it holds nothing the protected resource metadata does
// not publish already (no scopes, no authorization server, no secrets).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/wellknown"
)

// Media types of the documents served here.
const (
	ServerCardMediaType = "application/mcp-server-card+json"
	aiCatalogMediaType  = "application/ai-catalog+json"
	// AICatalogPath is where HTTPOptions.AICatalog serves the AI Catalog.
	AICatalogPath = "/.well-known/ai-catalog.json"
)

// A serverCard is a card ready to serve: its bytes and entity tag, and the
// AI Catalog that carries it.
type serverCard struct {
	body, catalog []byte
	etag, catETag string
}

// SetServerCard sets the Server Card that ListenAndServe serves (generated code
// calls it with the card built from //mcp:server). card must be a JSON object
// with a "name"; it is served as given. A nil card serves none.
func (s *Server) SetServerCard(card []byte) {
	if card == nil {
		s.card.Store(nil)
		return
	}
	var head struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(card, &head); err != nil || head.Name == "" {
		panic(fmt.Sprintf("mcpruntime: SetServerCard: not a Server Card with a name: %v", err))
	}
	catalog, _ := json.Marshal(map[string]any{"specVersion": "1.0", "entries": []any{map[string]any{
		"identifier": wellknown.CatalogID(head.Name), "type": ServerCardMediaType, "data": json.RawMessage(card)}}})
	s.card.Store(&serverCard{body: slices.Clone(card), catalog: catalog, etag: wellknown.ETag(card), catETag: wellknown.ETag(catalog)})
}

// ServerCard returns the card given to SetServerCard, or nil.
func (s *Server) ServerCard() []byte {
	if c := s.card.Load(); c != nil {
		return slices.Clone(c.body)
	}
	return nil
}

// ServerCardHandler serves the Server Card, for a mux of your own (mount it at
// your endpoint's path + "/server-card"); it answers 404 while there is none.
func (s *Server) ServerCardHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := s.card.Load()
		if c == nil {
			http.NotFound(w, r)
			return
		}
		wellknown.Serve(w, r, c.body, c.etag, ServerCardMediaType)
	})
}

// aiCatalogHandler serves the AI Catalog with the card inline.
func (s *Server) aiCatalogHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := s.card.Load()
		if c == nil {
			http.NotFound(w, r)
			return
		}
		wellknown.Serve(w, r, c.catalog, c.catETag, aiCatalogMediaType)
	})
}

// withServerCard adds the card's routes to opts.Mount when the server has a
// card and opts.ServerCardPath is not "-".
func (s *Server) withServerCard(opts HTTPOptions) HTTPOptions {
	if s.card.Load() == nil || opts.ServerCardPath == "-" {
		return opts
	}
	cardPath := opts.ServerCardPath
	if cardPath == "" {
		cardPath = strings.TrimSuffix(opts.Path, "/") + "/server-card"
	}
	mount, catalog := opts.Mount, opts.AICatalog
	opts.Mount = func(mux *http.ServeMux, path string, mcp http.Handler) {
		if mount != nil {
			mount(mux, path, mcp) // authentication in front of the endpoint; the card stays public
		} else {
			mux.Handle(path, mcp)
		}
		mux.Handle(cardPath, s.ServerCardHandler())
		if catalog {
			mux.Handle(AICatalogPath, s.aiCatalogHandler())
		}
	}
	return opts
}
