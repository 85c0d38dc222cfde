package runtime_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestNumberOutOfRange pins a crash: santhosh-tekuri/jsonschema v6.0.3 panics on a
// number math/big refuses when the schema bounds it, and accepts 1e1000010 as at
// most 10 when multipleOf is present. Each must be refused as invalid arguments
// (isError), and the server must keep answering.
func TestNumberOutOfRange(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"x":{"type":"number","minimum":0,"maximum":10}},"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"number","minimum":0,"maximum":10,"multipleOf":0.5}},"additionalProperties":false}`,
		`{"type":"object","properties":{"x":{"type":"array","items":{"type":"number","exclusiveMaximum":3}}},"additionalProperties":false}`,
	} {
		s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "n", Version: "1"}, &mcpruntime.Options{Logger: quietLogger()})
		ran := 0
		s.AddTool(&mcpruntime.Tool{Name: "num", InputSchema: json.RawMessage(schema),
			Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
				ran++
				return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("ran")}}, nil
			}})
		for _, n := range []string{"0.0000001e1000010", "1e1000010", "-1e1000010", "[1e400]", "[0.0000001e1000010]"} {
			if strings.HasPrefix(n, "[") != strings.Contains(schema, "array") {
				continue
			}
			for _, meta := range []string{modernMetaParams, ""} {
				raw := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"num","arguments":{"x":` + n + `}` + meta + `}}`
				r := s.HandleRaw(context.Background(), []byte(raw), legacySession(t, s), nil)
				if r.Code != 0 || !strings.Contains(string(r.Body), `"isError":true`) || !strings.Contains(string(r.Body), "out of range") {
					t.Errorf("schema %s, x=%s: got %d %s, want isError out of range", schema, n, r.Code, r.Body)
				}
			}
		}
		if ran != 0 {
			t.Errorf("schema %s: handler ran %d times on out-of-range numbers", schema, ran)
		}
		ok := s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"num","arguments":{}`+modernMetaParams+`}}`), nil, nil)
		if !strings.Contains(string(ok.Body), `"ran"`) {
			t.Errorf("after out-of-range numbers: got %s, want the tool to run", ok.Body)
		}
	}
}
