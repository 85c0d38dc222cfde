package auth

import (
	"strings"
	"sync"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Bounds of the verified-JWT cache.
const (
	maxVerified      = 4096
	maxVerifiedBytes = 4 << 20 // the tokens kept, together
	verifiedMaxAge   = 5 * time.Minute
)

// A verifiedCache remembers JWTs whose signature and claims were verified, keyed
// by the token itself, until the earlier of their expiry and verifiedMaxAge: a
// client sends the same token with every request, and one RSA or ECDSA
// verification per token is enough. The claims that depend on time (exp) are
// checked again on every hit.
//
// The key is the token string (a map hashes it far faster than SHA-256 did, and
// the token is in the request's memory anyway). It is kept only here: never
// logged, never in an error, never handed to anything else. The cache holds at
// most maxVerified tokens and maxVerifiedBytes of them.
type verifiedCache struct {
	mu    sync.Mutex
	m     map[string]verifiedEntry
	bytes int // total length of the keys
}

type verifiedEntry struct {
	p     *mcpruntime.Principal
	until time.Time
}

// get returns the principal of a token verified before, or nil.
func (c *verifiedCache) get(token string, now time.Time) *mcpruntime.Principal {
	c.mu.Lock()
	e, ok := c.m[token]
	if ok && !now.Before(e.until) {
		delete(c.m, token)
		c.bytes -= len(token)
		ok = false
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return e.p
}

// put remembers a verified token.
func (c *verifiedCache) put(token string, p *mcpruntime.Principal, now time.Time) {
	if len(token) > maxVerifiedBytes {
		return
	}
	until := now.Add(verifiedMaxAge)
	if p.Expiry.Before(until) {
		until = p.Expiry
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]verifiedEntry{}
	}
	if _, ok := c.m[token]; ok {
		c.m[token] = verifiedEntry{p: p, until: until}
		return
	}
	if len(c.m) >= maxVerified || c.bytes+len(token) > maxVerifiedBytes {
		for k, e := range c.m { // drop the expired, else arbitrary ones until it fits
			if !now.Before(e.until) || len(c.m) >= maxVerified || c.bytes+len(token) > maxVerifiedBytes {
				delete(c.m, k)
				c.bytes -= len(k)
			}
		}
	}
	// A copy: the key must not hold on to the request's header memory.
	c.m[strings.Clone(token)] = verifiedEntry{p: p, until: until}
	c.bytes += len(token)
}
