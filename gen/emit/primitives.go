package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// primitiveImports registers the package names of the types the resource
// and prompt adapters spell.
func primitiveImports(f *jen.File, taken map[string]bool, p *model.Package) {
	for _, r := range p.Resources {
		for _, prm := range r.Params {
			importNames(f, taken, prm.Type)
		}
	}
	for _, pr := range p.Prompts {
		importNames(f, taken, pr.In)
	}
}

// primitiveGuards emits one signature assertion per resource and prompt
// handler.
func primitiveGuards(f *jen.File, p *model.Package) {
	for _, r := range p.Resources {
		params := []jen.Code{jen.Qual("context", "Context")}
		for _, prm := range r.Params {
			params = append(params, Type(prm.Type))
		}
		f.Var().Id("_").Func().Params(withRecv(r.Receiver, r.PointerRecv, params)...).Params(Type(r.Out), jen.Error()).
			Op("=").Add(methodValue(r.Receiver, r.PointerRecv, r.Func))
	}
	for _, pr := range p.Prompts {
		params := []jen.Code{jen.Qual("context", "Context")}
		if pr.In != nil {
			params = append(params, Type(pr.In))
		}
		f.Var().Id("_").Func().Params(withRecv(pr.Receiver, pr.PointerRecv, params)...).Params(Type(pr.Out), jen.Error()).
			Op("=").Add(methodValue(pr.Receiver, pr.PointerRecv, pr.Func))
	}
}

// registerPrimitives adds the statements registering p's resources,
// templates and prompts to RegisterMCP's body.
func registerPrimitives(g *jen.Group, p *model.Package) {
	for _, r := range p.Resources {
		if r.Template {
			g.Id("s").Dot("AddResourceTemplate").Call(jen.Op("&").Add(rt("ResourceTemplate")).Add(templateFields(r)))
		} else {
			g.Id("s").Dot("AddResource").Call(jen.Op("&").Add(rt("Resource")).Add(resourceFields(r)))
		}
	}
	for _, pr := range p.Prompts {
		g.Id("s").Dot("AddPrompt").Call(jen.Op("&").Add(rt("Prompt")).Add(promptFields(pr)))
	}
}

// describe appends Name, Title (when set) and Description.
func describe(fs []jen.Code, name, title, desc string) []jen.Code {
	fs = append(fs, field("Name", jen.Lit(name)))
	if title != "" {
		fs = append(fs, field("Title", jen.Lit(title)))
	}
	return append(fs, field("Description", jen.Lit(desc)))
}

// resourceFields are the fields of a direct resource's literal.
func resourceFields(r *model.Resource) jen.Code {
	fs := describe([]jen.Code{field("URI", jen.Lit(r.URI))}, r.Name, r.Title, r.Description)
	if r.MIMEType != "" {
		fs = append(fs, field("MIMEType", jen.Lit(r.MIMEType)))
	}
	if len(r.Scopes) > 0 {
		fs = append(fs, field("Scopes", stringsLit(r.Scopes)))
	}
	return fields(append(fs, field("Handler", resourceAdapter(r)))...)
}

// templateFields are the fields of a resource template's literal.
func templateFields(r *model.Resource) jen.Code {
	fs := describe([]jen.Code{field("URITemplate", jen.Lit(r.URI))}, r.Name, r.Title, r.Description)
	if r.MIMEType != "" {
		fs = append(fs, field("MIMEType", jen.Lit(r.MIMEType)))
	}
	var values, comps []jen.Code
	for _, prm := range r.Params {
		if prm.Values != nil {
			values = append(values, jen.Lit(prm.Name).Op(":").Add(jen.Values(litList(prm.Values)...)))
		}
		if prm.Completer != "" {
			comps = append(comps, jen.Lit(prm.Name).Op(":").Add(rt("CompleteFunc").Call(jen.Id(prm.Completer))))
		}
	}
	if values != nil {
		fs = append(fs, field("Values", jen.Map(jen.String()).Index().String().Add(fields(values...))))
	}
	if comps != nil {
		fs = append(fs, field("Complete", jen.Map(jen.String()).Add(rt("Completer")).Add(fields(comps...))))
	}
	if len(r.Scopes) > 0 {
		fs = append(fs, field("Scopes", stringsLit(r.Scopes)))
	}
	return fields(append(fs, field("Handler", resourceAdapter(r)))...)
}

