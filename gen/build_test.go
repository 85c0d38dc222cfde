package gen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/emit"
	"github.com/mcpgen/mcpgen/gen/model"
)

// roundtripPath is the import path of the round-trip helper in the workspace.
const roundtripPath = "example.com/roundtrip"

// metaValidate compiles every emitted schema against the 2020-12 metaschema
// and checks the roots the protocol constrains.
func metaValidate(t *testing.T, res *gen.Result) {
	t.Helper()
	if res.Model == nil || len(res.Diagnostics) > 0 {
		return
	}
	for _, p := range res.Model.Packages {
		for _, tool := range p.Tools {
			checkSchema(t, tool.Name+" inputSchema", tool.InputSchema, true)
			checkSchema(t, tool.Name+" outputSchema", tool.OutputSchema, false)
			checkSchema(t, tool.Name+" legacy outputSchema", tool.LegacyOutputSchema, true)
			if tool.OutputSchema != nil && tool.LegacyWrap == "" && !objectRoot(t, tool.OutputSchema) {
				t.Errorf("%s: outputSchema root is not an object but no legacy wrapping was emitted", tool.Name)
			}
		}
	}
}

// checkSchema compiles doc (if not nil) with the 2020-12 metaschema; object
// requires a root {"type": "object"}.
func checkSchema(t *testing.T, name string, doc json.RawMessage, object bool) {
	t.Helper()
	if doc == nil {
		return
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Errorf("%s: not JSON: %v", name, err)
		return
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///schema.json", v); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if _, err := c.Compile("mem:///schema.json"); err != nil {
		t.Errorf("%s: not a valid 2020-12 schema: %v", name, err)
	}
	if object && !objectRoot(t, doc) {
		t.Errorf("%s: root type is not \"object\":\n%s", name, doc)
	}
}

// objectRoot reports whether the schema's root has "type": "object".
func objectRoot(t *testing.T, doc json.RawMessage) bool {
	var root struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Errorf("schema root: %v", err)
	}
	return root.Type == "object"
}

// buildGenerated puts every generated case in one Go workspace with the
// round-trip helper, adds a round-trip function to each tool package, and
// runs go vet over all of them and one test binary calling every round trip.
func buildGenerated(t *testing.T, root string, cases []*goldenCase) {
	if len(cases) == 0 {
		t.Fatal("no golden case generated code")
	}
	if testing.Short() {
		t.Skip("builds every generated case; skipped in -short mode")
	}
	ws := t.TempDir()
	work := fmt.Sprintf("go 1.26.8\n\nuse ./roundtrip\nuse ./alltests\n\nreplace github.com/mcpgen/mcpgen => %s\n", root)
	var patterns []string
	var pkgs []*model.Package
	for _, c := range cases {
		writeCase(t, c)
		work += fmt.Sprintf("use %s\n", c.dir)
		patterns = append(patterns, c.dir+"/...")
		pkgs = append(pkgs, c.res.Model.Packages...)
	}
	writeHelper(t, ws, root, "roundtrip", []byte(roundtripSource(t, "roundtrip.go")))
	writeFile(t, filepath.Join(ws, "roundtrip", "roundtrip_test.go"), []byte(roundtripSource(t, "roundtrip_test.go")))
	writeHelper(t, ws, root, "alltests", nil)
	writeFile(t, filepath.Join(ws, "alltests", "all_test.go"), allTests(t, pkgs))
	writeFile(t, filepath.Join(ws, "go.work"), []byte(work))
	// Some inputs pin duplicate json tags on purpose: skip the structtag check.
	goCmd(t, ws, append([]string{"vet", "-structtag=false"}, patterns...)...)
	goCmd(t, ws, "test", "-count=1", "-v", roundtripPath, allTestsPath)
	for _, c := range cases {
		runServer(t, ws, c)
	}
}

// allTestsPath is the package whose single test binary runs every round trip.
const allTestsPath = "example.com/alltests"

// allTests returns a test calling MCPRoundTrip of every package.
func allTests(t *testing.T, pkgs []*model.Package) []byte {
	f := jen.NewFile("alltests")
	f.Func().Id("TestRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		for _, p := range pkgs {
			g.Id("t").Dot("Run").Call(jen.Lit(p.Path), jen.Qual(p.Path, "MCPRoundTrip"))
		}
	})
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// goCmd runs the go command in the workspace dir, failing t on error.
func goCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"), "GOPROXY=off", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", args[0], err, out)
	}
	t.Logf("go %s:\n%s", args[0], out)
}

