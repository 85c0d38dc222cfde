package gen

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// acceptedShapes lists the handler shapes, for error messages.
const acceptedShapes = "func(context.Context, In) (Out, error), func(context.Context, In) error, " +
	"func(context.Context) (Out, error) or func(context.Context) error"

// tool analyzes one //mcp:tool handler and adds it to s.
func (a *analyzer) tool(s *pkgScan, d *ast.FuncDecl, dir *directive, views []*directive) {
	fn, ok := s.p.TypesInfo.Defs[d.Name].(*types.Func)
	if !ok {
		return // type checking failed; reported by load
	}
	label := "mcp:tool " + funcName(d)
	t := &model.Tool{Func: d.Name.Name, Pos: a.fset.Position(d.Pos())}
	in, auth, rec, ui := a.toolArgs(t, dir, label)
	ui.views = views
	if t.Name == "" {
		t.Name = snakeCase(d.Name.Name)
		if msg := checkToolName(t.Name); msg != "" {
			a.errorf(d.Name.Pos(), "%s: %s; name the tool explicitly: //mcp:tool NAME", label, msg)
		}
	}
	t.Description = a.docDescription(d)
	if t.Description == "" {
		a.errorf(d.Pos(), "%s: missing description: write a doc comment saying what the tool does (models choose tools by it)", label)
	}
	sig := fn.Signature()
	if !a.receiver(s, t, d, sig, label) || !a.shape(s, t, d, sig, label, in) {
		return
	}
	a.toolAuth(t, auth, dir, label)
	a.reconcile(s, t, sig, rec, label) // reconcile.go
	a.toolView(s, t, ui, label)        // view.go
	s.fnames[filepath.Base(t.Pos.Filename)] = true
	s.mp.Tools = append(s.mp.Tools, t)
}

// toolArgs parses the directive's arguments into t; it returns the input=
// file, if any, with the position of the argument, the scope= and confirm=
// arguments (checked once the input schema is known) and the reconcile=
// function (checked once the handler's shape is known).
func (a *analyzer) toolArgs(t *model.Tool, dir *directive, label string) (inputFile, authSpec, reconcileRef, viewRef) {
	spec, errs := parseToolArgs(dir.args)
	for _, e := range errs {
		a.errorf(dir.pos+token.Pos(dir.off+e.off), "%s: %s", label, e.msg)
	}
	if spec.name != "" {
		if msg := checkToolName(spec.name); msg != "" {
			a.errorf(dir.pos+token.Pos(dir.off), "%s: %s", label, msg)
		}
	}
	t.Name, t.Title = spec.name, spec.title
	a.hints(t, spec, dir, label) // hints.go
	t.Strict = spec.strict       // resolved against Config.Strict by profileInput
	rec := reconcileRef{name: spec.reconcile, pos: dir.pos + token.Pos(dir.off+spec.reconcileOff)}
	t.Task = spec.task
	ui := a.viewArgs(t, spec, dir, label) // view.go
	if spec.input == "" {
		return inputFile{}, spec.auth, rec, ui
	}
	return inputFile{name: spec.input, pos: dir.pos + token.Pos(dir.off+spec.inputOff)}, spec.auth, rec, ui
}

// receiver records the receiver of a method handler; it reports false when
// the method cannot be a handler.
func (a *analyzer) receiver(s *pkgScan, t *model.Tool, d *ast.FuncDecl, sig *types.Signature, label string) bool {
	recv := sig.Recv()
	if recv == nil {
		return true
	}
	rt := types.Unalias(recv.Type())
	if p, ok := rt.(*types.Pointer); ok {
		rt, t.PointerRecv = types.Unalias(p.Elem()), true
	}
	named, ok := rt.(*types.Named)
	if !ok {
		return false
	}
	if named.TypeParams().Len() > 0 {
		a.errorf(d.Pos(), "%s: methods of generic types cannot be tools", label)
		return false
	}
	name := named.Obj().Name()
	r := s.recvs[name]
	if r == nil {
		r = &model.Receiver{TypeName: name, Pos: a.fset.Position(named.Obj().Pos())}
		s.recvs[name] = r
	}
	r.Pointer = r.Pointer || t.PointerRecv
	t.Receiver = r
	return true
}

