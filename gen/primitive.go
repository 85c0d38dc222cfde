package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/mcpgen/mcpgen/gen/model"
)

// A completeSpec is one //mcp:complete ARG FUNC directive.
type completeSpec struct {
	arg, fn string
	pos     token.Pos
	used    bool
}

// primitiveDecl analyzes a function whose directives include //mcp:resource,
// //mcp:prompt or //mcp:complete. It reports false when there are none, so
// the caller goes on with //mcp:tool and //mcp:constructor.
func (a *analyzer) primitiveDecl(s *pkgScan, d *ast.FuncDecl, ds []directive) bool {
	var res, prompt *directive
	var completes, others []*directive
	for i := range ds {
		dir := &ds[i]
		switch dir.word {
		case "resource", "prompt":
			p := &res
			if dir.word == "prompt" {
				p = &prompt
			}
			if *p != nil {
				a.errorf(dir.pos, "mcp:%s %s: more than one //mcp:%s directive", dir.word, d.Name.Name, dir.word)
				continue
			}
			*p = dir
		case "complete":
			completes = append(completes, dir)
		default:
			others = append(others, dir)
		}
	}
	if res == nil && prompt == nil && completes == nil {
		return false
	}
	a.primitiveConflicts(d, res, prompt, completes, others)
	comps := a.completers(s, d, completes)
	switch {
	case res != nil && prompt == nil:
		a.resource(s, d, res, comps)
	case prompt != nil && res == nil:
		a.prompt(s, d, prompt, comps)
	}
	for _, c := range comps {
		if !c.used && (res != nil) != (prompt != nil) {
			a.errorf(c.pos, "mcp:complete %s: %s has no argument or template variable %q", d.Name.Name, d.Name.Name, c.arg)
		}
	}
	return true
}

// primitiveConflicts reports directives that cannot go together.
func (a *analyzer) primitiveConflicts(d *ast.FuncDecl, res, prompt *directive, completes, others []*directive) {
	for _, o := range others {
		a.errorf(o.pos, "//mcp:%s cannot annotate %s, which has //mcp:resource, //mcp:prompt or //mcp:complete", o.word, d.Name.Name)
	}
	if res != nil && prompt != nil {
		a.errorf(prompt.pos, "mcp:prompt %s: a function cannot be both //mcp:resource and //mcp:prompt", d.Name.Name)
	}
	if res == nil && prompt == nil {
		for _, c := range completes {
			a.errorf(c.pos, "mcp:complete %s: //mcp:complete goes with //mcp:prompt or a //mcp:resource template", d.Name.Name)
		}
	}
}

// completers parses the //mcp:complete directives: ARG FUNC, where FUNC is a
// package function func(context.Context, string) ([]string, error).
func (a *analyzer) completers(s *pkgScan, d *ast.FuncDecl, dirs []*directive) map[string]*completeSpec {
	out := map[string]*completeSpec{}
	for _, dir := range dirs {
		words := strings.Fields(dir.args)
		pos := dir.pos + token.Pos(dir.off)
		if len(words) != 2 {
			a.errorf(pos, "mcp:complete %s: want //mcp:complete ARG FUNC, got %q", d.Name.Name, dir.args)
			continue
		}
		c := &completeSpec{arg: words[0], fn: words[1], pos: pos}
		if out[c.arg] != nil {
			a.errorf(pos, "mcp:complete %s: argument %q has two completers", d.Name.Name, c.arg)
			continue
		}
		if msg := completerProblem(s.p.Types, c.fn); msg != "" {
			a.errorf(pos, "mcp:complete %s: %s", d.Name.Name, msg)
			continue
		}
		out[c.arg] = c
	}
	return out
}

// completerProblem returns what is wrong with the named completer, or "".
func completerProblem(pkg *types.Package, name string) string {
	fn, ok := pkg.Scope().Lookup(name).(*types.Func)
	if !ok {
		return fmt.Sprintf("%s is not a function of package %s", name, pkg.Name())
	}
	sig := fn.Signature()
	ok = sig.TypeParams().Len() == 0 && !sig.Variadic() && sig.Params().Len() == 2 && sig.Results().Len() == 2 &&
		isContext(sig.Params().At(0).Type()) && isBasic(sig.Params().At(1).Type(), types.String) &&
		isStringSlice(sig.Results().At(0).Type()) && isError(sig.Results().At(1).Type())
	if !ok {
		return fmt.Sprintf("completer %s must be func(context.Context, string) ([]string, error), got %s",
			name, types.TypeString(sig, types.RelativeTo(pkg)))
	}
	return ""
}

// isBasic reports whether t is the predeclared basic type of kind k.
func isBasic(t types.Type, k types.BasicKind) bool {
	b, ok := types.Unalias(t).(*types.Basic)
	return ok && b.Kind() == k
}