// stringsLit is a []string literal on one line.
func stringsLit(vals []string) jen.Code { return jen.Index().String().Values(litList(vals)...) }

// litList is one string literal per value.
func litList(vals []string) []jen.Code {
	elems := make([]jen.Code, len(vals))
	for i, v := range vals {
		elems[i] = jen.Lit(v)
	}
	return elems
}

// resourceAdapter is the mcpruntime.ResourceHandler calling r's handler.
func resourceAdapter(r *model.Resource) *jen.Statement {
	return jen.Func().
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Add(rt("ResourceRequest"))).
		Params(jen.Op("*").Add(rt("ResourceResult")), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			args := []jen.Code{jen.Id("ctx")}
			for _, prm := range r.Params {
				args = append(args, parseParam(g, prm))
			}
			g.List(jen.Id("out"), jen.Err()).Op(":=").Add(callee(r.Receiver, r.Func)).Call(args...)
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
			g.Return(resourceResult(r), jen.Nil())
		})
}

// localName is the adapter's local variable for a template parameter; it
// avoids the adapter's own names.
func localName(name string) string {
	switch name {
	case "ctx", "req", "out", "err", "s":
		return name + "Var"
	}
	return name
}

// parseParam converts one template variable to its parameter type and
// returns the expression to pass; a variable that does not parse makes the
// URI name no resource. An optional variable the URI leaves out is the zero
// value, or nil for a pointer parameter.
func parseParam(g *jen.Group, prm *model.Param) jen.Code {
	raw := jen.Id("req").Dot("Vars").Index(jen.Lit(prm.Name))
	switch {
	case prm.Slice && prm.Explode:
		return jen.Id("req").Dot("Lists").Index(jen.Lit(prm.Name))
	case prm.Slice:
		return jen.Qual("strings", "Split").Call(raw, jen.Lit("/"))
	case prm.Parse == model.ParseString && !prm.Pointer:
		if prm.Type.Kind == model.Basic {
			return raw
		}
		return Type(prm.Type).Call(raw)
	}
	elem := prm.Type
	if prm.Pointer {
		elem = prm.Type.Elem
	}
	name := localName(prm.Name)
	if !prm.Optional {
		g.List(jen.Id(name), jen.Err()).Op(":=").Add(parseCall(prm, raw))
		g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), notFoundErr(prm)))
		return Type(elem).Call(jen.Id(name))
	}
	// var name T (or *T); if nameRaw, nameOK := req.Vars["name"]; nameOK { ... }
	rawID, okID, numID, valID := name+"Raw", name+"OK", name+"Num", name+"Val"
	g.Var().Id(name).Add(Type(prm.Type))
	g.If(jen.List(jen.Id(rawID), jen.Id(okID)).Op(":=").Add(raw), jen.Id(okID)).BlockFunc(func(b *jen.Group) {
		val := jen.Id(rawID)
		if prm.Parse != model.ParseString {
			b.List(jen.Id(numID), jen.Err()).Op(":=").Add(parseCall(prm, jen.Id(rawID)))
			b.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), notFoundErr(prm)))
			val = jen.Id(numID)
		}
		conv := Type(elem).Call(val)
		if prm.Parse == model.ParseString && elem.Kind == model.Basic {
			conv = val
		}
		if prm.Pointer {
			b.Id(valID).Op(":=").Add(conv)
			b.Id(name).Op("=").Op("&").Id(valID)
		} else {
			b.Id(name).Op("=").Add(conv)
		}
	})
	return jen.Id(name)
}

// parseCall is the strconv call parsing an integer variable.
func parseCall(prm *model.Param, raw jen.Code) jen.Code {
	fn := "ParseInt"
	if prm.Parse == model.ParseUint {
		fn = "ParseUint"
	}
	return jen.Qual("strconv", fn).Call(raw, jen.Lit(10), jen.Lit(prm.Bits))
}

// notFoundErr is the error of an integer variable that does not parse.
func notFoundErr(prm *model.Param) jen.Code {
	return jen.Qual("fmt", "Errorf").Call(jen.Lit("%w: "+prm.Name+": %v"), rt("ErrResourceNotFound"), jen.Err())
}

