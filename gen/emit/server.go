package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/gen/model"
)

// Server returns the formatted source of the main package that serves every
// tool of s.Packages over the runtime's transports (stdio by default).
func Server(s *model.Server) ([]byte, error) {
	var paths []string
	for _, p := range s.Packages {
		paths = append(paths, p.Path)
	}
	f := newFile("main", "main", "source: "+strings.Join(paths, ", "))
	f.PackageComment(fmt.Sprintf("Command %s serves the MCP tools of %s.", s.Command, strings.Join(paths, ", ")))
	f.PackageComment("Run it with -help for the transports and flags.")
	for _, p := range s.Packages {
		importName(f, p.Path, p.Name)
	}
	// Optional components are linked only when needed: go-jose and go-redis
	// cost every server their package initialisation and binary size.
	if s.Auth { // -auth-issuer, -auth-audience: OAuth over -http
		f.Anon(model.AuthPath)
	}
	if s.Redis { // -store redis://... for replicas sharing the ledger, task records and change notifications
		f.Anon(model.RedisStorePath)
	}
	f.Func().Id("main").Params().BlockFunc(func(g *jen.Group) {
		g.Id("s").Op(":=").Add(rt("NewServer")).Call(
			rt("Implementation").Values(field("Name", jen.Lit(s.Name)), field("Version", jen.Lit("dev"))),
			jen.Nil(),
		)
		locals := map[string]bool{"s": true, "err": true, "main": true, "os": true, "fmt": true, "serve": true, model.RuntimeAlias: true}
		for _, p := range s.Packages {
			locals[p.Name] = true
		}
		if s.Otel { // OpenTelemetry (OTEL_* variables): spans, metrics, the audit record's trace id
			g.Qual(model.OtelPath, "Use").Call(jen.Id("s"))
		}
		for _, p := range s.Packages {
			register(g, p, locals)
		}
		g.Qual("os", "Exit").Call(jen.Qual(model.ServePath, "Main").Call(jen.Id("s")))
	})
	out, _, err := render(f, nil)
	return out, err
}

// register obtains p's receivers and calls p.RegisterMCP.
func register(g *jen.Group, p *model.Package, locals map[string]bool) {
	args := []jen.Code{jen.Id("s")}
	for _, r := range p.Receivers {
		args = append(args, receiverValue(g, p, r, locals))
	}
	g.Qual(p.Path, "RegisterMCP").Call(args...)
}

// receiverValue returns the expression passing r to RegisterMCP, declaring a
// variable for a constructor's result first.
func receiverValue(g *jen.Group, p *model.Package, r *model.Receiver, locals map[string]bool) jen.Code {
	c := r.Constructor
	if c == nil {
		if r.Pointer {
			return jen.Op("&").Qual(p.Path, r.TypeName).Values()
		}
		return jen.Qual(p.Path, r.TypeName).Values()
	}
	v := freshLocal(locals, r.Param)
	if c.Err {
		g.List(jen.Id(v), jen.Err()).Op(":=").Qual(p.Path, c.Func).Call()
		g.If(jen.Err().Op("!=").Nil()).Block(
			jen.Qual("fmt", "Fprintf").Call(jen.Qual("os", "Stderr"), jen.Lit(p.Name+"."+c.Func+": %v\n"), jen.Err()),
			jen.Qual("os", "Exit").Call(jen.Lit(1)),
		)
	} else {
		g.Id(v).Op(":=").Qual(p.Path, c.Func).Call()
	}
	switch {
	case r.Pointer && !c.Pointer:
		return jen.Op("&").Id(v)
	case !r.Pointer && c.Pointer:
		return jen.Op("*").Id(v)
	}
	return jen.Id(v)
}

// freshLocal returns a variable name based on base that is not in locals, and
// adds it.
func freshLocal(locals map[string]bool, base string) string {
	name := base
	for i := 2; locals[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	locals[name] = true
	return name
}
