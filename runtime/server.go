package runtime

// server.go: Server and Options: NewServer, the defaults, the capabilities and the
// discovery document.

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/ledger"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
	"github.com/mcpgen/mcpgen/runtime/store"
)

// Defaults for the zero values of Options.
const (
	defaultPageSize      = 100
	defaultCacheTTL      = time.Minute
	defaultMaxConcurrent = 64
	defaultDrainTimeout  = 10 * time.Second
	defaultCallTimeout   = 10 * time.Minute
)

// Implementation names a program: the server itself or a client.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Options configure a Server. The zero value (and nil) selects the defaults.
type Options struct {
	// Instructions tell the model how to use the server; sent by initialize and
	// server/discover.
	Instructions string
	// Logger receives the server's own logs. Nil means a text logger on stderr whose
	// level SetLogLevel sets (runtime/serve's -log-level). Nothing but protocol messages ever goes to stdout.
	Logger *slog.Logger
	// PageSize is the number of tools per tools/list page; 0 means 100.
	PageSize int
	// CacheTTL is the ttlMs hint of cacheable 2026-07-28 results (tools/list,
	// server/discover); 0 means one minute, a negative value means 0 (always stale).
	CacheTTL time.Duration
	// MaxConcurrentRequests bounds the requests a stdio connection or a 2025-11-25
	// HTTP session runs at once; 0 means 64. On stdio up to 16 times as many wait for
	// a slot; over HTTP nothing waits. A request beyond that is answered with -32603
	// "server busy: too many requests in flight" (over HTTP with status 503).
	// 2026-07-28 HTTP requests have no session: HTTPOptions.MaxStatelessRequests
	// bounds them.
	MaxConcurrentRequests int
	// DrainTimeout bounds how long a stopping transport waits for in-flight requests
	// before cancelling them; 0 means 10 seconds.
	DrainTimeout time.Duration
	// CallTimeout bounds how long a tools/call handler may run: at the deadline its
	// context is cancelled and the call is answered with an isError result at once,
	// even when the handler ignores its context (it is then left to finish on its
	// own). 0 means 10 minutes; a negative value means no deadline.
	CallTimeout time.Duration
	// StateKeys seal the requestState of 2026-07-28 input_required results (AES-GCM,
	// keys derived from these secrets of at least 16 bytes): the first seals, every one
	// opens, so keys can be rotated. Empty means the StateKeyEnv variable, else a
	// random key for this process (replicas then cannot finish each other's rounds).
	StateKeys [][]byte
	// StateTTL is how long a requestState stays valid; 0 means 10 minutes.
	StateTTL time.Duration
	// InputTimeout bounds how long a 2025-11-25 handler waits for the client to answer
	// a question (elicitation, sampling, roots); 0 means 5 minutes.
	InputTimeout time.Duration
	// MaxInputRounds bounds the input_required rounds of one request; 0 means 10.
	MaxInputRounds int
	// StdioPrincipal is the caller of every stdio request (the process runs with the
	// user's own authority, so there is no OAuth on stdio). Nil means one holding
	// every scope (UnrestrictedPrincipal("stdio")); set one to narrow a server's
	// powers, e.g. from the environment.
	StdioPrincipal *Principal
	// ScopeImplies is the scope hierarchy: whether a granted scope satisfies a
	// required one. Nil means ScopeImplies (a scope implies those extending it
	// after a ':').
	ScopeImplies func(granted, required string) bool
	// HideUnauthorized lists only the tools the caller holds the scopes for (some
	// value of each {field}), and only the resources, resource templates and
	// prompts whose scopes it holds; such lists vary by caller, so 2026-07-28
	// results say cacheScope "private". False lists everything: callers step up
	// when they call.
	HideUnauthorized bool

	// Store holds the idempotency ledger of tools that take an idempotency key
	// (effects.go, idempotency.go). Nil means a new in-memory store; replicas
	// behind a load balancer need a shared one (runtime/store/redisstore; serve.Main's
	// -store flag). A Store given here (or by SetStore) that implements
	// store.PubSub also carries change notifications to the clients of the
	// other replicas (subscriptions.go).
	Store store.Store
	// IdempotencyRetention is how long a call's idempotency key and result are
	// kept; 0 means 24 hours.
	IdempotencyRetention time.Duration
	// IdempotencyWait bounds how long a repeat of a call that is still running
	// waits for its result before it is answered in_progress; 0 means 10 seconds.
	IdempotencyWait time.Duration
	// IdempotencyLease is how long a running call's claim on its key lasts
	// without renewal; the runtime renews it while the handler runs. A claim
	// left to lapse (its process died, or its handler was abandoned at
	// CallTimeout) makes a repeat outcome_unknown; 0 means 5 seconds.
	IdempotencyLease time.Duration
	// The Task options configure the tasks extension (runtime/tasks).
	//
	// TaskTTL is how long a task and its result are kept when the client
	// asks for no TTL; 0 means one hour. TaskMaxTTL caps any TTL (0: 24
	// hours); requested TTLs below one second are raised to it.
	TaskTTL, TaskMaxTTL time.Duration
	// TaskPollInterval is the pollIntervalMs tasks suggest; 0 means 500 ms.
	TaskPollInterval time.Duration
	// TaskLease is how long a task's claim by the instance running it lasts
	// without renewal (renewed while the handler runs); a task whose lease
	// lapses is marked failed by the next instance that reads it. 0 means
	// the MCP_TASK_LEASE variable (runtime/tasks.LeaseEnv), else 15 s.
	TaskLease time.Duration
	// TaskThreshold is how long a call of a TaskOptional or TaskRequired tool
	// runs as a plain call before it becomes a task; 0 means 100 ms, a
	// negative value makes the task at once.
	TaskThreshold time.Duration
	// MaxTasks bounds the task handlers running at once in this server; a call
	// that would start one more is answered -32603 "server busy". 0 means 1000.
	MaxTasks int

	// Audit, when set, receives one record per request (audit.go): ids, digests,
	// outcome and durations, never arguments or tokens. Nil (the default) means
	// no audit trail; serve.Main's -audit flag sets a JSON logger on stderr.
	Audit *slog.Logger
}

