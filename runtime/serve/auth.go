package serve

// auth.go: how Main gets OAuth without importing a JOSE library. runtime/auth
// registers an Auth when imported (the generated server main imports it);
// Main then has its flags and, with -http, mounts the MCP endpoint behind it.

import (
	"flag"
	"sync/atomic"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// An Auth adds authentication to Main's HTTP transport.
type Auth interface {
	// Flags registers the authentication flags on Main's flag set.
	Flags(fs *flag.FlagSet)
	// Configure is called after the flags are parsed, with whether Main serves
	// HTTP. It sets opts (Mount, AllowedHosts) when authentication is configured,
	// and fails on flags that make no sense (e.g. OAuth on stdio).
	Configure(s *mcpruntime.Server, serveHTTP bool, opts *mcpruntime.HTTPOptions) error
}

// auth is the registered Auth, if any.
var auth atomic.Pointer[Auth]

// RegisterAuth makes Main offer a's flags and use it for -http.
func RegisterAuth(a Auth) { auth.Store(&a) }

// registeredAuth returns the registered Auth, or nil.
func registeredAuth() Auth {
	if p := auth.Load(); p != nil {
		return *p
	}
	return nil
}