// isStringSlice reports whether t is []string.
func isStringSlice(t types.Type) bool {
	sl, ok := types.Unalias(t).(*types.Slice)
	return ok && isBasic(sl.Elem(), types.String)
}

// primitiveFunc checks what resource and prompt handlers share: a
// non-generic, non-variadic function or method with a doc comment, whose
// first parameter is a context.Context and whose results are (T, error). It
// returns the signature and the receiver (nil for a function), or a nil
// signature after reporting a problem.
func (a *analyzer) primitiveFunc(s *pkgScan, d *ast.FuncDecl, label, shapes string) (*types.Signature, *model.Tool) {
	fn, ok := s.p.TypesInfo.Defs[d.Name].(*types.Func)
	if !ok {
		return nil, nil // type checking failed; reported by load
	}
	if strings.TrimSpace(d.Doc.Text()) == "" {
		a.errorf(d.Pos(), "%s: missing description: write a doc comment saying what it provides", label)
	}
	sig := fn.Signature()
	var msg string
	switch {
	case sig.TypeParams().Len() > 0:
		msg = "must not be generic"
	case sig.Variadic():
		msg = "must not be variadic"
	case sig.Params().Len() < 1 || !isContext(sig.Params().At(0).Type()):
		msg = "first parameter must be a context.Context"
	case sig.Results().Len() != 2 || !isError(sig.Results().At(1).Type()):
		msg = "results must be (T, error)"
	}
	if msg != "" {
		a.errorf(d.Pos(), "%s: %s; got %s; accepted shapes are %s", label, msg,
			types.TypeString(withoutRecv(sig), types.RelativeTo(s.p.Types)), shapes)
		return nil, nil
	}
	recv := &model.Tool{} // receiver() records the receiver the way it does for tools
	if !a.receiver(s, recv, d, sig, label) {
		return nil, nil
	}
	return sig, recv
}

// resultPos is the position of a handler's first result, or of the function.
func resultPos(sig *types.Signature, d *ast.FuncDecl) token.Pos {
	if pos := sig.Results().At(0).Pos(); pos.IsValid() {
		return pos
	}
	if d.Type.Results != nil && len(d.Type.Results.List) > 0 {
		return d.Type.Results.List[0].Pos()
	}
	return d.Pos()
}

// recordSource notes the file of a handler, for the generated header.
func (s *pkgScan) recordSource(pos token.Position) {
	s.fnames[filepath.Base(pos.Filename)] = true
}

// enumValues returns the enum values of a named type as strings, or nil.
func (a *analyzer) enumValues(t types.Type, pos token.Pos) []string {
	if _, ok := types.Unalias(t).(*types.Named); !ok {
		return nil
	}
	sch, _ := a.schemas.Output(t, pos)
	if sch == nil || len(sch.Enum) == 0 {
		return nil
	}
	vals := make([]string, len(sch.Enum))
	for i, v := range sch.Enum {
		vals[i] = fmt.Sprint(v)
	}
	return vals
}

// useCompleter returns the completer declared for arg, marking it used.
func useCompleter(comps map[string]*completeSpec, arg string) string {
	c := comps[arg]
	if c == nil {
		return ""
	}
	c.used = true
	return c.fn
}

// finishPrimitives records where the package's first handler is when it has
// no tools.
func finishPrimitives(mp *model.Package) {
	if len(mp.Tools) > 0 {
		return
	}
	switch {
	case len(mp.Resources) > 0:
		mp.Pos = mp.Resources[0].Pos
	case len(mp.Prompts) > 0:
		mp.Pos = mp.Prompts[0].Pos
	}
}

// validatePrimitives reports resource URIs (and templates) and prompt names
// used twice within a package or across the packages one -server main
// serves: the runtime would refuse the second registration at start-up.
func validatePrimitives(prog *model.Program) []Diagnostic {
	var diags []Diagnostic
	uris := map[string]token.Position{}
	prompts := map[string]token.Position{}
	for _, p := range prog.Packages {
		scope := nameScope(prog, p)
		for _, r := range p.Resources {
			if prev, dup := uris[scope+r.URI]; dup {
				diags = append(diags, Diagnostic{Pos: r.Pos,
					Msg: fmt.Sprintf("mcp:resource %s: duplicate resource URI %q, also declared at %s", r.Func, r.URI, shortPos(prev))})
				continue
			}
			uris[scope+r.URI] = r.Pos
		}
		for _, pr := range p.Prompts {
			if prev, dup := prompts[scope+pr.Name]; dup {
				diags = append(diags, Diagnostic{Pos: pr.Pos,
					Msg: fmt.Sprintf("mcp:prompt %s: duplicate prompt name %q, also declared at %s", pr.Func, pr.Name, shortPos(prev))})
				continue
			}
			prompts[scope+pr.Name] = pr.Pos
		}
	}
	return diags
}
