package runtime

// mainhelp.go: what Main says about the server it runs: the -h catalog (tools,
// resources, templates, prompts) and the start-up warning of an HTTP server
// whose scoped tools no caller can reach.

import (
	"fmt"
	"strings"
)

// servedLines are the lines -h prints about what s serves: one per kind that
// has entries, "tools: a, b" and so on.
func (s *Server) servedLines() []string {
	var lines []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			lines = append(lines, kind+": "+strings.Join(names, ", "))
		}
	}
	add("tools", s.toolNames())
	var names []string
	for _, r := range s.prims.Resources().All() {
		names = append(names, r.URI)
	}
	add("resources", names)
	names = nil
	for _, t := range s.prims.Templates().All() {
		names = append(names, t.URITemplate)
	}
	add("resource templates", names)
	names = nil
	for _, p := range s.prims.Prompts().All() {
		names = append(names, p.Name)
	}
	add("prompts", names)
	return lines
}

// unauthenticatedWarning is the start-up warning of Main serving HTTP with
// no authentication (no -auth-issuer) and no MCP_ANONYMOUS_SCOPES: every
// caller is anonymous, so the tools, resources and prompts that need scopes
// can never succeed. "" when nothing needs a scope.
func (s *Server) unauthenticatedWarning(opts *HTTPOptions) string {
	if opts != nil && (opts.Mount != nil || opts.AnonymousPrincipal != nil) {
		return ""
	}
	var scoped []string
	for _, e := range s.tools.Load().List() {
		if len(e.scopes) > 0 {
			scoped = append(scoped, "tool "+e.tool.Name+" ("+strings.Join(e.tool.Scopes, " ")+")")
		}
	}
	for _, r := range s.prims.Resources().All() {
		if len(r.Scopes) > 0 {
			scoped = append(scoped, "resource "+r.URI)
		}
	}
	for _, t := range s.prims.Templates().All() {
		if len(t.Scopes) > 0 {
			scoped = append(scoped, "resource template "+t.URITemplate)
		}
	}
	for _, p := range s.prims.Prompts().All() {
		if len(p.Scopes) > 0 {
			scoped = append(scoped, "prompt "+p.Name)
		}
	}
	if len(scoped) == 0 {
		return ""
	}
	return fmt.Sprintf("serving HTTP without authentication: callers are anonymous and hold no scope, so %s can never succeed; "+
		"start with -auth-issuer and -auth-audience (docs/auth.md), or for a private test set %s",
		strings.Join(scoped, ", "), AnonymousScopesEnv)
}