// roundtripSource reads a file of the round-trip helper.
func roundtripSource(t *testing.T, name string) string {
	src, err := os.ReadFile(filepath.Join("testdata", "roundtrip", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// writeHelper writes module example.com/name into ws/name, with src as
// name.go when not nil.
func writeHelper(t *testing.T, ws, root, name string, src []byte) {
	dir := filepath.Join(ws, name)
	if src != nil {
		writeFile(t, filepath.Join(dir, name+".go"), src)
	}
	mod := "module example.com/" + name + "\n\ngo 1.26.8\n" + string(requireRoot(t, root))
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(mod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.sum"), sum)
}

// writeCase writes the generated files of c and a round-trip test for each
// of its packages.
func writeCase(t *testing.T, c *goldenCase) {
	for _, f := range c.res.Files {
		writeFile(t, f.Path, f.Content)
	}
	for _, p := range c.res.Model.Packages {
		src, err := roundtripTest(p)
		if err != nil {
			t.Fatalf("%s: round-trip test for %s: %v", c.name, p.Path, err)
		}
		writeFile(t, filepath.Join(p.Dir, "mcp_roundtrip.go"), src)
	}
}

// roundtripTest returns the source of MCPRoundTrip(t), which round-trips
// every tool of p (exported so that one test binary calls them all).
func roundtripTest(p *model.Package) ([]byte, error) {
	f := jen.NewFilePathName(p.Path, p.Name)
	for _, tool := range p.Tools {
		aliasTaken(f, p.Taken, tool.In)
		aliasTaken(f, p.Taken, tool.Out)
	}
	enums, err := enumConstants(p.Dir)
	if err != nil {
		return nil, err
	}
	f.Func().Id("MCPRoundTrip").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		for _, names := range enums {
			g.Qual(roundtripPath, "Enum").Call(idents(names)...)
		}
		for _, tool := range p.Tools {
			roundtripCalls(g, tool)
		}
	})
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// aliasTaken imports the packages of t's named types whose names the
// package declares under an mcp prefix, as the generated file does.
func aliasTaken(f *jen.File, taken []string, t *model.Type) {
	if t == nil {
		return
	}
	if slices.Contains(taken, t.PkgName) {
		f.ImportAlias(t.Path, "mcp"+t.PkgName)
	}
	for _, a := range t.Args {
		aliasTaken(f, taken, a)
	}
	aliasTaken(f, taken, t.Key)
	aliasTaken(f, taken, t.Elem)
}

// roundtripCalls calls roundtrip.Out and roundtrip.In for one tool.
func roundtripCalls(g *jen.Group, tool *model.Tool) {
	if tool.OutputSchema != nil {
		legacy := jen.Nil()
		if tool.LegacyOutputSchema != nil {
			legacy = jen.Id(tool.VarPrefix + "LegacyOutputSchema")
		}
		g.Qual(roundtripPath, "Out").Types(emit.Type(tool.Out)).Call(
			jen.Id("t"), jen.Lit(tool.Name), jen.Id(tool.VarPrefix+"OutputSchema"), legacy, jen.Lit(tool.LegacyWrap))
	}
	if tool.In != nil {
		in := tool.In
		if in.Kind == model.Pointer {
			in = in.Elem
		}
		g.Qual(roundtripPath, "In").Types(emit.Type(in)).Call(
			jen.Id("t"), jen.Lit(tool.Name), jen.Id(tool.VarPrefix+"InputSchema"))
	}
}

// idents converts names to identifiers.
func idents(names []string) []jen.Code {
	var ids []jen.Code
	for _, n := range names {
		ids = append(ids, jen.Id(n))
	}
	return ids
}

// enumConstants finds, in the package's hand-written files, the constants
// declared with a type of the package (the ones gen/schema turns into enums),
// grouped by type in declaration order.
func enumConstants(dir string) ([][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	byType := map[string][]string{}
	declared := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || strings.HasPrefix(filepath.Base(file), "mcp_") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for typ, names := range typedConsts(f) {
			byType[typ] = append(byType[typ], names...)
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					declared[spec.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	var out [][]string
	for _, typ := range slices.Sorted(maps.Keys(byType)) {
		if declared[typ] {
			out = append(out, byType[typ])
		}
	}
	return out, nil
}

// typedConsts returns the constants of f whose type is a local identifier,
// following the implicit repetition of a const group.
func typedConsts(f *ast.File) map[string][]string {
	out := map[string][]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		var typ string
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if vs.Type != nil || len(vs.Values) > 0 {
				typ = ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
			}
			for _, n := range vs.Names {
				if typ != "" && n.Name != "_" {
					out[typ] = append(out[typ], n.Name)
				}
			}
		}
	}
	return out
}

// runServer builds the server main of c, if any, and feeds it every *.jsonl
// input of the case over stdio, checking each answer (see checkAnswers).
func runServer(t *testing.T, ws string, c *goldenCase) {
	srv := c.res.Model.Server
	if srv == nil {
		return
	}
	var scripts []txtar.File
	for _, f := range c.ar.Files {
		if strings.HasSuffix(f.Name, ".jsonl") {
			scripts = append(scripts, f)
		}
	}
	if len(scripts) == 0 {
		return
	}
	bin := filepath.Join(ws, "bin", c.name)
	goCmd(t, ws, "build", "-o", bin, srv.Dir)
	for _, script := range scripts {
		cmd := exec.Command(bin)
		cmd.Stdin = bytes.NewReader(script.Data)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %s: server: %v\n%s", c.name, script.Name, err, stderr.Bytes())
			continue
		}
		checkAnswers(t, c.name+": "+script.Name, c.res.Model, script.Data, out)
	}
}

// A rpcMessage is the part of a JSON-RPC message the answer checks read.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string          `json:"name"`
		Meta json.RawMessage `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// checkAnswers checks that every request got a result (no JSON-RPC error,
// except for ids starting with "internal-error", which want -32603),
// that tools/list lists exactly the model's tools and that every tools/call
// succeeded, with structuredContent when the tool has an outputSchema,
// wrapped for 2025-11-25 requests (those without _meta) when it must be.
func checkAnswers(t *testing.T, label string, prog *model.Program, requests, answers []byte) {
	byID := map[string]rpcMessage{}
	for _, line := range bytes.Split(bytes.TrimSpace(answers), []byte("\n")) {
		var m rpcMessage
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%s: answer %s: %v", label, line, err)
		}
		byID[string(m.ID)] = m
	}
	tools := map[string]*model.Tool{}
	for _, p := range prog.Packages {
		for _, tool := range p.Tools {
			tools[tool.Name] = tool
		}
	}
	for _, line := range bytes.Split(bytes.TrimSpace(requests), []byte("\n")) {
		var req rpcMessage
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatalf("%s: request %s: %v", label, line, err)
		}
		if req.ID == nil {
			continue
		}
		ans, ok := byID[string(req.ID)]
		switch {
		case !ok:
			t.Errorf("%s: no answer to %s", label, line)
		case bytes.HasPrefix(req.ID, []byte(`"internal-error`)):
			checkInternalError(t, label, line, ans)
		case ans.Error != nil || ans.Result == nil:
			t.Errorf("%s: %s got error %s", label, line, ans.Error)
		case req.Method == "tools/list":
			checkList(t, label, tools, ans.Result)
		case req.Method == "tools/call":
			checkCall(t, label, tools[req.Params.Name], req.Params.Meta == nil, ans.Result)
		}
	}
}

