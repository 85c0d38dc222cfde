package goplsport

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestSameContractAsGopls compares the schemas mcpgen generated for the
// port with the ones gopls v0.23.0 advertises (testdata/gopls-v0.23.0-tools.json:
// the inputSchema and outputSchema of each tool in its tools/list answer,
// captured by running `gopls mcp` over stdio). After the normalizations
// below, which do not change which values a schema accepts, they must be
// equal, but for the differences listed in wantDiffer. docs/migrating.md
// explains each one.
func TestSameContractAsGopls(t *testing.T) {
	data, err := os.ReadFile("testdata/gopls-v0.23.0-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var gopls map[string]map[string]any
	if err := json.Unmarshal(data, &gopls); err != nil {
		t.Fatal(err)
	}
	ours := generatedContracts(t)
	if len(ours) != len(gopls) {
		t.Errorf("the port has %d tools, gopls %d", len(ours), len(gopls))
	}
	// wantDiffer are the schemas that differ on purpose, with mcpgen's.
	wantDiffer := map[string]string{
		// gopls writes this one by hand: an object with no properties,
		// which accepts any arguments; mcpgen closes it.
		"go_workspace inputSchema": `{"type":"object","additionalProperties":false}`,
	}
	for name, theirs := range gopls {
		for _, kind := range []string{"inputSchema", "outputSchema"} {
			a, b := normalize(theirs[kind]), normalize(ours[name][kind])
			if want, ok := wantDiffer[name+" "+kind]; ok {
				var w any
				if err := json.Unmarshal([]byte(want), &w); err != nil {
					t.Fatal(err)
				}
				if reflect.DeepEqual(a, b) || !reflect.DeepEqual(b, w) {
					t.Errorf("%s %s: got %s, want the documented difference %s (gopls: %s)", name, kind, show(b), want, show(a))
				}
				continue
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s differs from gopls's:\n ours:  %s\n gopls: %s", name, kind, show(b), show(a))
			}
		}
	}
}

// generatedContracts reads the schemas of the generated tools from
// tools/list.
func generatedContracts(t *testing.T) map[string]map[string]any {
	res := serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`)
	var list struct {
		Tools []struct {
			Name         string `json:"name"`
			InputSchema  any    `json:"inputSchema"`
			OutputSchema any    `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, tool := range list.Tools {
		out[tool.Name] = map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema}
	}
	return out
}

// normalize rewrites a schema so that equivalent spellings compare equal:
//   - the official Go SDK writes a nullable X as "type": ["null", X], mcpgen
//     as "anyOf": [X, {"type": "null"}]: both become the SDK's form;
//   - mcpgen describes an object with its Go type's doc comment, the SDK
//     never does: descriptions of objects are dropped.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, x := range v {
			m[k] = normalize(x)
		}
		if alts, ok := m["anyOf"].([]any); ok && len(alts) == 2 {
			s, _ := alts[0].(map[string]any)
			null, _ := alts[1].(map[string]any)
			if typ, ok := s["type"].(string); ok && len(null) == 1 && null["type"] == "null" {
				delete(m, "anyOf")
				for k, x := range s {
					m[k] = x
				}
				m["type"] = []any{"null", typ}
			}
		}
		if m["type"] == "object" {
			delete(m, "description")
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	}
	return v
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
