package runtime

// mainauth.go: how Main gets OAuth without the runtime core importing a JOSE
// library. runtime/auth registers a MainAuth when imported (the generated
// server main imports it); Main then has its flags and, with -http, mounts the
// MCP endpoint behind it.

import (
	"flag"
	"sync/atomic"
)

// A MainAuth adds authentication to Main's HTTP transport.
type MainAuth interface {
	// Flags registers the authentication flags on Main's flag set.
	Flags(fs *flag.FlagSet)
	// Configure is called after the flags are parsed, with whether Main serves
	// HTTP. It sets opts (Mount, AllowedHosts) when authentication is configured,
	// and fails on flags that make no sense (e.g. OAuth on stdio).
	Configure(s *Server, serveHTTP bool, opts *HTTPOptions) error
}

// mainAuth is the registered MainAuth, if any.
var mainAuth atomic.Pointer[MainAuth]

// RegisterMainAuth makes Main offer a's flags and use it for -http.
func RegisterMainAuth(a MainAuth) { mainAuth.Store(&a) }

// registeredMainAuth returns the registered MainAuth, or nil.
func registeredMainAuth() MainAuth {
	if p := mainAuth.Load(); p != nil {
		return *p
	}
	return nil
}
