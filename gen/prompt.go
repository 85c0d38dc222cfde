package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/mcpgen/mcpgen/gen/model"
)

// promptShapes lists the prompt handler shapes, for error messages.
const promptShapes = "func(context.Context) (T, error) or func(context.Context, Args) (T, error) with Args a struct " +
	"of string fields and T []mcpruntime.PromptMessage, *mcpruntime.PromptResult or string"

// promptArgsUsage lists the accepted directive arguments.
const promptArgsUsage = `want //mcp:prompt [NAME] [title="..."] [scope="..."]`

// prompt analyzes one //mcp:prompt handler and adds it to s.
func (a *analyzer) prompt(s *pkgScan, d *ast.FuncDecl, dir *directive, comps map[string]*completeSpec) {
	label := "mcp:prompt " + d.Name.Name
	p := &model.Prompt{Func: d.Name.Name, Name: snakeCase(d.Name.Name), Pos: a.fset.Position(d.Pos()),
		Description: a.docDescription(d)}
	a.promptArgs(p, dir, label)
	sig, recv := a.primitiveFunc(s, d, label, promptShapes)
	if sig == nil {
		return
	}
	p.Receiver, p.PointerRecv = recv.Receiver, recv.PointerRecv
	ok := true
	switch sig.Params().Len() {
	case 1:
	case 2:
		ok = a.promptInput(p, sig.Params().At(1), comps, label)
	default:
		a.errorf(d.Pos(), "%s: too many parameters; accepted shapes are %s", label, promptShapes)
		return
	}
	ok = a.promptResult(p, sig, d, label) && ok
	if ok {
		s.recordSource(p.Pos)
		s.mp.Prompts = append(s.mp.Prompts, p)
	}
}

// promptArgs parses the directive: an optional NAME, then title.
func (a *analyzer) promptArgs(p *model.Prompt, dir *directive, label string) {
	toks, errs := tokenize(dir.args)
	for _, e := range errs {
		a.errorf(dir.pos+token.Pos(dir.off+e.off), "%s: %s", label, e.msg)
	}
	var auth authSpec
	defer func() {
		if auth.hasScope {
			p.Scopes = a.staticScopes(auth, dir.args, dir.pos+token.Pos(dir.off), label)
		}
	}()
	for i, t := range toks {
		pos := dir.pos + token.Pos(dir.off+t.off)
		switch {
		case t.key == "scope" && !auth.hasScope:
			if msg := auth.set("scope", t); msg != "" {
				a.errorf(pos, "%s: %s", label, msg)
			}
		case i == 0 && !t.hasVal:
			p.Name = t.key
			if msg := checkToolName(t.key); msg != "" {
				a.errorf(pos, "%s: %s", label, strings.Replace(msg, "tool name", "prompt name", 1))
			}
		case t.key == "title" && t.hasVal:
			p.Title = t.val
		default:
			a.errorf(pos, "%s: unknown argument %q (%s)", label, t.key, promptArgsUsage)
		}
	}
}

// promptInput records the arguments struct: each property of its input
// schema becomes an argument, which must be a string on the wire.
func (a *analyzer) promptInput(p *model.Prompt, param *types.Var, comps map[string]*completeSpec, label string) bool {
	if !isNamedStruct(param.Type()) {
		a.errorf(param.Pos(), "%s: arguments must be a named struct type or a pointer to one, got %s", label, typeName(param.Type()))
		return false
	}
	in, err := modelType(param.Type())
	if err != nil {
		a.errorf(param.Pos(), "%s: arguments type %s: %v", label, typeName(param.Type()), err)
		return false
	}
	p.In = in
	sch, _, diags := a.schemas.Input(param.Type(), param.Pos())
	a.schemaDiags(diags)
	if len(diags) > 0 || sch == nil || sch.Properties == nil {
		return len(diags) == 0
	}
	ok := true
	for name, prop := range sch.Properties.FromOldest() {
		f := structField(param.Type(), name)
		values, isString := enumStrings(prop), prop.Type == "string"
		if f != nil {
			ft := deref(f.Type())
			values, isString = a.enumValues(ft, f.Pos()), isBasicKind(ft, types.String)
		}
		if !isString {
			a.errorf(fieldPos(param.Type(), name, param.Pos()), "%s: argument %s must have a string type (prompt arguments are strings on the wire)", label, name)
			ok = false
			continue
		}
		p.Args = append(p.Args, &model.PromptArg{Name: name, Description: prop.Description,
			Required: slices.Contains(sch.Required, name), Values: values, Completer: useCompleter(comps, name)})
	}
	return ok
}

// deref returns the element type of a pointer, or t.
func deref(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// isBasicKind reports whether t's underlying type is the basic kind k.
func isBasicKind(t types.Type, k types.BasicKind) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == k
}

// enumStrings returns a string property's enum values, or nil.
func enumStrings(prop *jsonschema.Schema) []string {
	if len(prop.Enum) == 0 {
		return nil
	}
	vals := make([]string, len(prop.Enum))
	for i, v := range prop.Enum {
		vals[i] = fmt.Sprint(v)
	}
	return vals
}

// fieldPos finds the field of struct t (or *t) whose JSON name is name, for
// positioned messages; def when there is none.
func fieldPos(t types.Type, name string, def token.Pos) token.Pos {
	if f := structField(t, name); f != nil {
		return f.Pos()
	}
	return def
}

// structField returns the direct field of struct t (or *t) whose JSON name
// is name, or nil (promoted fields are not searched).
func structField(t types.Type, name string) *types.Var {
	st, ok := deref(t).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		tag, _, _ := strings.Cut(reflect.StructTag(st.Tag(i)).Get("json"), ",")
		if !f.Embedded() && (tag == name || tag == "" && f.Name() == name) {
			return f
		}
	}
	return nil
}

// promptResult classifies the handler's result type.
func (a *analyzer) promptResult(p *model.Prompt, sig *types.Signature, d *ast.FuncDecl, label string) bool {
	t := types.Unalias(sig.Results().At(0).Type())
	kind, ok := model.PromptMessages, true
	switch {
	case isRuntimeSlice(t, "PromptMessage"):
	case isRuntimePointer(t, "PromptResult"):
		kind = model.PromptResult
	case isBasic(t, types.String):
		kind = model.PromptText
	default:
		ok = false
	}
	out, err := modelType(t)
	if !ok || err != nil {
		a.errorf(resultPos(sig, d), "%s: unsupported return type %s; want []mcpruntime.PromptMessage, "+
			"*mcpruntime.PromptResult or string", label, typeName(t))
		return false
	}
	p.Out, p.Kind = out, kind
	return true
}
