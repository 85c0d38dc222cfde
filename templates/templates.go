// Package templates holds the text/template sources of mcpgen's artifacts that
// are not generated Go code: the Markdown catalog written by mcpgen -docs
// (catalog.md.tmpl) and the files mcpgen init scaffolds (init/*.tmpl).
//
// Each template documents its data in a leading comment action; the data types
// live in cmd/mcpgen, next to the code that executes them.
package templates

import "embed"

// FS holds every template, by path relative to this directory.
//
//go:embed *.tmpl init/*.tmpl
var FS embed.FS
