package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Spacing of fetches from the authorization server after a failed one: the
// first retry is allowed after minRetry, each further failure doubles the wait
// up to maxRetry. A recovered server is used within that time; a failing one
// gets one attempt per wait, however many requests arrive.
const (
	minRetry     = time.Second
	maxRetry     = 16 * time.Second
	fetchTimeout = 30 * time.Second // bounds one fetch even with a client without timeout
)

// backoff is the wait after n consecutive failures (n >= 1).
func backoff(n int) time.Duration {
	d := minRetry
	for i := 1; i < n && d < maxRetry; i++ {
		d *= 2
	}
	return min(d, maxRetry)
}

// An unavailableError is why a request cannot be verified now: the
// authorization server cannot be reached and nothing cached answers. It is
// answered 503 with Retry-After.
type unavailableError struct {
	retry time.Duration // until the next attempt
	err   error
}

func (e *unavailableError) Error() string {
	return "the authorization server cannot be reached: " + e.err.Error()
}

func (e *unavailableError) Unwrap() error { return e.err }

// A flight runs one fetch at a time (callers arriving meanwhile wait for it
// rather than fetch again) without holding a lock over the network I/O, and
// spaces failed fetches: until the backoff after a failure ends, callers get
// the last failure at once.
type flight struct {
	mu       sync.Mutex
	call     *flightCall // the fetch running, if any
	failures int         // consecutive failures
	retryAt  time.Time   // no fetch before this (after a failure)
	lastErr  error
}

type flightCall struct {
	done chan struct{}
	err  error
}

// do runs fetch (or waits for the one running) and returns its error as an
// *unavailableError. The fetch does not end with ctx (another caller may be
// waiting for it); it is bounded by fetchTimeout. A caller whose ctx ends
// stops waiting.
func (f *flight) do(ctx context.Context, now func() time.Time, fetch func(context.Context) error) error {
	f.mu.Lock()
	c := f.call
	if c == nil {
		if t := now(); t.Before(f.retryAt) {
			err := &unavailableError{retry: f.retryAt.Sub(t), err: f.lastErr}
			f.mu.Unlock()
			return err
		}
		c = &flightCall{done: make(chan struct{})}
		f.call = c
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		go func() {
			defer cancel()
			err := fetch(fctx)
			f.mu.Lock()
			if err != nil {
				var inner *unavailableError
				if errors.As(err, &inner) {
					err = inner.err
				}
				f.failures++
				wait := backoff(f.failures)
				f.retryAt, f.lastErr = now().Add(wait), err
				c.err = &unavailableError{retry: wait, err: err}
			} else {
				f.failures, f.retryAt, f.lastErr = 0, time.Time{}, nil
			}
			f.call = nil
			f.mu.Unlock()
			close(c.done)
		}()
	}
	f.mu.Unlock()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkEndpoint refuses an authorization server URL that is not https,
// unless it is http to a loopback host (a local test issuer) or allowHTTP
// says plain HTTP is wanted.
func checkEndpoint(what, raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("auth: %s %q is not a URL", what, raw)
	}
	switch {
	case u.Host == "" || u.User != nil || u.Fragment != "":
		return fmt.Errorf("auth: %s %q is not an absolute URL without user info and fragment", what, raw)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && (allowHTTP || isLoopback(u.Hostname())):
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("auth: %s %q uses plain HTTP to a host that is not loopback: tokens and keys could be "+
			"read or replaced on the way; use https, or allow it explicitly (Config.AllowInsecureHTTP, -auth-allow-http)", what, raw)
	}
	return fmt.Errorf("auth: %s %q is not an https URL", what, raw)
}

// isLoopback reports whether host is localhost or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
