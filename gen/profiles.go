package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/gen/profile"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// strictOpenAI is the Config.Strict and strict= value of OpenAI's strict form.
const strictOpenAI = "openai"

// profileInput applies the provider profiles to a tool's input schema sch,
// derived from typ at pos: it returns the schema to emit (OpenAI's strict
// form when the tool or Config asks for it) and reports, at the Go field
// responsible, what the strict rewrite cannot fix and what each -lint
// profile would reject.
func (a *analyzer) profileInput(t *model.Tool, sch *jsonschema.Schema, typ types.Type, pos token.Pos, label string) *jsonschema.Schema {
	mode := t.Strict
	if mode == "" {
		mode = a.cfg.Strict
	}
	t.Strict = ""
	if mode != strictOpenAI && len(a.cfg.Lint) == 0 {
		return sch
	}
	loc := locator{pos: a.schemas.Positions(sch, typ, pos)}
	if mode == strictOpenAI {
		var findings []profile.Finding
		sch, loc.origin, findings = profile.OpenAIStrict(sch)
		t.Strict = strictOpenAI
		a.findings(loc, label+": strict=openai", findings)
		a.lint(sch, loc, label, "strict=openai", strictOpenAI)
	}
	for _, name := range a.cfg.Lint {
		if name != mode {
			a.lint(sch, loc, label, "-lint="+name, name)
		}
	}
	return sch
}

// lint reports what profile name rejects in sch, prefixing messages with
// label and what asked for the check.
func (a *analyzer) lint(sch *jsonschema.Schema, loc locator, label, by, name string) {
	p, ok := profile.Lookup(name)
	if !ok {
		return // Config is checked by the caller (cmd/mcpgen)
	}
	raw, err := schema.Marshal(sch)
	if err != nil {
		a.diags = append(a.diags, Diagnostic{Pos: loc.pos[""], Msg: fmt.Sprintf("%s: internal error: marshal schema: %v", label, err)})
		return
	}
	findings, err := p.Check(raw)
	if err != nil {
		a.diags = append(a.diags, Diagnostic{Pos: loc.pos[""], Msg: fmt.Sprintf("%s: internal error: %v", label, err)})
		return
	}
	a.findings(loc, label+": "+by, findings)
}

// findings records profile findings as diagnostics.
func (a *analyzer) findings(loc locator, prefix string, fs []profile.Finding) {
	for _, f := range fs {
		at := ""
		if f.Ptr != "" {
			at = " (at #" + f.Ptr + ")"
		}
		a.diags = append(a.diags, Diagnostic{Pos: loc.lookup(f.Ptr), Msg: prefix + ": " + f.Msg + at})
	}
}

// A locator maps JSON pointers of an emitted input schema to Go positions.
type locator struct {
	pos    schema.Positions  // pointers of the precise schema
	origin map[string]string // strict-form pointer -> precise pointer; nil when not rewritten
}

// lookup returns the position of the subschema at ptr (or of its nearest
// ancestor with one).
func (l locator) lookup(ptr string) token.Position {
	if l.origin == nil {
		return l.pos.Lookup(ptr)
	}
	for {
		if old, ok := l.origin[ptr]; ok {
			return l.pos.Lookup(old)
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return l.pos[""]
		}
		ptr = ptr[:i]
	}
}

// CheckLint reports an unknown profile name in names, for flag validation.
func CheckLint(names []string) error {
	for _, n := range names {
		if _, ok := profile.Lookup(n); !ok && n != marketplace {
			return fmt.Errorf("unknown profile %q (want %s)", n, strings.Join(append(profile.Names(), marketplace), ", "))
		}
	}
	return nil
}

// CheckStrict reports an unknown -strict value.
func CheckStrict(mode string) error {
	if !slices.Contains([]string{"", "none", strictOpenAI}, mode) {
		return fmt.Errorf("unknown strict form %q (want openai or none)", mode)
	}
	return nil
}
