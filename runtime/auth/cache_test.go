package auth

import (
	"strconv"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// The verified-token cache keeps a token until the earlier of its expiry and
// verifiedMaxAge, and holds at most maxVerified tokens and maxVerifiedBytes.
func TestVerifiedCacheBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var c verifiedCache
	p := &mcpruntime.Principal{Subject: "s", Expiry: now.Add(time.Minute)}
	c.put("a.b.c", p, now)
	if c.get("a.b.c", now.Add(59*time.Second)) != p {
		t.Fatal("miss before expiry")
	}
	if c.get("a.b.c", now.Add(time.Minute)) != nil || len(c.m) != 0 || c.bytes != 0 {
		t.Fatalf("hit at expiry (%d entries, %d bytes)", len(c.m), c.bytes)
	}
	long := &mcpruntime.Principal{Subject: "s", Expiry: now.Add(time.Hour)}
	c.put("a.b.c", long, now)
	if c.get("a.b.c", now.Add(verifiedMaxAge)) != nil {
		t.Fatal("kept past verifiedMaxAge")
	}
	c = verifiedCache{}
	for i := range maxVerified + 10 {
		c.put("t."+strconv.Itoa(i)+".x", long, now)
	}
	if len(c.m) > maxVerified {
		t.Fatalf("%d entries", len(c.m))
	}
	c = verifiedCache{}
	big := strings.Repeat("x", maxTokenBytes)
	for i := range 2 * maxVerifiedBytes / maxTokenBytes {
		c.put(strconv.Itoa(i)+big, long, now)
	}
	sum := 0
	for k := range c.m {
		sum += len(k)
	}
	if sum != c.bytes || c.bytes > maxVerifiedBytes {
		t.Fatalf("%d bytes kept (counted %d), bound %d", sum, c.bytes, maxVerifiedBytes)
	}
	c.put(strings.Repeat("y", maxVerifiedBytes+1), long, now)
	if _, ok := c.m[strings.Repeat("y", maxVerifiedBytes+1)]; ok {
		t.Fatal("kept a token larger than the byte bound")
	}
}
