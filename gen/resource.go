package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/internal/uritemplate"
)

// resourceShapes lists the resource handler shapes, for error messages.
const resourceShapes = "func(context.Context, <one parameter per URI variable>) (T, error) with T string, []byte, " +
	"mcpruntime.ResourceContents, []mcpruntime.ResourceContents or *mcpruntime.ResourceResult"

// resourceArgsUsage lists the accepted directive arguments.
const resourceArgsUsage = `want //mcp:resource URI [name=NAME] [title="..."] [mime=TYPE] [scope="..."]`

// resource analyzes one //mcp:resource handler and adds it to s.
func (a *analyzer) resource(s *pkgScan, d *ast.FuncDecl, dir *directive, comps map[string]*completeSpec) {
	label := "mcp:resource " + d.Name.Name
	r := &model.Resource{Func: d.Name.Name, Name: snakeCase(d.Name.Name), Pos: a.fset.Position(d.Pos()),
		Description: a.docDescription(d)}
	tpl := a.resourceArgs(r, dir, label)
	sig, recv := a.primitiveFunc(s, d, label, resourceShapes)
	if tpl == nil || sig == nil {
		return
	}
	r.Receiver, r.PointerRecv = recv.Receiver, recv.PointerRecv
	ok := a.templateParams(r, tpl, sig, dir, comps, label)
	ok = a.resourceResult(r, sig, d, label) && ok
	if ok {
		s.recordSource(r.Pos)
		s.mp.Resources = append(s.mp.Resources, r)
	}
}

// resourceArgs parses the directive: the URI (an RFC 6570 template), then
// name, title and mime. It returns the parsed template, or nil.
func (a *analyzer) resourceArgs(r *model.Resource, dir *directive, label string) *uritemplate.Template {
	args := strings.TrimLeft(dir.args, " \t")
	lead := len(dir.args) - len(args)
	uri, rest, _ := strings.Cut(args, " ")
	pos := dir.pos + token.Pos(dir.off+lead)
	if uri == "" {
		a.errorf(dir.pos, "%s: missing URI (%s)", label, resourceArgsUsage)
		return nil
	}
	tpl, ok := a.parseTemplate(uri, pos, label)
	if !ok {
		return nil
	}
	if i := strings.IndexByte(tpl.Lits[0], ':'); i < 1 || strings.ContainsAny(tpl.Lits[0][:i], "/?#") {
		a.errorf(pos, "%s: URI %q has no scheme (e.g. notes://...)", label, uri)
		return nil
	}
	r.URI, r.Template = uri, len(tpl.Vars) > 0
	off := dir.off + lead + len(uri) + 1
	toks, errs := tokenize(rest)
	for _, e := range errs {
		a.errorf(dir.pos+token.Pos(off+e.off), "%s: %s", label, e.msg)
	}
	var auth authSpec
	for _, t := range toks {
		msg := ""
		if t.key == "scope" && !auth.hasScope {
			msg = auth.set("scope", t)
		} else {
			msg = setResourceArg(r, t)
		}
		if msg != "" {
			a.errorf(dir.pos+token.Pos(off+t.off), "%s: %s", label, msg)
		}
	}
	if auth.hasScope {
		r.Scopes = a.staticScopes(auth, rest, dir.pos+token.Pos(off), label)
	}
	return tpl
}

// setResourceArg records one name=, title= or mime= argument.
func setResourceArg(r *model.Resource, t argToken) string {
	if !t.hasVal || t.val == "" {
		return fmt.Sprintf("argument %q needs a value (%s)", t.key, resourceArgsUsage)
	}
	switch t.key {
	case "name":
		r.Name = t.val
	case "title":
		r.Title = t.val
	case "mime":
		if !strings.Contains(t.val, "/") {
			return fmt.Sprintf("mime %q is not a media type such as text/plain", t.val)
		}
		r.MIMEType = t.val
	default:
		return fmt.Sprintf("unknown argument %q (%s)", t.key, resourceArgsUsage)
	}
	return ""
}

// templateParams matches the handler's parameters after ctx with the URI's
// variables, by name, and records how each is parsed.
func (a *analyzer) templateParams(r *model.Resource, tpl *uritemplate.Template, sig *types.Signature,
	dir *directive, comps map[string]*completeSpec, label string) bool {
	ok := true
	params := map[string]bool{}
	for i := 1; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		params[v.Name()] = true
		e, tv := tpl.Lookup(v.Name())
		if e == nil {
			a.errorf(v.Pos(), "%s: parameter %s is not a variable of the URI template %s (variables: {%s})",
				label, v.Name(), r.URI, strings.Join(tpl.Vars, "}, {"))
			ok = false
			continue
		}
		p, msg := a.templateParam(v, e, tv)
		if msg != "" {
			a.errorf(v.Pos(), "%s: parameter %s: %s", label, v.Name(), msg)
			ok = false
			continue
		}
		p.Completer = useCompleter(comps, p.Name)
		r.Params = append(r.Params, p)
	}
	for _, name := range tpl.Vars {
		if !params[name] {
			a.errorf(dir.pos+token.Pos(dir.off), "%s: URI variable {%s} has no parameter: add a parameter named %s to %s",
				label, name, name, r.Func)
			ok = false
		}
	}
	return ok
}

