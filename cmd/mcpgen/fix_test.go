package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sdkHandlers is a package in the official Go SDK's tag style.
const sdkHandlers = `package p

import "context"

// In is the input.
type In struct {
	City string ` + "`json:\"city\" jsonschema:\"the city, e.g. Paris\"`" + `
	Days int    ` + "`json:\"days,omitempty\" jsonschema:\"how many days ahead\"`" + `
}

// Forecast forecasts.
//
//mcp:tool
func Forecast(ctx context.Context, in In) (string, error) { return in.City, nil }
`

// TestForeignTags runs mcpgen on a package in the official Go SDK's style:
// without -tags, one error per field and nothing written; with
// -tags=gosdk, the SDK's descriptions; with -fix, rewritten sources that
// then generate the same file without -tags.
func TestForeignTags(t *testing.T) {
	dir := newModule(t, sdkHandlers)
	code, _, stderr := mcpgen(t, dir)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || len(lines) != 2 ||
		!strings.HasPrefix(lines[0], `handlers.go:7:2: field In.City: jsonschema:"the city, e.g. Paris" is a description in the official Go SDK's style`) ||
		!strings.Contains(lines[1], "write instead the doc comment \"// how many days ahead\" and the tag `json:\"days,omitempty\"`") {
		t.Fatalf("without -tags: exit %d, stderr:\n%s\nwant exit 1 and one diagnostic per field", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mcp_gen.go")); err == nil {
		t.Fatal("mcp_gen.go written despite diagnostics")
	}

	if code, _, stderr := mcpgen(t, dir, "-tags=gosdk"); code != 0 {
		t.Fatalf("-tags=gosdk: exit %d, stderr:\n%s", code, stderr)
	}
	withTags, err := os.ReadFile(filepath.Join(dir, "mcp_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(withTags), `"description": "the city, e.g. Paris"`) {
		t.Errorf("-tags=gosdk: the SDK's description is missing:\n%s", withTags)
	}
	os.Remove(filepath.Join(dir, "mcp_gen.go"))

	code, _, stderr = mcpgen(t, dir, "-fix")
	if code != 0 || !strings.Contains(stderr, "mcpgen: -fix: rewrote struct tags in handlers.go") {
		t.Fatalf("-fix: exit %d, stderr:\n%s", code, stderr)
	}
	src, err := os.ReadFile(filepath.Join(dir, "handlers.go"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\t// the city, e.g. Paris\n\tCity string `json:\"city\"`\n"; !strings.Contains(string(src), want) {
		t.Errorf("-fix: handlers.go is\n%s\nwant it to contain\n%s", src, want)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "mcp_gen.go"))
	if err != nil || string(fixed) != string(withTags) {
		t.Errorf("-fix then generate gave (err %v)\n%s\nwant what -tags=gosdk gave\n%s", err, fixed, withTags)
	}
	if code, _, stderr := mcpgen(t, dir, "-check"); code != 0 {
		t.Errorf("-check after -fix: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestForeignTagsUsage(t *testing.T) {
	dir := newModule(t, goodHandlers)
	for _, args := range [][]string{{"-tags=invopop"}, {"-fix", "-check"}} {
		code, _, stderr := mcpgen(t, dir, args...)
		if code != 2 || stderr == "" {
			t.Errorf("mcpgen %v: exit %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}
