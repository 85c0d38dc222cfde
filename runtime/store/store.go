// Package store is the small state store of the mcpgen runtime: the idempotency
// ledger of tool calls lives in it, and tasks will. A Store holds byte values under
// string keys, each with its own time to live, and changes them only atomically:
// put-if-absent, compare-and-set, delete. Memory (this package) is the embedded
// default; runtime/store/redisstore puts the same contract on Redis, so that
// replicas behind a load balancer share one ledger.
//
// Implementations register a URL scheme (Register) so that a generated main can
// pick one with -store URL without the runtime importing it.
package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// A Store is a key-value store with atomic writes and per-key expiry. A ttl of 0
// or less means the value never expires. Every method is safe for concurrent use.
type Store interface {
	// PutIfAbsent stores val under key unless the key holds a value; it reports
	// whether it stored it.
	PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
	// Get returns the value under key; ok is false when there is none (or it expired).
	Get(ctx context.Context, key string) (val []byte, ok bool, err error)
	// CompareAndSet replaces the value under key with val, and its expiry with ttl,
	// only if the key holds exactly old; it reports whether it did.
	CompareAndSet(ctx context.Context, key string, old, val []byte, ttl time.Duration) (bool, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Close releases the store's resources.
	Close() error
}

// An Owner is a Store that can keep a value without copying it, and share the
// value it holds with a reader (Memory does; a store on the network has nothing
// to save). Optional, for callers that never change a value once written or
// read (the idempotency ledger): they check for it with a type assertion.
type Owner interface {
	// PutIfAbsentOwned is PutIfAbsent keeping val itself: the caller must not
	// change val after a call that stored it.
	PutIfAbsentOwned(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
	// CompareAndSetOwned is CompareAndSet keeping val itself, under the same rule.
	CompareAndSetOwned(ctx context.Context, key string, old, val []byte, ttl time.Duration) (bool, error)
	// GetShared is Get returning the value the store holds: the caller must not
	// change it.
	GetShared(ctx context.Context, key string) (val []byte, ok bool, err error)
}

// A DigestStore is a Store that also takes a digest key, a prefix ending in ':'
// followed by a 160-bit digest in 40 lowercase hex digits (the idempotency
// ledger's keys), as the prefix and the digest's 20 bytes: the same entry as
// the key's string form, without its hex. Every value it is given or returns is
// a copy, so callers may reuse their buffers. Its methods never block and
// ignore their context's cancellation (the idempotency ledger passes a call's
// context, cancelled or not, as is). Its entries live in this process and end
// with it: the ledger holds a claim on it without a lease to renew, since no
// other process can find the claim of one that died. Optional (Memory
// implements it): callers check for it with a type assertion.
type DigestStore interface {
	PutIfAbsentDigest(ctx context.Context, prefix string, d *[20]byte, val []byte, ttl time.Duration) (bool, error)
	CompareAndSetDigest(ctx context.Context, prefix string, d *[20]byte, old, val []byte, ttl time.Duration) (bool, error)
	// GetDigest appends the value to dst.
	GetDigest(ctx context.Context, prefix string, d *[20]byte, dst []byte) (val []byte, ok bool, err error)
	DeleteDigest(ctx context.Context, prefix string, d *[20]byte) error
}

// A PubSub store also carries messages between the processes that share it (tasks
// will use it to wake waiters on other replicas). Optional: callers check for it
// with a type assertion.
type PubSub interface {
	// Publish sends msg to every current subscriber of channel.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe delivers the messages published on channel from now on, until ctx
	// is done; the returned channel is then closed.
	Subscribe(ctx context.Context, channel string) (<-chan []byte, error)
}

// An Opener opens a store from a URL such as redis://host:6379/0.
type Opener func(ctx context.Context, u *url.URL) (Store, error)

var (
	openersMu sync.Mutex
	openers   = map[string]Opener{
		"memory": func(context.Context, *url.URL) (Store, error) { return NewMemory(), nil },
	}
)

// Register makes a store implementation available to Open under a URL scheme
// (redisstore registers "redis" and "rediss" when imported).
func Register(scheme string, open Opener) {
	openersMu.Lock()
	defer openersMu.Unlock()
	openers[scheme] = open
}

// redactUserinfo replaces the user info of a URL, parseable or not, by
// "xxxxx" (the host cannot hold an "@", so everything before the last one
// after "://" is user info).
func redactUserinfo(raw string) (string, bool) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw, false
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 && !strings.Contains(rest[i:], "@") {
		auth = rest[:i]
	}
	at := strings.LastIndex(auth, "@")
	if at < 0 {
		return raw, false
	}
	return scheme + "://xxxxx" + rest[at:], true
}

// ErrUnknownScheme reports a store URL whose scheme no imported package registered.
var ErrUnknownScheme = errors.New("unknown store scheme")

// Open opens the store rawURL names: "memory" (or "memory:") for a new in-memory
// store, or a URL whose scheme an imported implementation registered.
func Open(ctx context.Context, rawURL string) (Store, error) {
	if rawURL == "memory" {
		rawURL = "memory:"
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the whole URL, password included: say which
		// URL (without its user info) and, when it has none, why.
		redacted, hadUser := redactUserinfo(rawURL)
		if hadUser {
			return nil, fmt.Errorf("store URL %q does not parse (its user info is not shown)", redacted)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("store URL %q: %w", redacted, err)
	}
	openersMu.Lock()
	open := openers[u.Scheme]
	var known []string
	for s := range openers {
		known = append(known, s)
	}
	openersMu.Unlock()
	if open == nil {
		sort.Strings(known)
		return nil, fmt.Errorf("%w %q (known: %v; redis needs the package github.com/mcpgen/mcpgen/runtime/store/redisstore linked in: regenerate the server main with mcpgen -with redis, or import that package blank in main)", ErrUnknownScheme, u.Scheme, known)
	}
	return open(ctx, u)
}