// shape checks the handler's signature and records In and Out; it reports
// false when the signature is not an accepted shape.
func (a *analyzer) shape(s *pkgScan, t *model.Tool, d *ast.FuncDecl, sig *types.Signature, label string, file inputFile) bool {
	if msg := shapeProblem(sig); msg != "" {
		qual := types.RelativeTo(s.p.Types)
		a.errorf(d.Pos(), "%s: %s; got %s; accepted shapes are %s",
			label, msg, types.TypeString(withoutRecv(sig), qual), acceptedShapes)
		return false
	}
	ok := true
	switch {
	case file.name != "":
		ok = a.inputFromFile(t, sig, file, label)
	case sig.Params().Len() == 2:
		ok = a.input(t, sig.Params().At(1), label)
	default:
		t.InputSchema = emptyInputSchema()
	}
	if sig.Results().Len() == 2 {
		ok = a.output(s, t, sig.Results().At(0), label) && ok
	}
	if ok {
		var in, out types.Type
		var inPos, outPos token.Pos
		if sig.Params().Len() == 2 && file.name == "" {
			in, inPos = sig.Params().At(1).Type(), sig.Params().At(1).Pos()
		}
		if sig.Results().Len() == 2 {
			out, outPos = sig.Results().At(0).Type(), d.Pos()
		}
		a.effects(t, in, out, inPos, outPos, label)
	}
	return ok
}

// withoutRecv returns sig as a plain func type, for messages.
func withoutRecv(sig *types.Signature) *types.Signature {
	return types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
}

// shapeProblem returns what is wrong with sig as a handler, or "".
func shapeProblem(sig *types.Signature) string {
	params, results := sig.Params(), sig.Results()
	switch {
	case sig.TypeParams().Len() > 0:
		return "handler must not be generic"
	case sig.Variadic():
		return "handler must not be variadic"
	case params.Len() < 1 || params.Len() > 2 || !isContext(params.At(0).Type()):
		return "parameters must be (context.Context) or (context.Context, In)"
	case results.Len() < 1 || results.Len() > 2 || !isError(results.At(results.Len()-1).Type()):
		return "results must be (Out, error) or (error)"
	}
	return ""
}

// isContext reports whether t is context.Context.
func isContext(t types.Type) bool { return isNamed(t, "context", "Context") }

// isError reports whether t is the predeclared error type.
func isError(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

// isNamed reports whether t is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// input records the handler's input parameter and its schema.
func (a *analyzer) input(t *model.Tool, param *types.Var, label string) bool {
	if !isNamedStruct(param.Type()) {
		a.errorf(param.Pos(), "%s: input must be a named struct type or a pointer to one, got %s%s", label, typeName(param.Type()), dynamicInputHint(param.Type())) // suggest.go
		return false
	}
	in, err := modelType(param.Type())
	if err != nil {
		a.errorf(param.Pos(), "%s: input type %s: %v", label, typeName(param.Type()), err)
		return false
	}
	t.In = in
	sch, defaults, diags := a.schemas.Input(param.Type(), param.Pos())
	a.schemaDiags(diags)
	if len(diags) == 0 {
		sch = a.profileInput(t, sch, param.Type(), param.Pos(), label)
	}
	t.InputSchema = a.marshal(sch, param.Pos(), label)
	t.Defaults = modelDefaults(defaults)
	return true
}

// isNamedStruct reports whether t is a named struct type or a pointer to one.
func isNamedStruct(t types.Type) bool {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	if !ok {
		return false
	}
	_, ok = n.Underlying().(*types.Struct)
	return ok
}

// output records the handler's result type, its kind and its schema.
func (a *analyzer) output(s *pkgScan, t *model.Tool, res *types.Var, label string) bool {
	out, err := modelType(res.Type())
	if err != nil {
		a.errorf(res.Pos(), "%s: result type %s: %v", label, typeName(res.Type()), err)
		return false
	}
	t.Out = out
	t.OutKind = outKind(res.Type())
	if t.OutKind != model.OutStructured {
		return true
	}
	pos := res.Pos()
	if !pos.IsValid() {
		pos = s.p.Types.Scope().Lookup(t.Func).Pos()
	}
	sch, diags := a.schemas.Output(res.Type(), pos)
	a.schemaDiags(diags)
	t.OutputSchema = a.marshal(sch, pos, label)
	if legacy := legacyWrap(sch); legacy != nil {
		t.LegacyOutputSchema = a.marshal(legacy, pos, label)
		t.LegacyWrap = legacyWrapName
	}
	return true
}

// outKind classifies a handler's result type.
func outKind(t types.Type) model.OutKind {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok && isNamed(p.Elem(), model.RuntimePath, "ToolResult") {
		return model.OutToolResult
	}
	if sl, ok := t.(*types.Slice); ok && isNamed(sl.Elem(), model.RuntimePath, "Content") {
		return model.OutContent
	}
	return model.OutStructured
}

// typeName formats t with package names, for messages.
func typeName(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// schemaDiags records the schema builder's diagnostics.
func (a *analyzer) schemaDiags(ds []schema.Diagnostic) {
	for _, d := range ds {
		a.diags = append(a.diags, Diagnostic{Pos: d.Pos, Msg: d.Msg})
	}
}
