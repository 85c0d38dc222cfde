package httpcheck

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// OriginAllowed reports whether an Origin header value may reach the server.
// An absent Origin (non-browser clients) is allowed; a present one must be a
// loopback origin or listed in allowed ("*" allows any). The literal "null"
// origin (sandboxed documents, file://) is rejected unless "*" is listed.
func OriginAllowed(origin string, allowed []string) bool {
	if origin == "" || slices.Contains(allowed, "*") {
		return true
	}
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopbackHost(u.Hostname())
}

// HostAllowed reports whether a Host header value names this server: a
// loopback host with any port, or an entry of allowed (host or host:port;
// "*" allows any). Checking Host defeats DNS rebinding even for clients
// that send no Origin.
func HostAllowed(host string, allowed []string) bool {
	if slices.Contains(allowed, "*") {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	for _, a := range allowed {
		if strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return IsLoopbackHost(name)
}

// IsLoopbackHost reports whether name (no port, no brackets) is localhost or
// a loopback IP address.
func IsLoopbackHost(name string) bool {
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if strings.EqualFold(name, "localhost") {
		return true
	}
	addr, err := netip.ParseAddr(name)
	return err == nil && addr.Unmap().IsLoopback()
}
