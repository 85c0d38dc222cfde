package runtime

// servercard.go: the Server Card (SEP-2127, docs/publishing.md#the-server-card)
// that ListenAndServe serves at <endpoint>/server-card, and the optional AI
// Catalog at /.well-known/ai-catalog.json. The card is static public
// metadata: mcpgen builds it from //mcp:server at generate time, the same data
// as server.json, and it holds nothing the protected resource metadata does
// not publish already (no scopes, no authorization server, no secrets).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
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
		"identifier": catalogID(head.Name), "type": ServerCardMediaType, "data": json.RawMessage(card)}}})
	s.card.Store(&serverCard{body: slices.Clone(card), catalog: catalog, etag: etag(card), catETag: etag(catalog)})
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
		serveStatic(w, r, c.body, c.etag, ServerCardMediaType)
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
		serveStatic(w, r, c.catalog, c.catETag, aiCatalogMediaType)
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

// serveStatic answers GET and HEAD with body (304 when If-None-Match names its
// tag), OPTIONS with the CORS preflight, and anything else with 405; the
// headers are the ones the Server Card draft asks of a hosted card.
func serveStatic(w http.ResponseWriter, r *http.Request, body []byte, tag, mediaType string) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
	h.Set("Access-Control-Expose-Headers", "ETag")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("ETag", tag)
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatch(match, tag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", mediaType)
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// etag is a strong entity tag of body.
func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// etagMatch reports whether an If-None-Match list names tag (or is "*").
func etagMatch(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// catalogID is the AI Catalog identifier of a card named NAMESPACE/NAME in
// reverse-DNS form: urn:air:<namespace, forward>:mcp:<name>
// (io.github.acme/notes is urn:air:acme.github.io:mcp:notes).
func catalogID(name string) string {
	ns, n, _ := strings.Cut(name, "/")
	parts := strings.Split(ns, ".")
	slices.Reverse(parts)
	return "urn:air:" + strings.Join(parts, ".") + ":mcp:" + n
}
