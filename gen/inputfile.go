package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/gen/model"
)

// An inputFile is the input=FILE.json argument of //mcp:tool.
type inputFile struct {
	name string    // as written, relative to the package directory
	pos  token.Pos // of the argument
}

// inputFromFile records the input schema of a tool written as
// //mcp:tool input=FILE.json: the file's JSON, verbatim apart from
// indentation. The handler's In must be json.RawMessage or map[string]any.
func (a *analyzer) inputFromFile(t *model.Tool, sig *types.Signature, file inputFile, label string) bool {
	if sig.Params().Len() != 2 {
		a.errorf(file.pos, "%s: input=%s needs a handler with an input parameter of type json.RawMessage or map[string]any", label, file.name)
		return false
	}
	param := sig.Params().At(1)
	if !rawInputType(param.Type()) {
		a.errorf(file.pos, "%s: input=%s: the input parameter must be json.RawMessage or map[string]any, got %s",
			label, file.name, typeName(param.Type()))
		return false
	}
	in, err := modelType(param.Type())
	if err != nil {
		a.errorf(param.Pos(), "%s: input type %s: %v", label, typeName(param.Type()), err)
		return false
	}
	dir := filepath.Dir(a.fset.Position(file.pos).Filename)
	raw, msg := loadInputSchema(filepath.Join(dir, filepath.FromSlash(file.name)))
	if msg != "" {
		a.errorf(file.pos, "%s: input=%s: %s", label, file.name, msg)
		return false
	}
	t.In = in
	t.InputSchema = raw
	t.Strict = ""
	return true
}

// rawInputType reports whether t is json.RawMessage or map[string]any.
func rawInputType(t types.Type) bool {
	if isNamed(t, "encoding/json", "RawMessage") {
		return true
	}
	m, ok := types.Unalias(t).(*types.Map)
	if !ok {
		return false
	}
	k, ok := types.Unalias(m.Key()).(*types.Basic)
	if !ok || k.Kind() != types.String {
		return false
	}
	i, ok := types.Unalias(m.Elem()).(*types.Interface)
	return ok && i.Empty()
}

// loadInputSchema reads and checks an input= file, returning its indented
// JSON or what is wrong with it.
func loadInputSchema(path string) (json.RawMessage, string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the schema file: %v", err)
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Sprintf("not valid JSON: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Sprintf("not valid JSON: %v", err)
	}
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil, `the schema's root must be an object schema with "type": "object"`
	}
	if ref := remoteRef(root); ref != "" {
		return nil, fmt.Sprintf("$ref %q is not local: only references within the file (#...) are allowed", ref)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const url = "mcpgen:///input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Sprintf("not a valid JSON Schema 2020-12: %s", oneLine(err))
	}
	if _, err := c.Compile(url); err != nil {
		return nil, fmt.Sprintf("not a valid JSON Schema 2020-12: %s", oneLine(err))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(data), "", "  "); err != nil {
		return nil, fmt.Sprintf("not valid JSON: %v", err)
	}
	return out.Bytes(), ""
}

// remoteRef returns the first $ref or $dynamicRef in v that does not start
// with "#", or "".
func remoteRef(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if s, ok := v[k].(string); ok && !strings.HasPrefix(s, "#") {
				return s
			}
		}
		for _, e := range v {
			if r := remoteRef(e); r != "" {
				return r
			}
		}
	case []any:
		for _, e := range v {
			if r := remoteRef(e); r != "" {
				return r
			}
		}
	}
	return ""
}

// noLoader refuses every remote resource; the meta-schemas are built in.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote schema %s not loaded", url)
}

// oneLine flattens an error message onto one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
