// Package notes is the mcpgen example: one tool, search_notes, that finds
// lines in a small corpus of notes containing a keyword, case-insensitively.
//
// The registration code in mcp_gen.go and the server in cmd/notes-server are
// generated: run go generate in this directory after changing a handler. The
// //mcp:server line below is the registry metadata: go generate also writes
// server.json, and the server serves the same data as its Server Card.
//
//mcp:server name=io.github.mcpgen/notes title="Notes" version=0.1.0 description="Finds the lines of a small corpus of notes that mention a keyword." repository=https://github.com/mcpgen/mcpgen subfolder=examples/notes oci=ghcr.io/mcpgen/notes-server:0.1.0 remote=https://notes.example.com/mcp
package notes

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/notes-server

import (
	"bufio"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// corpus holds the notes the tool searches.
//
//go:embed corpus/*.md
var corpus embed.FS

// SearchInput selects lines of the notes.
type SearchInput struct {
	// Keyword is looked for in every line, ignoring case.
	Keyword string `json:"keyword" jsonschema:"minLength=1"`
	// Limit caps the number of matches returned.
	Limit int `json:"limit,omitempty" jsonschema:"default=10,minimum=1,maximum=100"`
}

// A Match is one line that contains the keyword.
type Match struct {
	// File is the note's file name, e.g. meeting.md.
	File string `json:"file"`
	// Line is the 1-based line number.
	Line int `json:"line"`
	// Text is the line without its newline.
	Text string `json:"text"`
}

// String formats m as file:line: text.
func (m Match) String() string { return fmt.Sprintf("%s:%d: %s", m.File, m.Line, m.Text) }

// SearchResult lists the matches in file and line order.
type SearchResult struct {
	Matches []Match `json:"matches"`
	// Truncated reports whether more lines matched than Limit allowed.
	Truncated bool `json:"truncated"`
}

// SearchNotes finds lines in the notes that contain a keyword,
// case-insensitively, and returns at most limit of them.
//
//mcp:tool search_notes title="Search notes" readonly idempotent openworld=false
func SearchNotes(ctx context.Context, in SearchInput) (SearchResult, error) {
	return search(ctx, corpus, "corpus", in)
}

// search scans every *.md file under dir of fsys in name order.
func search(ctx context.Context, fsys fs.FS, dir string, in SearchInput) (SearchResult, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return SearchResult{}, fmt.Errorf("list notes: %w", err)
	}
	res := SearchResult{Matches: []Match{}}
	keyword := strings.ToLower(in.Keyword)
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return SearchResult{}, err
		}
		if err := searchFile(fsys, name, keyword, in.Limit, &res); err != nil {
			return SearchResult{}, err
		}
	}
	return res, nil
}

// searchFile appends the matching lines of one file to res.
func searchFile(fsys fs.FS, name, keyword string, limit int, res *SearchResult) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read note: %w", err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for n := 1; sc.Scan(); n++ {
		if !strings.Contains(strings.ToLower(sc.Text()), keyword) {
			continue
		}
		if len(res.Matches) >= limit {
			res.Truncated = true
			return nil
		}
		res.Matches = append(res.Matches, Match{File: path.Base(name), Line: n, Text: sc.Text()})
	}
	return sc.Err()
}
