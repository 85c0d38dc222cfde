package serve

// help.go: what Main says about the server it runs: the -h catalog (tools,
// resources, templates, prompts) and the start-up warning of an HTTP server
// whose scoped tools no caller can reach.

import (
	"fmt"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// servedLines are the lines -h prints about what s serves: one per kind that
// has entries, "tools: a, b" and so on.
func servedLines(s *mcpruntime.Server) []string {
	var lines []string
	add := func(kind string, names []string) {
		if len(names) > 0 {
			lines = append(lines, kind+": "+strings.Join(names, ", "))
		}
	}
	add("tools", namesOf(s.Tools(), func(t *mcpruntime.Tool) string { return t.Name }))
	add("resources", namesOf(s.Resources(), func(r *mcpruntime.Resource) string { return r.URI }))
	add("resource templates", namesOf(s.ResourceTemplates(), func(t *mcpruntime.ResourceTemplate) string { return t.URITemplate }))
	add("prompts", namesOf(s.Prompts(), func(p *mcpruntime.Prompt) string { return p.Name }))
	return lines
}

// namesOf is the name of each of xs.
func namesOf[T any](xs []T, name func(T) string) []string {
	names := make([]string, 0, len(xs))
	for _, x := range xs {
		names = append(names, name(x))
	}
	return names
}

// unauthenticatedWarning is the start-up warning of Main serving HTTP with
// no authentication (no -auth-issuer) and no MCP_ANONYMOUS_SCOPES: every
// caller is anonymous, so the tools, resources and prompts that need scopes
// can never succeed. "" when nothing needs a scope.
func unauthenticatedWarning(s *mcpruntime.Server, opts *mcpruntime.HTTPOptions) string {
	if opts != nil && (opts.Mount != nil || opts.AnonymousPrincipal != nil) {
		return ""
	}
	var scoped []string
	for _, t := range s.Tools() {
		if len(t.Scopes) > 0 {
			scoped = append(scoped, "tool "+t.Name+" ("+strings.Join(t.Scopes, " ")+")")
		}
	}
	for _, r := range s.Resources() {
		if len(r.Scopes) > 0 {
			scoped = append(scoped, "resource "+r.URI)
		}
	}
	for _, t := range s.ResourceTemplates() {
		if len(t.Scopes) > 0 {
			scoped = append(scoped, "resource template "+t.URITemplate)
		}
	}
	for _, p := range s.Prompts() {
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
