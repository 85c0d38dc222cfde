package runtime

// http_options.go: HTTPOptions and their defaults.

import (
	"net/http"
	"time"
)

// Defaults used by HTTPOptions when a field is left zero.
const (
	// DefaultHTTPPath is the MCP endpoint path served by ListenAndServe.
	DefaultHTTPPath = "/mcp"
	// DefaultHTTPAddr is the listen address used when none is given: loopback only,
	// as the transport specs recommend for local servers.
	DefaultHTTPAddr = "127.0.0.1:8080"
	// DefaultMaxBodyBytes bounds a POST body (4 MiB); a larger one gets 413.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxHeaderBytes bounds the request header block (64 KiB); Go answers 431 above it.
	DefaultMaxHeaderBytes = 64 << 10
	// DefaultReadHeaderTimeout bounds the time a client may take to send its headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultBodyTimeout bounds the time a client may take to send a POST body.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultIdleTimeout closes keep-alive connections idle for longer.
	DefaultIdleTimeout = 120 * time.Second
	// DefaultShutdownTimeout bounds the drain of in-flight requests on shutdown.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultSessionIdleTimeout ends a 2025-11-25 session no request touched for this long.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions bounds the number of live 2025-11-25 sessions. An idle
	// session holds about 3 KiB (docs/performance.md, cost curves: 10,000 of them
	// add 31 MB), so the bound is set by how many clients one replica serves,
	// not by memory; it was 1024, which ended live clients' sessions behind a
	// busy proxy.
	DefaultMaxSessions = 10000
	// DefaultMaxSessionsPerPeer bounds the live 2025-11-25 sessions of one remote
	// address (a quarter of DefaultMaxSessions).
	DefaultMaxSessionsPerPeer = 2500
	// DefaultMaxStatelessRequests bounds the 2026-07-28 requests one handler serves
	// at once (16 times the default Options.MaxConcurrentRequests, the most a stdio
	// connection admits).
	DefaultMaxStatelessRequests = 1024
	// DefaultMaxListenStreams bounds the 2026-07-28 subscriptions/listen streams
	// one handler holds open at once.
	DefaultMaxListenStreams = 1024
	// DefaultMaxListenStreamsPerClient bounds the subscriptions/listen streams of
	// one client (one principal, or one address when anonymous): a client needs one.
	DefaultMaxListenStreamsPerClient = 16
	// DefaultKeepAlive is the quiet time after which an SSE stream gets a comment line.
	DefaultKeepAlive = 15 * time.Second
	// DefaultSSERetry is the reconnection delay announced on resumable legacy streams.
	DefaultSSERetry = 500 * time.Millisecond
)

