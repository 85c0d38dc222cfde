package fullschema_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	_ "github.com/mcpgen/mcpgen/runtime/fullschema"
)

// contactSchema is beyond the built-in validator: allOf, if/then/else, $anchor.
const contactSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
    "phone": {"type": "string"},
    "email": {"type": "string", "format": "email"},
    "since": {"type": "string", "format": "date-time"},
    "id": {"type": "string", "format": "uuid"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

func TestFullSchemaValidates(t *testing.T) {
	if err := mcpruntime.CheckSchema(json.RawMessage(contactSchema)); err == nil {
		t.Fatal("CheckSchema accepts the contact schema: it is not beyond the built-in validator")
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "t", Version: "1"}, nil)
	ran := 0
	s.AddTool(&mcpruntime.Tool{Name: "contact", InputSchema: json.RawMessage(contactSchema),
		Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			ran++
			return &mcpruntime.ToolResult{Content: []mcpruntime.Content{mcpruntime.Text("ok")}}, nil
		}})
	for _, tt := range []struct {
		args string
		want string // "" for a call that runs
	}{
		{`{"contactMethod":"phone","phone":"1"}`, ""},
		{`{"email":"a@b.c","id":"not-a-uuid"}`, ""},
		{`{"email":"a@b.c","since":"2006-01-02T15:04:05Z"}`, ""},
		{`{"contactMethod":"phone","email":"a@b.c"}`, "- (root): required: missing property 'phone'"},
		{`{"email":"not an email"}`, "- /email: format:"},
		{`{"email":"a@b.c","since":"0000-01-01T00:00:+0Z"}`, "- /since: format:"},
		{`{"email":"a@b.c","name":"x","name":"y"}`, "- /name: the member name 'name' is repeated"},
		{`{"email":"a@b.c","address":{"street":1e400}}`, "- /address/street: got a number: a number is out of range"},
		{`{"email":"a@b.c","x":1}`, "additionalProperties"},
	} {
		raw := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"contact","arguments":` + tt.args + meta + `}}`
		r := s.HandleRaw(context.Background(), []byte(raw), nil, nil)
		var resp struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.Body, &resp); err != nil || len(resp.Result.Content) == 0 {
			t.Fatalf("%s: reply %s", tt.args, r.Body)
		}
		text := resp.Result.Content[0].Text
		switch {
		case tt.want == "" && (resp.Result.IsError || text != "ok"):
			t.Errorf("%s: got %q, want the tool to run", tt.args, text)
		case tt.want != "" && (!resp.Result.IsError || !strings.Contains(text, tt.want) || !strings.HasPrefix(text, "invalid arguments for tool contact:")):
			t.Errorf("%s: got %q, want an isError naming %q", tt.args, text, tt.want)
		}
		if strings.Contains(text, "urn:") || strings.Contains(text, "/work/") {
			t.Errorf("%s: message leaks an internal location: %q", tt.args, text)
		}
	}
	if ran != 3 {
		t.Errorf("the handler ran %d times, want 3", ran)
	}
}
