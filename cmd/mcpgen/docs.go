package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/template"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/templates"
)

// A catalog is the data of templates/catalog.md.tmpl.
type catalog struct {
	Title    string
	Packages []catalogPackage
}

type catalogPackage struct {
	Path      string
	Tools     []catalogTool
	Resources []*model.Resource
	Prompts   []*model.Prompt
}

type catalogTool struct {
	Name, Title, Description string
	Hints                    []string // annotation names, e.g. readOnlyHint
	Args                     []catalogArg
	Output                   string   // a phrase describing the result, or ""
	Scopes                   []string // scope templates, all required
	ScopeList                []string // every scope the templates can require
	Confirm                  string   // the consent question, or ""
	Task                     string   // "optional", "required" or ""
}

// A catalogArg is one row of a tool's argument table.
type catalogArg struct {
	Name, Type, Description string
	Required                bool
}

// writeCatalog renders the Markdown catalog of the program's tools, resources
// and prompts to path ("-" is stdout).
func writeCatalog(path, cwd string, prog *model.Program, stdout io.Writer) error {
	data, err := renderCatalog(prog)
	if err != nil {
		return err
	}
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	return writeAtomic(absPath(cwd, path), data)
}

// renderCatalog executes the catalog template.
func renderCatalog(prog *model.Program) ([]byte, error) {
	tmpl, err := template.ParseFS(templates.FS, "catalog.md.tmpl")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", gen.ErrInternal, err)
	}
	c := catalog{Title: "MCP catalog"}
	for _, p := range prog.Packages {
		cp := catalogPackage{Path: p.Path, Resources: p.Resources, Prompts: p.Prompts}
		for _, t := range p.Tools {
			ct, err := toolEntry(t)
			if err != nil {
				return nil, err
			}
			cp.Tools = append(cp.Tools, ct)
		}
		c.Packages = append(c.Packages, cp)
	}
	if len(c.Packages) == 1 {
		c.Title = "MCP catalog of package " + c.Packages[0].Path
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, c); err != nil {
		return nil, fmt.Errorf("%w: catalog: %v", gen.ErrInternal, err)
	}
	// The template is written for readability; squeeze the blank lines its
	// optional sections leave.
	out := buf.Bytes()
	for bytes.Contains(out, []byte("\n\n\n")) {
		out = bytes.ReplaceAll(out, []byte("\n\n\n"), []byte("\n\n"))
	}
	return out, nil
}

// toolEntry describes one tool for the catalog.
func toolEntry(t *model.Tool) (catalogTool, error) {
	ct := catalogTool{Name: t.Name, Title: t.Title, Description: cell(t.Description, false),
		Scopes: t.Scopes, ScopeList: t.ScopeList, Confirm: t.Confirm, Task: t.Task}
	for _, h := range []struct {
		on   bool
		name string
	}{{t.ReadOnly, "readOnlyHint"}, {t.Destructive, "destructiveHint"}, {t.Idempotent, "idempotentHint"}, {t.OpenWorld, "openWorldHint"}} {
		if h.on {
			ct.Hints = append(ct.Hints, h.name)
		}
	}
	in, err := parseSchema(t.InputSchema)
	if err != nil {
		return ct, fmt.Errorf("%w: tool %s input schema: %v", gen.ErrInternal, t.Name, err)
	}
	for _, p := range in.props {
		ct.Args = append(ct.Args, catalogArg{Name: p.name, Type: typePhrase(*p.schema),
			Description: cell(describe(p.schema), true), Required: slices.Contains(in.Required, p.name)})
	}
	ct.Output = outputPhrase(t)
	return ct, nil
}

