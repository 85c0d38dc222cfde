// Package bench serves the two tools of the cross-server benchmark in
// ../shared/bench: add and search_notes over a fixed corpus of 200 note lines.
// Every reference server there implements the same tools, so the comparison
// measures only the MCP plumbing; this package is the mcpgen side of it.
//
// mcp_gen.go and cmd/bench-server are generated: run go generate in this
// directory after changing a handler. scripts/bench.sh runs the comparison.
package bench

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/bench-server

import (
	"context"
	"strings"
)

// AddInput holds the two addends.
type AddInput struct {
	// A is the first addend.
	A int `json:"a"`
	// B is the second addend.
	B int `json:"b"`
}

// AddOutput holds the sum.
type AddOutput struct {
	// Sum is A + B.
	Sum int `json:"sum"`
}

// Add adds two integers and returns their sum.
//
//mcp:tool add readonly idempotent openworld=false
func Add(_ context.Context, in AddInput) (AddOutput, error) {
	return AddOutput{Sum: in.A + in.B}, nil
}

// SearchInput selects lines of the corpus.
type SearchInput struct {
	// Keyword is the case-insensitive substring to look for.
	Keyword string `json:"keyword" jsonschema:"minLength=1"`
	// Limit is the maximum number of hits (1..50, default 10).
	Limit int `json:"limit,omitempty" jsonschema:"default=10,minimum=1,maximum=50"`
}

// A Hit is one matching corpus line.
type Hit struct {
	// File is the note the line belongs to, e.g. notes/2025-01.md.
	File string `json:"file"`
	// Line is the 1-based line number in File.
	Line int `json:"line"`
	// Text is the line.
	Text string `json:"text"`
}

// SearchOutput lists at most Limit hits in corpus order, and how many lines
// matched in all.
type SearchOutput struct {
	Hits []Hit `json:"hits"`
	// Total is the number of matching lines, hits beyond Limit included.
	Total int `json:"total"`
}

// SearchNotes searches the built-in notes corpus for lines containing a
// keyword (case-insensitive).
//
//mcp:tool search_notes readonly idempotent openworld=false
func SearchNotes(_ context.Context, in SearchInput) (SearchOutput, error) {
	c := corpus()
	kw := strings.ToLower(in.Keyword)
	out := SearchOutput{Hits: []Hit{}}
	for i, l := range c.lower {
		if strings.Contains(l, kw) {
			if len(out.Hits) < in.Limit {
				out.Hits = append(out.Hits, c.lines[i])
			}
			out.Total++
		}
	}
	return out, nil
}