// resourceResult converts the handler's out to a *mcpruntime.ResourceResult.
func resourceResult(r *model.Resource) jen.Code {
	out := jen.Id("out")
	switch r.Contents {
	case model.ContentsBlob:
		return rt("BlobResource").Call(out)
	case model.ContentsOne:
		return rt("ContentsResource").Call(out)
	case model.ContentsSlice:
		return rt("ContentsResource").Call(out.Op("..."))
	case model.ContentsResult:
		return out
	}
	return rt("TextResource").Call(out)
}

// promptFields are the fields of a prompt's literal.
func promptFields(pr *model.Prompt) jen.Code {
	fs := describe(nil, pr.Name, pr.Title, pr.Description)
	if len(pr.Args) > 0 {
		args := make([]jen.Code, len(pr.Args))
		for i, a := range pr.Args {
			args[i] = promptArg(a)
		}
		fs = append(fs, field("Arguments", jen.Index().Add(rt("PromptArgument")).Add(fields(args...))))
	}
	if len(pr.Scopes) > 0 {
		fs = append(fs, field("Scopes", stringsLit(pr.Scopes)))
	}
	return fields(append(fs, field("Handler", promptAdapter(pr)))...)
}

// promptArg is one mcpruntime.PromptArgument literal.
func promptArg(a *model.PromptArg) jen.Code {
	fs := []jen.Code{field("Name", jen.Lit(a.Name))}
	if a.Description != "" {
		fs = append(fs, field("Description", jen.Lit(a.Description)))
	}
	if a.Required {
		fs = append(fs, field("Required", jen.True()))
	}
	if a.Values != nil {
		fs = append(fs, field("Values", stringsLit(a.Values)))
	}
	if a.Completer != "" {
		fs = append(fs, field("Complete", rt("CompleteFunc").Call(jen.Id(a.Completer))))
	}
	return fields(fs...)
}

// promptAdapter is the mcpruntime.PromptHandler calling pr's handler.
func promptAdapter(pr *model.Prompt) *jen.Statement {
	return jen.Func().
		Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Add(rt("PromptRequest"))).
		Params(jen.Op("*").Add(rt("PromptResult")), jen.Error()).
		BlockFunc(func(g *jen.Group) {
			args := []jen.Code{jen.Id("ctx")}
			if pr.In != nil {
				target := jen.Op("&").Id("in")
				if pr.In.Kind == model.Pointer {
					g.Id("in").Op(":=").New(Type(pr.In.Elem))
					target = jen.Id("in")
				} else {
					g.Var().Id("in").Add(Type(pr.In))
				}
				g.If(jen.Err().Op(":=").Id("req").Dot("Decode").Call(target), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Err()))
				args = append(args, jen.Id("in"))
			}
			g.List(jen.Id("out"), jen.Err()).Op(":=").Add(callee(pr.Receiver, pr.Func)).Call(args...)
			g.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))
			g.Return(promptResult(pr), jen.Nil())
		})
}

// promptResult converts the handler's out to a *mcpruntime.PromptResult.
func promptResult(pr *model.Prompt) jen.Code {
	switch pr.Kind {
	case model.PromptResult:
		return jen.Id("out")
	case model.PromptText:
		return rt("Messages").Call(rt("UserMessage").Call(rt("Text").Call(jen.Id("out"))))
	}
	return rt("Messages").Call(jen.Id("out").Op("..."))
}

// withRecv prepends the receiver type of a method expression to params.
func withRecv(r *model.Receiver, pointer bool, params []jen.Code) []jen.Code {
	if r == nil {
		return params
	}
	return append([]jen.Code{recvType(r.TypeName, pointer)}, params...)
}

// methodValue is F, T.M or (*T).M.
func methodValue(r *model.Receiver, pointer bool, fn string) *jen.Statement {
	switch {
	case r == nil:
		return jen.Id(fn)
	case pointer:
		return jen.Parens(jen.Op("*").Id(r.TypeName)).Dot(fn)
	}
	return jen.Id(r.TypeName).Dot(fn)
}

// callee is F, or recv.M on RegisterMCP's receiver parameter.
func callee(r *model.Receiver, fn string) *jen.Statement {
	if r == nil {
		return jen.Id(fn)
	}
	return jen.Id(r.Param).Dot(fn)
}
