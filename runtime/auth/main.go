package auth

import (
	"errors"
	"flag"
	"net/http"
	"net/url"
	"os"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/serve"
)

// Environment variables read as the flags' defaults.
const (
	EnvIssuer        = "MCP_AUTH_ISSUER"
	EnvAudience      = "MCP_AUTH_AUDIENCE"
	EnvIntrospection = "MCP_AUTH_INTROSPECTION_URL"
	EnvClientID      = "MCP_AUTH_CLIENT_ID"     // for introspection
	EnvClientSecret  = "MCP_AUTH_CLIENT_SECRET" // for introspection; never a flag (ps shows flags)
	EnvJWTTypes      = "MCP_AUTH_JWT_TYP"
	EnvAllowHTTP     = "MCP_AUTH_ALLOW_HTTP" // "1": -auth-allow-http
)

func init() { serve.RegisterAuth(&mainFlags{}) }

// mainFlags are the flags a generated server main gets from this package.
type mainFlags struct {
	issuer, audience, introspection string
	jwtTypes                        string
	allowHTTP                       bool
}

// Flags registers -auth-issuer, -auth-audience and -auth-introspection.
func (m *mainFlags) Flags(fs *flag.FlagSet) {
	fs.StringVar(&m.issuer, "auth-issuer", os.Getenv(EnvIssuer),
		"with -http: accept only OAuth access tokens from the authorization server `url` (env "+EnvIssuer+")")
	fs.StringVar(&m.audience, "auth-audience", os.Getenv(EnvAudience),
		"with -http: this server's resource `uri`, which tokens must name in aud, e.g. https://mcp.example.com/mcp (env "+EnvAudience+")")
	fs.StringVar(&m.introspection, "auth-introspection", os.Getenv(EnvIntrospection),
		"RFC 7662 introspection endpoint `url` for opaque tokens; client credentials from "+EnvClientID+" and "+EnvClientSecret+" (env "+EnvIntrospection+")")
	fs.StringVar(&m.jwtTypes, "auth-jwt-typ", os.Getenv(EnvJWTTypes),
		"also accept JWT access tokens whose typ header is one of these comma-separated `types`, e.g. JWT for Ory Hydra or Keycloak; at+jwt is always accepted (env "+EnvJWTTypes+")")
	fs.BoolVar(&m.allowHTTP, "auth-allow-http", os.Getenv(EnvAllowHTTP) == "1",
		"accept an http:// authorization server on a host that is not loopback (tokens and keys travel in clear; env "+EnvAllowHTTP+"=1)")
}

// Configure mounts the MCP endpoint behind a ResourceServer when -auth-issuer
// is set.
func (m *mainFlags) Configure(s *mcpruntime.Server, serveHTTP bool, opts *mcpruntime.HTTPOptions) error {
	if m.issuer == "" && m.audience == "" && m.introspection == "" && m.jwtTypes == "" && !m.allowHTTP {
		return nil
	}
	if !serveHTTP {
		return errors.New("-auth-issuer and -auth-audience need -http: over stdio the server runs with the user's own authority")
	}
	if m.issuer == "" || m.audience == "" {
		return errors.New("-auth-issuer and -auth-audience go together")
	}
	var types []string
	for _, t := range strings.Split(m.jwtTypes, ",") {
		if t = strings.TrimSpace(t); t != "" {
			types = append(types, t)
		}
	}
	rs, err := New(s, Config{Issuer: m.issuer, Audience: m.audience, IntrospectionURL: m.introspection,
		ClientID: os.Getenv(EnvClientID), ClientSecret: os.Getenv(EnvClientSecret),
		JWTTypes: types, AllowInsecureHTTP: m.allowHTTP})
	if err != nil {
		return err
	}
	if u, err := url.Parse(m.audience); err == nil {
		opts.AllowedHosts = append(opts.AllowedHosts, u.Host)
	}
	opts.Mount = rs.Mount
	return nil
}

// Mount mounts mcp at path behind bearer authentication, and the protected
// resource metadata at its well-known paths (HTTPOptions.Mount).
func (rs *ResourceServer) Mount(mux *http.ServeMux, path string, mcp http.Handler) {
	meta := http.HandlerFunc(rs.serveMetadata)
	mux.Handle("GET "+rs.metaPath, meta)
	if rs.metaPath != "/.well-known/oauth-protected-resource" {
		mux.Handle("GET /.well-known/oauth-protected-resource", meta)
	}
	mux.Handle(path, rs.Middleware(mcp))
}
