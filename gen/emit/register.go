package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// rt qualifies a runtime identifier.
func rt(name string) *jen.Statement { return jen.Qual(model.RuntimePath, name) }

// registerFunc emits RegisterMCP(s *mcpruntime.Server, <receivers>).
func registerFunc(f *jen.File, p *model.Package) {
	f.Comment(fmt.Sprintf("RegisterMCP registers the tools of package %s with s.", p.Name))
	if len(p.Receivers) > 0 {
		var names []string
		for _, r := range p.Receivers {
			names = append(names, r.Param)
		}
		f.Comment(fmt.Sprintf("Handlers that are methods are called on %s.", strings.Join(names, ", ")))
	}
	params := []jen.Code{jen.Id("s").Op("*").Add(rt("Server"))}
	for _, r := range p.Receivers {
		params = append(params, jen.Id(r.Param).Add(recvType(r.TypeName, r.Pointer)))
	}
	if usesTasks(p) {
		f.ImportAlias(model.TasksPath, model.TasksAlias)
	}
	f.Func().Id("RegisterMCP").Params(params...).BlockFunc(func(g *jen.Group) {
		registerViews(g, p) // views.go
		if usesTasks(p) {
			// the tasks extension runs the task tools; AddTool refuses one without it
			g.Qual(model.TasksPath, "Use").Call(jen.Id("s"))
		}
		for _, t := range p.Tools {
			g.Id("s").Dot("AddTool").Call(jen.Op("&").Add(rt("Tool")).Add(toolFields(t)))
		}
		registerPrimitives(g, p)
		registerForms(g, p)
		if p.Registry != nil {
			g.Qual(model.ServerCardPath, "Use").Call(jen.Id("s"), jen.Index().Byte().Call(jen.Lit(string(p.Registry.Card))))
		}
	})
}

// usesTasks reports whether a tool of p runs as a task.
func usesTasks(p *model.Package) bool {
	for _, t := range p.Tools {
		if t.Task != "" {
			return true
		}
	}
	return false
}

// toolFields are the fields of t's mcpruntime.Tool literal, in the order of
// the runtime's struct.
func toolFields(t *model.Tool) jen.Code {
	fs := []jen.Code{field("Name", jen.Lit(t.Name))}
	if t.Title != "" {
		fs = append(fs, field("Title", jen.Lit(t.Title)))
	}
	fs = append(fs, field("Description", jen.Lit(t.Description)))
	if a := annotations(t); a != nil {
		fs = append(fs, field("Annotations", a))
	}
	fs = append(fs, field("InputSchema", jen.Id(t.VarPrefix+"InputSchema")))
	if t.OutputSchema != nil {
		fs = append(fs, field("OutputSchema", jen.Id(t.VarPrefix+"OutputSchema")))
	}
	if t.LegacyOutputSchema != nil {
		fs = append(fs, field("LegacyOutputSchema", jen.Id(t.VarPrefix+"LegacyOutputSchema")))
	}
	if t.LegacyWrap != "" {
		fs = append(fs, field("LegacyWrap", jen.Lit(t.LegacyWrap)))
	}
	if len(t.Scopes) > 0 {
		fs = append(fs, field("Scopes", stringsLit(t.Scopes)))
	}
	if t.Confirm != "" {
		fs = append(fs, field("Confirm", jen.Lit(t.Confirm)))
	}
	if m := toolMeta(t); m != nil { // views.go
		fs = append(fs, field("Meta", m))
	}
	if t.Task != "" {
		fs = append(fs, field("Task", rt(taskConst(t.Task))))
	}
	fs = append(fs, field("Handler", adapter(t)))
	if t.IdempotencyKey != "" {
		fs = append(fs, field("IdempotencyKey", jen.Lit(t.IdempotencyKey)))
	}
	if t.ExternalID != "" {
		fs = append(fs, field("ExternalID", jen.Lit(t.ExternalID)))
	}
	if t.Reconcile != "" {
		fs = append(fs, field("Reconcile", reconcileAdapter(t)))
	}
	// The generator checked the schemas (gen/schema, CheckSchema): AddTool
	// need not check them again at every start.
	fs = append(fs, field("SchemasChecked", jen.True()))
	return fields(fs...)
}

// taskConst names the runtime constant of a task= value.
func taskConst(task string) string {
	if task == "required" {
		return "TaskRequired"
	}
	return "TaskOptional"
}

// field is one Key: value element of a composite literal.
func field(name string, v jen.Code) jen.Code { return jen.Id(name).Op(":").Add(v) }

// fields is a composite literal body with one element per line, in the given
// order (jen.Dict would sort them).
func fields(elems ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, elems...)
}

// annotations is the &mcpruntime.ToolAnnotations{...} literal stating all four
// hints (gen/hints.go resolved the defaults): the true ones and Stated.
func annotations(t *model.Tool) *jen.Statement {
	hints := []struct {
		set  bool
		name string
	}{
		{t.ReadOnly, "ReadOnlyHint"},
		{t.Destructive, "DestructiveHint"},
		{t.Idempotent, "IdempotentHint"},
		{t.OpenWorld, "OpenWorldHint"},
	}
	var fs []jen.Code
	for _, h := range hints {
		if h.set {
			fs = append(fs, field(h.name, jen.True()))
		}
	}
	fs = append(fs, field("Stated", jen.True()))
	return jen.Op("&").Add(rt("ToolAnnotations")).Add(jen.Values(fs...))
}