// HTTPOptions configures the Streamable HTTP transport. A nil *HTTPOptions and
// zero fields take the defaults above. The handler never mutates the options.
type HTTPOptions struct {
	// Path is the MCP endpoint path for ListenAndServe (default "/mcp").
	// HTTPHandler serves whatever path it is mounted at.
	Path string

	// AllowedOrigins lists extra Origin values (scheme://host[:port]) accepted
	// besides loopback origins, which are always accepted. "*" accepts any
	// origin, which disables the DNS-rebinding defence: use it only behind
	// real authentication. A request without Origin is always accepted.
	AllowedOrigins []string

	// AllowedHosts lists extra Host header values (host or host:port) accepted
	// besides loopback hosts (localhost, 127.0.0.0/8, [::1]), which are always
	// accepted. "*" accepts any host. Set it when the server is reached under
	// a real name, e.g. behind a reverse proxy.
	AllowedHosts []string

	// Mount, when set, mounts the MCP handler on ListenAndServe's mux in place of
	// mux.Handle(Path, mcp): runtime/auth puts bearer authentication in front of it
	// and serves the protected resource metadata beside it.
	Mount func(mux *http.ServeMux, path string, mcp http.Handler)

	// MaxBodyBytes bounds a POST body (default 4 MiB); larger bodies get 413.
	MaxBodyBytes int64
	// MaxHeaderBytes bounds the request header block for ListenAndServe (default 64 KiB).
	MaxHeaderBytes int
	// ReadHeaderTimeout and IdleTimeout configure ListenAndServe's http.Server.
	ReadHeaderTimeout, IdleTimeout time.Duration
	// BodyTimeout bounds the time a client may take to send a POST body
	// (default 30s). Unlike http.Server.ReadTimeout it never cuts a long SSE
	// response short. It needs the ResponseWriter to reach the connection's
	// SetReadDeadline (http.ResponseController): behind middleware whose
	// wrapper has no Unwrap method it cannot be enforced, and the handler logs
	// a warning once.
	BodyTimeout time.Duration
	// ShutdownTimeout bounds how long ListenAndServe drains in-flight requests
	// once its context is cancelled (default 10s).
	ShutdownTimeout time.Duration

	// SessionIdleTimeout ends 2025-11-25 sessions idle for longer (default 30m):
	// a session with no request running and no GET stream open for that long is
	// gone (404), and what it buffered is freed, whether or not other clients
	// send anything.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds live 2025-11-25 sessions (default 10000), counting each
	// from its initialize on. When the store is full, an initialize ends an
	// abandoned session to make room: one never used after its initialize
	// first, else the least recently used session with no request running and
	// no GET stream open. Only when every session is in active use does it get
	// 503 (-32603 "too many sessions").
	MaxSessions int
	// MaxSessionsPerPeer bounds the live 2025-11-25 sessions of one remote
	// address, an IPv6 address counting as its /64 (default 2500; negative:
	// MaxSessions). A client at the bound that
	// initializes again ends its own least recently used idle session, or gets
	// 503 (-32603 "too many sessions from this client") when all are in use.
	// Behind a reverse proxy every client has the proxy's address: set it to
	// MaxSessions there.
	MaxSessionsPerPeer int
	// MaxStatelessRequests bounds the 2026-07-28 requests in flight at once across
	// the handler (default 1024). They carry no session, so the bound is per handler,
	// which is per process for ListenAndServe; subscriptions/listen streams, which
	// stay open, have bounds of their own (MaxListenStreams) and do not count. A
	// request beyond it is answered at once with 503 and the JSON-RPC error
	// -32603 "server busy: too many requests in flight". 2025-11-25 requests are
	// bounded per session by the server's Options.MaxConcurrentRequests instead.
	MaxStatelessRequests int
	// MaxListenStreams bounds the 2026-07-28 subscriptions/listen streams open at
	// once across the handler (default 1024), and MaxListenStreamsPerClient those
	// of one client (default 16): of one principal when a middleware (runtime/auth)
	// authenticated it, else of one remote address (an IPv6 address counting as
	// its /64; AnonymousPrincipal counts as anonymous). A listen beyond either is
	// answered at once with 503 and -32603 "too many subscriptions/listen streams"
	// or "too many subscriptions/listen streams from this client"; other requests
	// are not affected. Behind a reverse proxy without authentication every client
	// has the proxy's address: raise MaxListenStreamsPerClient there.
	MaxListenStreams, MaxListenStreamsPerClient int
	// AnonymousPrincipal is the caller of requests that carry no principal: no
	// authentication middleware (runtime/auth) stands in front of the handler.
	// Nil (the default) leaves them anonymous, so tools, resources and prompts
	// with scope="..." refuse them. Set it only where the network itself decides
	// who may connect (a private network, tests); Main sets it from the
	// MCP_ANONYMOUS_SCOPES environment variable when no -auth-issuer is given.
	AnonymousPrincipal *Principal
	// SSERetry is the reconnection delay sent in the priming event of legacy
	// SSE streams (default 500ms).
	SSERetry time.Duration
	// KeepAlive is the quiet time after which an open SSE stream gets a
	// comment line (default 15s); negative disables keep-alives.
	KeepAlive time.Duration

	// LegacySSE makes ListenAndServe also serve the HTTP+SSE transport of
	// 2024-11-05 (GET LegacySSEPath "/sse" for the event stream, POST
	// LegacyMessagePath "/message" for messages) beside Streamable HTTP, for
	// clients that predate Streamable HTTP. Off by default. LegacySSEHandler
	// serves it in your own mux.
	LegacySSE bool
}

// withDefaults returns a copy of o with every zero field set to its default.
func (o *HTTPOptions) withDefaults() HTTPOptions {
	var c HTTPOptions
	if o != nil {
		c = *o
	}
	setDefault(&c.Path, DefaultHTTPPath)
	setDefault(&c.MaxBodyBytes, DefaultMaxBodyBytes)
	setDefault(&c.MaxHeaderBytes, DefaultMaxHeaderBytes)
	setDefault(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDefault(&c.IdleTimeout, DefaultIdleTimeout)
	setDefault(&c.BodyTimeout, DefaultBodyTimeout)
	setDefault(&c.ShutdownTimeout, DefaultShutdownTimeout)
	setDefault(&c.SessionIdleTimeout, DefaultSessionIdleTimeout)
	setDefault(&c.MaxSessions, DefaultMaxSessions)
	setDefault(&c.MaxSessionsPerPeer, DefaultMaxSessionsPerPeer)
	setDefault(&c.MaxStatelessRequests, DefaultMaxStatelessRequests)
	setDefault(&c.MaxListenStreams, DefaultMaxListenStreams)
	setDefault(&c.MaxListenStreamsPerClient, DefaultMaxListenStreamsPerClient)
	setDefault(&c.SSERetry, DefaultSSERetry)
	setDefault(&c.KeepAlive, DefaultKeepAlive)
	return c
}

// setDefault sets *p to def when *p is the zero value.
func setDefault[T comparable](p *T, def T) {
	var zero T
	if *p == zero {
		*p = def
	}
}
