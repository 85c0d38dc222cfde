package gen

import (
	"go/token"
	"slices"

	"github.com/mcpgen/mcpgen/gen/model"
)

// marketplace is the -lint profile of registries and app marketplaces: it
// checks what a host reads before any call (docs/annotations.md#annotation-hints),
// not the input schema.
const marketplace = "marketplace"

// hints sets the four annotation hints of t from the directive's flags and
// the documented defaults, which the generator writes out so that every
// tool states all four (docs/annotations.md#annotation-hints):
//
//	readOnlyHint     true with readonly, else false
//	destructiveHint  false for a readonly tool; else true unless destructive=false
//	idempotentHint   true for a readonly tool; else false unless idempotent
//	openWorldHint    true unless openworld=false
//
// The unstated defaults are the cautious ones of the MCP specification. A
// readonly tool that says destructive is an error. With -lint=marketplace,
// a tool that leaves openworld unstated, or a tool that is not readonly and
// leaves destructive unstated, is an error at the directive.
func (a *analyzer) hints(t *model.Tool, spec toolSpec, dir *directive, label string) {
	at := dir.pos + token.Pos(dir.off)
	stated := func(k string) bool { return spec.stated[k] }
	t.ReadOnly = spec.readOnly
	switch {
	case spec.readOnly && spec.destructive:
		a.errorf(at, "%s: a readonly tool cannot be destructive; drop one of readonly and destructive", label)
	case stated("destructive"):
		t.Destructive = spec.destructive
	default:
		t.Destructive = !spec.readOnly
	}
	t.Idempotent = spec.idempotent
	if !stated("idempotent") {
		t.Idempotent = spec.readOnly
	}
	t.OpenWorld = spec.openWorld
	if !stated("openworld") {
		t.OpenWorld = true
	}
	if !slices.Contains(a.cfg.Lint, marketplace) {
		return
	}
	if !stated("openworld") {
		a.errorf(at, "%s: -lint=marketplace: say whether the tool reaches systems outside the server (the web, third-party APIs): openworld or openworld=false (unstated, mcpgen writes openWorldHint: true)", label)
	}
	if !spec.readOnly && !stated("destructive") {
		a.errorf(at, "%s: -lint=marketplace: say whether the tool may delete or overwrite data: destructive or destructive=false, or mark it readonly (unstated, mcpgen writes destructiveHint: true)", label)
	}
}
