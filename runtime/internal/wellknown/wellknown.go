// Package wellknown serves the runtime's static well-known documents (the
// Server Card, the AI Catalog): entity tags, conditional GET, the CORS
// headers a hosted card needs, and the AI Catalog identifier of a card.
package wellknown

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Serve answers GET and HEAD with body (304 when If-None-Match names its
// tag), OPTIONS with the CORS preflight, and anything else with 405; the
// headers are the ones the Server Card draft asks of a hosted card.
func Serve(w http.ResponseWriter, r *http.Request, body []byte, tag, mediaType string) {
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
	if match := r.Header.Get("If-None-Match"); match != "" && ETagMatch(match, tag) {
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

// ETag is a strong entity tag of body.
func ETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// ETagMatch reports whether an If-None-Match list names tag (or is "*").
func ETagMatch(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// CatalogID is the AI Catalog identifier of a card named NAMESPACE/NAME in
// reverse-DNS form: urn:air:<namespace, forward>:mcp:<name>
// (io.github.acme/notes is urn:air:acme.github.io:mcp:notes).
func CatalogID(name string) string {
	ns, n, _ := strings.Cut(name, "/")
	parts := strings.Split(ns, ".")
	slices.Reverse(parts)
	return "urn:air:" + strings.Join(parts, ".") + ":mcp:" + n
}
