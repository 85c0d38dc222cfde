package auth

import (
	"encoding/json"
	"net/http"
)

// resourceMetadata is the RFC 9728 document.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	SigningAlgs            []string `json:"resource_signing_alg_values_supported,omitempty"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// serveMetadata answers the protected resource metadata.
func (rs *ResourceServer) serveMetadata(w http.ResponseWriter, _ *http.Request) {
	scopes := rs.cfg.ScopesSupported
	if scopes == nil && rs.srv != nil {
		scopes = rs.srv.ScopesSupported()
	}
	doc := resourceMetadata{Resource: rs.cfg.Audience, AuthorizationServers: []string{rs.cfg.Issuer},
		ScopesSupported: scopes, BearerMethodsSupported: []string{"header"}}
	b, err := json.Marshal(doc)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=300")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	_, _ = w.Write(b)
}