// adapter is the typed mcpruntime.ToolHandler literal calling t's handler.
func adapter(t *model.Tool) *jen.Statement {
	return jen.Func().
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Add(rt("ToolRequest"))).
		Params(jen.Op("*").Add(rt("ToolResult")), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			decodeInput(g, t)
			callHandler(g, t)
		})
}

// decodeInput declares in, applies the defaults and decodes the arguments.
func decodeInput(g *jen.Group, t *model.Tool) {
	if t.In == nil {
		return
	}
	target := jen.Op("&").Id("in")
	if t.In.Kind == model.Pointer {
		g.Id("in").Op(":=").New(Type(t.In.Elem))
		target = jen.Id("in")
	} else {
		g.Var().Id("in").Add(Type(t.In))
	}
	for _, d := range t.Defaults {
		applyDefault(g, d)
	}
	g.If(jen.Err().Op(":=").Id("req").Dot("Decode").Call(target), jen.Err().Op("!=").Nil()).Block(
		jen.Return(jen.Nil(), jen.Err()),
	)
}

// applyDefault sets one input field to its declared default.
func applyDefault(g *jen.Group, d model.Default) {
	field := jen.Id("in")
	for _, name := range d.Path {
		field = field.Dot(name)
	}
	if d.GoLit != "" {
		g.Add(field).Op("=").Id(d.GoLit)
		return
	}
	g.If(
		jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(
			jen.Index().Byte().Parens(rawLit(d.JSON)), jen.Op("&").Add(field)),
		jen.Err().Op("!=").Nil(),
	).Block(jen.Return(jen.Nil(), jen.Err()))
}

// rawLit is a raw string literal of b, or a quoted one when b holds a backtick.
func rawLit(b []byte) jen.Code {
	if strings.ContainsAny(string(b), "`\r") {
		return jen.Lit(string(b))
	}
	return jen.Id("`" + string(b) + "`")
}

// call is the handler call expression with its arguments.
func call(t *model.Tool) *jen.Statement { return callFunc(t, t.Func) }

// callFunc calls fn (a method of the handler's receiver for a method handler)
// with the handler's arguments.
func callFunc(t *model.Tool, fn string) *jen.Statement {
	args := []jen.Code{jen.Id("ctx")}
	if t.In != nil {
		args = append(args, jen.Id("in"))
	}
	if t.Receiver != nil {
		return jen.Id(t.Receiver.Param).Dot(fn).Call(args...)
	}
	return jen.Id(fn).Call(args...)
}

// reconcileAdapter is the mcpruntime.ToolHandler literal calling t's reconcile
// function: not found is a nil result (the earlier call had no effect), found
// converts out as the handler's adapter does.
func reconcileAdapter(t *model.Tool) *jen.Statement {
	return jen.Func().
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Add(rt("ToolRequest"))).
		Params(jen.Op("*").Add(rt("ToolResult")), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			decodeInput(g, t)
			notFound := jen.Err().Op("!=").Nil().Op("||").Op("!").Id("found")
			if t.Out == nil {
				g.List(jen.Id("found"), jen.Err()).Op(":=").Add(callFunc(t, t.Reconcile))
				g.If(notFound).Block(jen.Return(jen.Nil(), jen.Err()))
				g.Return(jen.Op("&").Add(rt("ToolResult")).Values(), jen.Nil())
				return
			}
			g.List(jen.Id("out"), jen.Id("found"), jen.Err()).Op(":=").Add(callFunc(t, t.Reconcile))
			g.If(notFound).Block(jen.Return(jen.Nil(), jen.Err()))
			convertOut(g, t)
		})
}

// callHandler calls the handler and converts its result.
func callHandler(g *jen.Group, t *model.Tool) {
	if t.Out == nil {
		g.If(jen.Err().Op(":=").Add(call(t)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
		g.Return(jen.Op("&").Add(rt("ToolResult")).Values(), jen.Nil())
		return
	}
	g.List(jen.Id("out"), jen.Err()).Op(":=").Add(call(t))
	g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
	convertOut(g, t)
}

// convertOut returns out, the handler's (or reconcile function's) result, as a
// *mcpruntime.ToolResult.
func convertOut(g *jen.Group, t *model.Tool) {
	if t.Out.Kind == model.Pointer {
		g.If(jen.Id("out").Op("==").Nil()).Block(jen.Return(jen.Nil(), nilResult(t)))
	}
	switch t.OutKind {
	case model.OutToolResult:
		g.Return(jen.Id("out"), jen.Nil())
	case model.OutContent:
		g.Return(jen.Op("&").Add(rt("ToolResult")).Values(field("Content", jen.Id("out"))), jen.Nil())
	default:
		g.Return(rt("Structured").Call(jen.Id("out")))
	}
}

// nilResult is the error reported when a handler returns a nil pointer and a
// nil error: the runtime turns mcpruntime.ErrNilResult into an internal error.
func nilResult(t *model.Tool) *jen.Statement {
	return jen.Qual("fmt", "Errorf").Call(jen.Lit("%w: tool "+t.Name), rt("ErrNilResult"))
}
