package interop

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/interop/mcpgotags"
	"github.com/mcpgen/mcpgen/interop/sdktags"
)

// TestGoSDKTagDescriptions generates package sdktags, written in the
// official Go SDK's tag style, with mcpgen -tags=gosdk, and compares each
// property's description with the one the SDK's own schema inference
// (github.com/google/jsonschema-go, which mcp.AddTool uses) gives it, in
// the input and the output schema.
func TestGoSDKTagDescriptions(t *testing.T) {
	res, err := gen.Generate(context.Background(), gen.Config{Patterns: []string{"./sdktags"}, Tags: "gosdk", Env: os.Environ()})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("mcpgen -tags=gosdk: %v %v", err, res.Diagnostics)
	}
	sdk, err := jsonschema.For[sdktags.Forecast](nil)
	if err != nil {
		t.Fatal(err)
	}
	want := descriptions(t, sdk)
	if len(want) < 9 {
		t.Fatalf("the SDK described %d properties: %v", len(want), want)
	}
	tool := res.Model.Packages[0].Tools[0]
	var sdkJSON, ours any
	if b, err := json.Marshal(sdk); err != nil || json.Unmarshal(b, &sdkJSON) != nil || json.Unmarshal(tool.InputSchema, &ours) != nil {
		t.Fatalf("schemas: %v", err)
	}
	wantReq, gotReq := map[string]string{}, map[string]string{}
	collectRequired(sdkJSON, "", wantReq)
	collectRequired(ours, "", gotReq)
	if wantReq["/near/"] == "" || wantReq["/"] == "" {
		t.Fatalf("the SDK's required lists: %v", wantReq)
	}
	for path, r := range wantReq {
		if gotReq[path] != r {
			t.Errorf("input %s: mcpgen requires %s, the SDK %s", path, gotReq[path], r)
		}
	}
	for kind, raw := range map[string]json.RawMessage{"input": tool.InputSchema, "output": tool.OutputSchema} {
		var s any
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		collect(s, "", got)
		for path, d := range want {
			if got[path] != d {
				t.Errorf("%s %s: mcpgen's description is %q, the SDK's %q", kind, path, got[path], d)
			}
		}
	}
}

// descriptions maps the JSON path of every property the SDK describes to
// its description.
func descriptions(t *testing.T, s *jsonschema.Schema) map[string]string {
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	collect(v, "", out)
	return out
}

// collect walks a schema's properties and array items (through mcpgen's
// anyOf-with-null), recording non-empty property descriptions by path.
func collect(v any, path string, out map[string]string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	if d, ok := m["description"].(string); ok && d != "" && path != "" {
		out[path] = d
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok {
				c := map[string]any{}
				for k, x := range am {
					if k != "description" {
						c[k] = x
					}
				}
				collect(c, path, out)
			}
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			collect(p, path+"/"+name, out)
		}
	}
	if items, ok := m["items"]; ok {
		if im, ok := items.(map[string]any); ok {
			c := map[string]any{}
			for k, x := range im {
				if k != "description" {
					c[k] = x
				}
			}
			collect(c, path+"/*", out)
		}
	}
}

// TestMCPGoTagDescriptions generates package sdktags with mcpgen
// -tags=mcpgo and compares each property's description and enum with those
// of the schema mcp-go derives for the same struct (mcp.WithInputSchema).
func TestMCPGoTagDescriptions(t *testing.T) {
	res, err := gen.Generate(context.Background(), gen.Config{Patterns: []string{"./mcpgotags"}, Tags: "mcpgo", Env: os.Environ()})
	if err != nil || len(res.Diagnostics) > 0 {
		t.Fatalf("mcpgen -tags=mcpgo: %v %v", err, res.Diagnostics)
	}
	tool := mcpgomcp.NewTool("report", mcpgomcp.WithInputSchema[mcpgotags.Weather]())
	var theirs any
	if err := json.Unmarshal(tool.RawInputSchema, &theirs); err != nil {
		t.Fatalf("mcp-go's schema %s: %v", tool.RawInputSchema, err)
	}
	want, wantEnums := map[string]string{}, map[string]string{}
	collect(theirs, "", want)
	collectEnums(theirs, "", wantEnums)
	if len(want) < 6 || len(wantEnums) != 2 {
		t.Fatalf("mcp-go described %v, enums %v", want, wantEnums)
	}
	var ours any
	if err := json.Unmarshal(res.Model.Packages[0].Tools[0].InputSchema, &ours); err != nil {
		t.Fatal(err)
	}
	got, gotEnums := map[string]string{}, map[string]string{}
	collect(ours, "", got)
	collectEnums(ours, "", gotEnums)
	for path, d := range want {
		if got[path] != d {
			t.Errorf("%s: mcpgen's description is %q, mcp-go's %q", path, got[path], d)
		}
	}
	for path, e := range wantEnums {
		if gotEnums[path] != e {
			t.Errorf("%s: mcpgen's enum is %s, mcp-go's %s", path, gotEnums[path], e)
		}
	}
}

// collectRequired records the required list of every object, sorted, as
// JSON, by path (through mcpgen's anyOf-with-null).
func collectRequired(v any, path string, out map[string]string) {
	m, _ := v.(map[string]any)
	if r, ok := m["required"].([]any); ok {
		names := make([]string, len(r))
		for i, n := range r {
			names[i], _ = n.(string)
		}
		slices.Sort(names)
		b, _ := json.Marshal(names)
		out[path+"/"] = string(b)
	}
	if alts, ok := m["anyOf"].([]any); ok {
		for _, a := range alts {
			collectRequired(a, path, out)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			collectRequired(p, path+"/"+name, out)
		}
	}
	if items, ok := m["items"]; ok {
		collectRequired(items, path+"/*", out)
	}
}

// collectEnums records the enum of every property, as JSON, by path.
func collectEnums(v any, path string, out map[string]string) {
	m, _ := v.(map[string]any)
	if e, ok := m["enum"]; ok {
		b, _ := json.Marshal(e)
		out[path] = string(b)
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			collectEnums(p, path+"/"+name, out)
		}
	}
}