// A Server holds the registered tools and serves them over any transport. Its methods
// are safe for concurrent use; tools may be added while serving.
type Server struct {
	info     Implementation
	opts     Options
	logger   *slog.Logger
	logLevel *slog.LevelVar // level of the default logger; nil with Options.Logger

	serverInfoMeta json.RawMessage // {"io.modelcontextprotocol/serverInfo":{...}}
	ttlMs          int64

	sealer *seal.Sealer // requestState keys
	forms  sync.Map     // reflect.Type of a form -> its requestedSchema (AddForm)

	deadlines *deadlineWatch // tools/call deadlines (deadline.go)

	// mu serialises AddTool; readers load tools without locking.
	mu    sync.Mutex
	tools toolsRef // registry.go

	// prims holds resources, templates, prompts and change subscriptions
	// (primitives.go).
	prims primitives

	store  store.Store    // Options.Store or SetStore's (Store)
	ledger *ledger.Ledger // the idempotency ledger, on Options.Store
	audit  *slog.Logger   // Options.Audit; nil: no audit records

	exts atomic.Pointer[extSet] // the registered extensions (extension.go); nil: none
	life extLifecycle           // their Start and Shutdown, once each
}

// NewServer returns a server that identifies itself as info. opts may be nil.
func NewServer(info Implementation, opts *Options) *Server {
	s := &Server{info: info, deadlines: newDeadlineWatch()}
	if opts != nil {
		s.opts = *opts
	}
	s.applyDefaults()
	s.prims.hub.Log = s.logger // change notifications not delivered (subscriptions.go)
	s.sealer = seal.New(s.opts.StateKeys, s.opts.StateTTL, s.logger)
	s.tools.Init()
	s.serverInfoMeta = mustMarshal(map[string]Implementation{metaServerInfo: info})
	if opts != nil && opts.Store != nil {
		s.setFanout(opts.Store) // a store given is shared: changes reach the other replicas (subscriptions.go)
	}
	return s
}

// applyDefaults fills the zero values of the options.
func (s *Server) applyDefaults() {
	o := &s.opts
	if o.Logger == nil {
		s.logLevel = new(slog.LevelVar)
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: s.logLevel}))
	}
	s.logger = o.Logger
	if o.PageSize <= 0 {
		o.PageSize = defaultPageSize
	}
	if o.MaxConcurrentRequests <= 0 {
		o.MaxConcurrentRequests = defaultMaxConcurrent
	}
	if o.CallTimeout == 0 {
		o.CallTimeout = defaultCallTimeout
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = defaultDrainTimeout
	}
	if o.InputTimeout <= 0 {
		o.InputTimeout = defaultInputTimeout
	}
	if o.MaxInputRounds <= 0 {
		o.MaxInputRounds = defaultMaxInputRounds
	}
	s.applyEffectDefaults() // effects.go
	switch {
	case o.CacheTTL == 0:
		s.ttlMs = defaultCacheTTL.Milliseconds()
	case o.CacheTTL > 0:
		s.ttlMs = o.CacheTTL.Milliseconds()
	}
}

// Info returns the implementation the server identifies itself as.
func (s *Server) Info() Implementation { return s.info }

// Logger returns the logger the server writes its own logs to (never stdout).
func (s *Server) Logger() *slog.Logger { return s.logger }

// SetLogLevel sets the minimum level of the server's own logs when they go to
// its default logger (Options.Logger nil), as runtime/serve's -log-level
// does; with a Logger of your own it does nothing.
func (s *Server) SetLogLevel(level slog.Level) {
	if s.logLevel != nil {
		s.logLevel.Set(level)
	}
}

// supportedVersions lists every version served, modern first.
func supportedVersions() []string { return []string{versionModern, versionLegacy} }

// capabilities returns the server capabilities, the same in both eras.
func (s *Server) capabilities() map[string]any {
	caps := map[string]any{
		"tools":   map[string]any{},
		"logging": map[string]any{},
	}
	s.primitiveCapabilities(caps)
	return caps
}

// advertised returns the capabilities sent to a client of revision: the
// core's and the extensions' (extension.go).
func (s *Server) advertised(revision string) map[string]any {
	caps := s.capabilities()
	if x := s.exts.Load(); x != nil {
		x.advertise(revision, caps)
	}
	return caps
}

// discoverResult is the body of a server/discover result.
type discoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      map[string]any  `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	TTLMs             int64           `json:"ttlMs"`
	CacheScope        string          `json:"cacheScope"`
	ResultType        string          `json:"resultType"`
	Meta              json.RawMessage `json:"_meta"`
}

// buildDiscover serialises the server/discover result; it changes only when the
// first resource, template or prompt is registered.
func (s *Server) buildDiscover() []byte {
	return mustMarshal(discoverResult{
		SupportedVersions: supportedVersions(),
		Capabilities:      s.advertised(versionModern),
		Instructions:      s.opts.Instructions,
		TTLMs:             s.ttlMs,
		CacheScope:        "public",
		ResultType:        "complete",
		Meta:              s.serverInfoMeta,
	})
}

// mustMarshal encodes values whose encoding cannot fail (plain maps and structs).
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcpgen runtime: encode %T: %v", v, err))
	}
	return b
}