// outputPhrase says what a tool returns.
func outputPhrase(t *model.Tool) string {
	switch {
	case t.OutKind == model.OutNone:
		return "no structured content"
	case t.OutKind != model.OutStructured || t.OutputSchema == nil:
		return "content blocks (text, images, audio, resources)"
	}
	out, err := parseSchema(t.OutputSchema)
	if err != nil {
		return "structured content"
	}
	if len(out.props) == 0 {
		return "structured content, " + typePhrase(out.schemaNode)
	}
	var names []string
	for _, p := range out.props {
		names = append(names, "`"+p.name+"`")
	}
	return "structured content, an object with " + strings.Join(names, ", ")
}

// A schemaNode is the part of a JSON Schema the catalog shows.
type schemaNode struct {
	Type        any               `json:"type"`
	Description string            `json:"description"`
	Enum        []json.RawMessage `json:"enum"`
	Format      string            `json:"format"`
	Default     json.RawMessage   `json:"default"`
	Minimum     json.RawMessage   `json:"minimum"`
	Maximum     json.RawMessage   `json:"maximum"`
	MinLength   *int              `json:"minLength"`
	MaxLength   *int              `json:"maxLength"`
	Pattern     string            `json:"pattern"`
	Items       *schemaNode       `json:"items"`
	AnyOf       []*schemaNode     `json:"anyOf"`
	Required    []string          `json:"required"`
}

// A schemaDoc is a schema with its properties in document order.
type schemaDoc struct {
	schemaNode
	props []prop
}

type prop struct {
	name   string
	schema *schemaNode
}

// parseSchema decodes raw, keeping the order of "properties".
func parseSchema(raw json.RawMessage) (*schemaDoc, error) {
	var d schemaDoc
	if len(raw) == 0 {
		return &d, nil
	}
	if err := json.Unmarshal(raw, &d.schemaNode); err != nil {
		return nil, err
	}
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &top); err != nil || len(top.Properties) == 0 {
		return &d, err
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var n schemaNode
		if err := dec.Decode(&n); err != nil {
			return nil, err
		}
		d.props = append(d.props, prop{name: tok.(string), schema: &n})
	}
	return &d, nil
}

// typePhrase names a schema's type for a table cell: "string", "integer",
// "array of string", "string or null", "one of `a`, `b`".
func typePhrase(n schemaNode) string {
	if len(n.Enum) > 0 {
		vals := make([]string, len(n.Enum))
		for i, v := range n.Enum {
			vals[i] = "`" + string(v) + "`"
		}
		return "one of " + strings.Join(vals, ", ")
	}
	var alts []string
	for _, a := range n.AnyOf {
		alts = append(alts, typePhrase(*a))
	}
	if len(alts) > 0 {
		return strings.Join(alts, " or ")
	}
	t, _ := n.Type.(string)
	switch {
	case t == "array" && n.Items != nil:
		return "array of " + typePhrase(*n.Items)
	case t == "":
		return "any"
	case n.Format != "":
		return t + " (" + n.Format + ")"
	}
	return t
}

// describe is a property's description followed by its constraints.
func describe(n *schemaNode) string {
	var parts []string
	if n.Description != "" {
		parts = append(parts, n.Description)
	}
	var c []string
	add := func(label string, v json.RawMessage) {
		if len(v) > 0 {
			c = append(c, label+" "+string(v))
		}
	}
	add("minimum", n.Minimum)
	add("maximum", n.Maximum)
	if n.MinLength != nil {
		c = append(c, fmt.Sprintf("minLength %d", *n.MinLength))
	}
	if n.MaxLength != nil {
		c = append(c, fmt.Sprintf("maxLength %d", *n.MaxLength))
	}
	if n.Pattern != "" {
		c = append(c, "pattern `"+n.Pattern+"`")
	}
	add("default", n.Default)
	if len(c) > 0 {
		parts = append(parts, "("+strings.Join(c, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// cell makes text safe for Markdown: one line in a table cell (escaped pipes)
// when table is set, else paragraphs kept.
func cell(s string, table bool) string {
	s = strings.TrimSpace(s)
	if !table {
		return s
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}
