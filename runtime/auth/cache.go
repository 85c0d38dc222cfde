package auth

import (
	"crypto/sha256"
	"io"
	"sync"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Bounds of the verified-JWT cache.
const (
	maxVerified    = 4096
	verifiedMaxAge = 5 * time.Minute
)

// A verifiedCache remembers JWTs whose signature and claims were verified, by
// their SHA-256 (the token itself is not kept), until the earlier of their expiry
// and verifiedMaxAge: a client sends the same token with every request, and one
// RSA or ECDSA verification per token is enough. The claims that depend on time
// (exp) are checked again on every hit.
type verifiedCache struct {
	mu sync.Mutex
	m  map[[32]byte]verifiedEntry
}

type verifiedEntry struct {
	p     *mcpruntime.Principal
	until time.Time
}

// get returns the principal of a token verified before, or nil.
func (c *verifiedCache) get(token string, now time.Time) *mcpruntime.Principal {
	key := digest(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return nil
	}
	if !now.Before(e.until) {
		delete(c.m, key)
		return nil
	}
	return e.p
}

// digest is the SHA-256 of a token, the cache key (the token is not kept).
func digest(token string) (key [32]byte) {
	h := sha256.New()
	_, _ = io.WriteString(h, token)
	h.Sum(key[:0])
	return key
}

// put remembers a verified token.
func (c *verifiedCache) put(token string, p *mcpruntime.Principal, now time.Time) {
	until := now.Add(verifiedMaxAge)
	if p.Expiry.Before(until) {
		until = p.Expiry
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]verifiedEntry{}
	}
	if len(c.m) >= maxVerified {
		for k, e := range c.m { // drop the expired, else an arbitrary one
			if !now.Before(e.until) || len(c.m) >= maxVerified {
				delete(c.m, k)
			}
		}
	}
	c.m[digest(token)] = verifiedEntry{p: p, until: until}
}
