package runtime

import (
	"context"
	"testing"
)

// BenchmarkPrimitives measures one 2026-07-28 request per iteration through
// HandleRaw on the paths of resources, prompts, completion and an MRTR round:
// routing a URI among templates, checking prompt arguments, finding a completer,
// and a tools/call that ends its first round with input_required.
func BenchmarkPrimitives(b *testing.B) {
	s := NewServer(Implementation{Name: "bench", Version: "0"}, &Options{Logger: discardLogger()})
	for _, tpl := range []string{"notes://{name}", "notes://{+path}", "notes://{name}/raw", "files:///{+path}"} {
		s.AddResourceTemplate(&ResourceTemplate{URITemplate: tpl, Values: map[string][]string{"name": {"a", "b", "readme"}},
			Handler: func(_ context.Context, req *ResourceRequest) (*ResourceResult, error) {
				return TextResource("contents of " + req.URI), nil
			}})
	}
	s.AddResource(&Resource{URI: "notes://index", MIMEType: "text/plain",
		Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) { return TextResource("index"), nil }})
	s.AddPrompt(&Prompt{Name: "triage", Arguments: []PromptArgument{{Name: "severity", Required: true, Values: []string{"p1", "p2"}}, {Name: "note"}},
		Handler: func(_ context.Context, req *PromptRequest) (*PromptResult, error) {
			return Messages(UserMessage(Text("triage " + req.Arguments["severity"]))), nil
		}})
	s.AddTool(&Tool{Name: "confirm_me", InputSchema: []byte(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			var res ElicitResult
			if err := Ask(ctx, AskElicitation("ok", "Go on?", []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`), &res)); err != nil {
				return nil, err
			}
			return &ToolResult{Content: []Content{Text(string(res.Action))}}, nil
		}})
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	for _, c := range []struct{ name, line string }{
		{"read_template", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://readme/raw",` + meta + `}}`},
		{"read_direct", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"notes://index",` + meta + `}}`},
		{"list_templates", `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{` + meta + `}}`},
		{"get_prompt", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"triage","arguments":{"severity":"p1","note":"x"},` + meta + `}}`},
		{"complete", `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"triage"},"argument":{"name":"severity","value":"p"},` + meta + `}}`},
		{"input_required", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"confirm_me","arguments":{},` + meta + `}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			raw := []byte(c.line)
			if r := s.HandleRaw(b.Context(), raw, nil, nil); r.Code != 0 || len(r.Body) == 0 {
				b.Fatalf("reply %d %s", r.Code, r.Body)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.HandleRaw(b.Context(), raw, nil, nil)
			}
		})
	}
}
