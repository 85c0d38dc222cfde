package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const scopedHandlers = `package p

import "context"

// In is the input.
type In struct {
	// Title names the thing.
	Title string ` + "`json:\"title\"`" + `
}

// Create creates a thing.
//
//mcp:tool destructive scope="things:write"
func Create(ctx context.Context, in In) (string, error) { return in.Title, nil }
`

// TestGoSumHint: a server main that imports runtime/auth (a scope= on a tool)
// in a module whose go.sum lacks go-jose's hash says to run go mod tidy; with
// the hash there, it says nothing.
func TestGoSumHint(t *testing.T) {
	dir := newModule(t, scopedHandlers)
	sumPath := filepath.Join(dir, "go.sum")
	full, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	// What go get -tool leaves: go-jose's go.mod hash only.
	stripped := regexp.MustCompile(`(?m)^github.com/go-jose/go-jose/v4 v\S+ h1:.*\n`).ReplaceAll(full, nil)
	if err := os.WriteFile(sumPath, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := mcpgen(t, dir, "-server", "./cmd/p-server")
	want := "cmd/p-server/main.go imports github.com/mcpgen/mcpgen/runtime/auth, which needs github.com/go-jose/go-jose/v4, not in go.sum yet: run go mod tidy"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("stripped go.sum: exit %d, stderr %q; want 0 and %q", code, stderr, want)
	}
	if err := os.WriteFile(sumPath, full, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "cmd/p-server/main.go")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mcpgen(t, dir, "-server", "./cmd/p-server"); code != 0 || strings.Contains(stderr, "go mod tidy") {
		t.Errorf("full go.sum: exit %d, stderr %q; want no hint", code, stderr)
	}
}