// checkInternalError checks the answer to a request whose id starts with
// "internal-error": a JSON-RPC error -32603 (e.g. a nil pointer result).
func checkInternalError(t *testing.T, label string, req []byte, ans rpcMessage) {
	var e struct {
		Code int `json:"code"`
	}
	if ans.Error == nil || json.Unmarshal(ans.Error, &e) != nil || e.Code != -32603 {
		t.Errorf("%s: %s: got result %s, error %s; want error -32603", label, req, ans.Result, ans.Error)
	}
}

// checkList compares the listed tool names with the model's.
func checkList(t *testing.T, label string, tools map[string]*model.Tool, result json.RawMessage) {
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		t.Errorf("%s: tools/list result: %v", label, err)
		return
	}
	var got []string
	for _, tool := range list.Tools {
		got = append(got, tool.Name)
	}
	slices.Sort(got)
	want := slices.Sorted(maps.Keys(tools))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: tools/list names (-want +got):\n%s", label, diff)
	}
}

// checkCall checks one tools/call result.
func checkCall(t *testing.T, label string, tool *model.Tool, legacy bool, result json.RawMessage) {
	var res struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Content           []any           `json:"content"`
	}
	if err := json.Unmarshal(result, &res); err != nil || tool == nil {
		t.Errorf("%s: tools/call result %s (tool known: %v): %v", label, result, tool != nil, err)
		return
	}
	if res.IsError {
		t.Errorf("%s: tools/call %s: isError: %s", label, tool.Name, result)
		return
	}
	if tool.OutputSchema == nil {
		return
	}
	if res.StructuredContent == nil {
		t.Errorf("%s: tools/call %s: no structuredContent in %s", label, tool.Name, result)
		return
	}
	if legacy && tool.LegacyWrap != "" {
		var wrapped map[string]json.RawMessage
		if json.Unmarshal(res.StructuredContent, &wrapped) != nil || wrapped[tool.LegacyWrap] == nil {
			t.Errorf("%s: tools/call %s (2025-11-25): structuredContent %s is not wrapped in %q",
				label, tool.Name, res.StructuredContent, tool.LegacyWrap)
		}
	}
}
