package gen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/model"
)

// The vendored schemas (spec artifacts, unchanged):
//
//   - testdata/registry/server.schema.2025-12-11.json is the MCP registry's
//     server.json schema, published at
//     https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json;
//     copied from github.com/modelcontextprotocol/registry,
//     internal/validators/schemas/2025-12-11.json (the copy its validator
//     uses; commit 1201cbd82b2cf6d4b56edfc05c763059a12f9fdb).
//   - testdata/registry/server-card.schema.json is the Server Card schema of
//     SEP-2127, github.com/modelcontextprotocol/experimental-ext-server-card,
//     schema.json (commit 92999cb3f5d82e648385cb92ce41ed9aa1386eda); the card
//     is its $defs/ServerCard.
const (
	registrySchemaFile = "testdata/registry/server.schema.2025-12-11.json"
	cardSchemaFile     = "testdata/registry/server-card.schema.json"
)

// compileFile compiles the schema in file at fragment ("" for the root).
func compileFile(t *testing.T, file, fragment string) *sjs.Schema {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := sjs.NewCompiler()
	c.AssertFormat()
	url := "file:///" + filepath.Base(file)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url + fragment)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validateJSON validates data against s.
func validateJSON(s *sjs.Schema, data []byte) error {
	v, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestExamplesServerJSON generates the examples and validates every
// server.json against the registry's official schema and every Server Card
// against the card schema; the committed server.json files must be what the
// generator writes, and the examples must pass -lint=marketplace.
func TestExamplesServerJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the examples; skipped in -short mode")
	}
	registry := compileFile(t, registrySchemaFile, "")
	card := compileFile(t, cardSchemaFile, "#/$defs/ServerCard")
	root := moduleRoot(t)
	res, err := gen.Generate(context.Background(), gen.Config{Dir: root, Patterns: []string{"./examples/..."}, Lint: []string{"marketplace"}})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("generate examples with -lint=marketplace: %v %v", err, res.Diagnostics)
	}
	for i, p := range res.Model.Packages {
		// Every tool of every example states its four hints.
		if got := bytes.Count(res.Files[i].Content, []byte("Stated: true}")); got != len(p.Tools) {
			t.Errorf("%s: %d tools state their hints, want all %d", p.Path, got, len(p.Tools))
		}
	}
	n := 0
	for _, p := range res.Model.Packages {
		if p.Registry == nil {
			continue
		}
		n++
		if err := validateJSON(registry, p.Registry.ServerJSON); err != nil {
			t.Errorf("%s: server.json does not validate against the registry schema: %v", p.Path, err)
		}
		if err := validateJSON(card, p.Registry.Card); err != nil {
			t.Errorf("%s: Server Card does not validate against the card schema: %v", p.Path, err)
		}
		checkCardPublic(t, p.Path, p.Registry.Card, p.Tools)
		onDisk, err := os.ReadFile(p.Registry.ServerJSONPath)
		if err != nil || !bytes.Equal(onDisk, p.Registry.ServerJSON) {
			t.Errorf("%s: committed server.json is stale or missing (%v): run go generate", p.Path, err)
		}
	}
	if n < 2 {
		t.Fatalf("%d example packages with //mcp:server, want at least 2 (notes, incidents)", n)
	}
}

// checkCardPublic fails when a Server Card says more than the protected
// resource metadata publishes: only identity, description and where to
// connect (no packages, no scopes, no authorization server, no header values).
func checkCardPublic(t *testing.T, pkg string, card []byte, tools []*model.Tool) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatalf("%s: card: %v", pkg, err)
	}
	allowed := map[string]bool{"$schema": true, "name": true, "title": true, "description": true, "version": true,
		"websiteUrl": true, "repository": true, "remotes": true}
	for k := range m {
		if !allowed[k] {
			t.Errorf("%s: the card has %q, which is not public metadata", pkg, k)
		}
	}
	for _, r := range asList(m["remotes"]) {
		for _, h := range asList(r.(map[string]any)["headers"]) {
			if _, ok := h.(map[string]any)["value"]; ok {
				t.Errorf("%s: the card gives a header value: %v", pkg, h)
			}
		}
	}
	for _, tool := range tools {
		for _, sc := range tool.Scopes {
			if prefix, _, _ := strings.Cut(sc, "{"); strings.Contains(string(card), prefix) {
				t.Errorf("%s: the card mentions the scope %q", pkg, sc)
			}
		}
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// TestRegistrySchemaCatches shows the validation failing: documents the
// registry refuses are refused here too.
func TestRegistrySchemaCatches(t *testing.T) {
	registry := compileFile(t, registrySchemaFile, "")
	card := compileFile(t, cardSchemaFile, "#/$defs/ServerCard")
	good := `{"$schema":"` + gen.ServerJSONSchema + `","name":"io.github.a/b","description":"d","version":"1.0.0"}`
	if err := validateJSON(registry, []byte(good)); err != nil {
		t.Fatalf("minimal server.json refused: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(good, "io.github.a/b", "no-slash", 1),
		strings.Replace(good, `"d"`, `"`+strings.Repeat("x", 101)+`"`, 1),
		strings.Replace(good, `}`, `,"packages":[{"registryType":"oci","identifier":"x"}]}`, 1), // no transport
	} {
		if validateJSON(registry, []byte(bad)) == nil {
			t.Errorf("registry schema accepted %s", bad)
		}
	}
	noName := `{"$schema":"` + gen.ServerCardSchema + `","description":"d","version":"1.0.0"}`
	if validateJSON(card, []byte(noName)) == nil {
		t.Errorf("card schema accepted a card without a name")
	}
}