// templateParam classifies a template parameter's type for its variable:
// a string or integer type (named enums included) for any variable, a
// pointer to one for a variable that may be absent, []string for {+v} and
// {/v*}, string for {/v*} (the segments joined with "/").
func (a *analyzer) templateParam(v *types.Var, e *uritemplate.Expr, tv *uritemplate.Var) (*model.Param, string) {
	t := types.Unalias(v.Type())
	mt, err := modelType(t)
	if err != nil {
		return nil, a.paramTypeHint(v.Type(), e, tv)
	}
	p := &model.Param{Name: v.Name(), Type: mt, Optional: !e.Required(), Explode: tv.Explode}
	if sl, ok := t.(*types.Slice); ok && isBasic(sl.Elem(), types.String) && (tv.Explode || e.Op == '+') {
		p.Slice = true
		return p, ""
	}
	if ptr, ok := t.(*types.Pointer); ok && p.Optional && !tv.Explode {
		p.Pointer, t = true, ptr.Elem()
	}
	b, basic := t.Underlying().(*types.Basic)
	if !basic || tv.Explode && (b.Kind() != types.String || isNamedType(t)) {
		return nil, a.paramTypeHint(v.Type(), e, tv)
	}
	p.Values = a.enumValues(t, v.Pos())
	switch b.Kind() {
	case types.String:
		p.Parse = model.ParseString
	case types.Int, types.Int8, types.Int16, types.Int32, types.Int64:
		p.Parse, p.Bits = model.ParseInt, intBits(b.Kind())
	case types.Uint, types.Uint8, types.Uint16, types.Uint32, types.Uint64:
		p.Parse, p.Bits = model.ParseUint, intBits(b.Kind())
	default:
		return nil, a.paramTypeHint(v.Type(), e, tv)
	}
	return p, ""
}

// isNamedType reports whether t is a defined (named) type.
func isNamedType(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.Named)
	return ok
}

// paramTypeHint says which types the variable of e accepts.
func (a *analyzer) paramTypeHint(t types.Type, e *uritemplate.Expr, tv *uritemplate.Var) string {
	want := "a string or integer type"
	switch {
	case tv.Explode:
		want = "[]string (the segments) or string (the segments joined with \"/\")"
	case e.Op == '+':
		want = "a string or integer type, or []string (the value split at \"/\")"
	case !e.Required():
		want = "a string or integer type, or a pointer to one (nil when the URI leaves the variable out)"
	}
	return fmt.Sprintf("type %s is not supported for the URI variable %s (want %s)", typeName(t), e.String(), want)
}

// intBits is the bit size of an integer kind, 0 for int and uint.
func intBits(k types.BasicKind) int {
	switch k {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	case types.Int64, types.Uint64:
		return 64
	}
	return 0
}

// resourceResult classifies the handler's result type.
func (a *analyzer) resourceResult(r *model.Resource, sig *types.Signature, d *ast.FuncDecl, label string) bool {
	t := types.Unalias(sig.Results().At(0).Type())
	kind, ok := model.ContentsText, true
	switch {
	case isBasic(t, types.String):
	case isByteSlice(t):
		kind = model.ContentsBlob
	case isNamed(t, model.RuntimePath, "ResourceContents"):
		kind = model.ContentsOne
	case isRuntimeSlice(t, "ResourceContents"):
		kind = model.ContentsSlice
	case isRuntimePointer(t, "ResourceResult"):
		kind = model.ContentsResult
	default:
		ok = false
	}
	out, err := modelType(t)
	if !ok || err != nil {
		a.errorf(resultPos(sig, d), "%s: unsupported return type %s; want string, []byte, mcpruntime.ResourceContents, "+
			"[]mcpruntime.ResourceContents or *mcpruntime.ResourceResult", label, typeName(t))
		return false
	}
	r.Out, r.Contents = out, kind
	return true
}

// isByteSlice reports whether t is []byte.
func isByteSlice(t types.Type) bool {
	sl, ok := types.Unalias(t).(*types.Slice)
	return ok && isBasic(sl.Elem(), types.Byte)
}

// isRuntimeSlice reports whether t is []mcpruntime.<name>.
func isRuntimeSlice(t types.Type, name string) bool {
	sl, ok := types.Unalias(t).(*types.Slice)
	return ok && isNamed(sl.Elem(), model.RuntimePath, name)
}

// isRuntimePointer reports whether t is *mcpruntime.<name>.
func isRuntimePointer(t types.Type, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), model.RuntimePath, name)
}
