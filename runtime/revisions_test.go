package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden wire transcripts in testdata/revisions")

// revisionServer has one of everything whose shape differs between revisions:
// titles, tool annotations, an output schema and structured output, every content
// block with _meta, progress with a message, resources, templates and prompts
// with titles, completions, and questions for the client.
func revisionServer(t *testing.T) *Server {
	s := newTestServer(t, &Options{Instructions: "revisions"})
	s.info.Title = "Revision Server"
	s.AddTool(&Tool{
		Name: "shaped", Title: "Shaped", Description: "Structured output with progress.",
		Annotations:  &ToolAnnotations{Title: "Shaped", ReadOnlyHint: true},
		InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			if err := Progress(ctx, 1, 2, "half way"); err != nil {
				return nil, err
			}
			return &ToolResult{StructuredContent: json.RawMessage(`{"n":7}`)}, nil
		},
	})
	s.AddTool(&Tool{
		Name: "rich", Description: "Every content block.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, *ToolRequest) (*ToolResult, error) {
			text := Text("hello")
			text.Meta = map[string]any{"k": "v"}
			link := ResourceLink("file:///notes/1.txt", "note 1", "text/plain")
			link.Title = "Note one"
			return &ToolResult{Content: []Content{
				text,
				Image([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
				Audio([]byte("RIFF"), "audio/wav"),
				EmbeddedResource(ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "a", Meta: map[string]any{"k": "v"}}),
				link,
			}}, nil
		},
	})
	s.AddTool(&Tool{
		Name: "whoami", Description: "The request's revision.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			info := RequestFrom(ctx)
			return &ToolResult{Content: []Content{Text(info.ProtocolVersion)}}, nil
		},
	})
	s.AddTool(&Tool{
		Name: "ask", Description: "Asks the user when it can, then the model.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) {
			answer := "no elicitation"
			if ClientSupports(ctx, "elicitation") {
				var el ElicitResult
				schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ada"},` +
					`"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]}},"required":["name"]}`)
				if err := Ask(ctx, AskElicitation("name", "Name?", schema, &el)); err != nil {
					return nil, err
				}
				answer = string(el.Action) + " " + string(el.Content)
			}
			res, err := Sample(ctx, "poem", SamplingRequest{Messages: []SamplingMessage{{Role: "user", Content: Audio([]byte("RIFF"), "audio/wav")}}, MaxTokens: 10})
			if err != nil {
				return nil, err
			}
			return &ToolResult{Content: []Content{Text(answer), Text(res.Text())}}, nil
		},
	})
	s.AddResource(&Resource{URI: "file:///r.txt", Name: "r", Title: "The R", MIMEType: "text/plain",
		Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) {
			return ContentsResource(ResourceContents{URI: "file:///r.txt", MIMEType: "text/plain", Text: "r", Meta: map[string]any{"k": "v"}}), nil
		}})
	s.AddResourceTemplate(&ResourceTemplate{URITemplate: "file:///t/{name}", Name: "t", Title: "The T",
		Complete: map[string]Completer{"name": CompleteFrom("alpha", "beta")},
		Handler: func(_ context.Context, req *ResourceRequest) (*ResourceResult, error) {
			return TextResource(req.Vars["name"]), nil
		}})
	s.AddPrompt(&Prompt{Name: "greet", Title: "Greet", Description: "Greets.",
		Arguments: []PromptArgument{{Name: "who", Title: "Who", Required: true, Complete: CompleteFrom("world", "wide")}},
		Handler: func(_ context.Context, req *PromptRequest) (*PromptResult, error) {
			link := ResourceLink("file:///r.txt", "r", "text/plain")
			return Messages(UserMessage(Text("hello "+req.Arguments["who"])), UserMessage(link)), nil
		}})
	return s
}

// TestEveryRevision drives every method over stdio on each handshake revision. The
// test client validates every message the server writes against that revision's
// schema.json, closed (strictify: no field a later revision added passes), and the
// transcript must match testdata/revisions/<rev>.jsonl (go test -run
// TestEveryRevision -update rewrites them).
func TestEveryRevision(t *testing.T) {
	for _, rev := range append(append([]string(nil), olderRevs...), revLegacy) {
		t.Run(rev, func(t *testing.T) {
			c := serveInMemory(t, revisionServer(t))
			c.rev = rev
			var wire bytes.Buffer
			record := func(m *msg) { wire.Write(m.raw); wire.WriteByte('\n') }
			caps := map[string]any{"sampling": map[string]any{}, "roots": map[string]any{}, "elicitation": map[string]any{}}
			init := c.call(false, "initialize", map[string]any{"protocolVersion": rev, "capabilities": caps,
				"clientInfo": map[string]any{"name": "rev-client", "version": "1"}})
			record(init)
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			init.decodeResult(t, &ir)
			if ir.ProtocolVersion != rev {
				t.Fatalf("initialize asked for %s, got %s", rev, ir.ProtocolVersion)
			}
			c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			steps := []struct {
				method string
				params map[string]any
			}{
				{"ping", nil},
				{"logging/setLevel", map[string]any{"level": "debug"}},
				{"tools/list", nil},
				{"tools/call", map[string]any{"name": "whoami"}},
				{"tools/call", map[string]any{"name": "shaped", "_meta": map[string]any{"progressToken": "p1"}}},
				{"tools/call", map[string]any{"name": "rich"}},
				{"resources/list", nil},
				{"resources/templates/list", nil},
				{"resources/read", map[string]any{"uri": "file:///r.txt"}},
				{"prompts/list", nil},
				{"prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"who": "you"}}},
				{"completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "who", "value": "w"}}},
			}
			results := map[string]*msg{}
			for _, st := range steps {
				resp, before := c.await(c.request(st.method, st.params))
				for _, m := range before {
					record(m)
				}
				record(resp)
				if resp.Error != nil {
					t.Errorf("%s: error %d %s", st.method, resp.Error.Code, resp.Error.Message)
				}
				key := st.method
				if name, ok := st.params["name"].(string); ok {
					key += " " + name
				}
				results[key] = resp
			}
			// The ask tool: the client answers the server's requests.
			id := c.request("tools/call", map[string]any{"name": "ask"})
			for {
				m := c.next()
				record(m)
				if m.Method == "" && string(m.ID) == string(id) {
					results["tools/call ask"] = m
					break
				}
				switch m.Method {
				case "elicitation/create":
					c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, m.ID))
				case "sampling/createMessage":
					c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","model":"m","content":{"type":"text","text":"a poem"}}}`, m.ID))
				}
			}
			checkRevisionResults(t, rev, results)
			golden(t, filepath.Join("testdata", "revisions", rev+".jsonl"), wire.Bytes())
		})
	}
}

// checkRevisionResults checks what the schema cannot: the exact revision reaches
// the handler, a 2025-03-26 client gets structured output as text, and what a
// revision has no block for arrives as text.
func checkRevisionResults(t *testing.T, rev string, results map[string]*msg) {
	t.Helper()
	var who, shaped, rich, ask callResult
	results["tools/call whoami"].decodeResult(t, &who)
	results["tools/call shaped"].decodeResult(t, &shaped)
	results["tools/call rich"].decodeResult(t, &rich)
	results["tools/call ask"].decodeResult(t, &ask)
	if len(who.Content) != 1 || who.Content[0].Text != rev {
		t.Errorf("RequestFrom(ctx).ProtocolVersion = %+v, want %s", who.Content, rev)
	}
	if len(shaped.Content) != 1 || shaped.Content[0].Text != `{"n":7}` {
		t.Errorf("structured output as text: %+v", shaped.Content)
	}
	if hasSC := shaped.StructuredContent != nil; hasSC != (rev >= "2025-06-18") {
		t.Errorf("structuredContent present = %v on %s", hasSC, rev)
	}
	var types []string
	for _, b := range rich.Content {
		types = append(types, b.Type)
	}
	want := map[string]string{
		"2024-11-05": "text image text resource text",
		"2025-03-26": "text image audio resource text",
		"2025-06-18": "text image audio resource resource_link",
		"2025-11-25": "text image audio resource resource_link",
	}[rev]
	if got := strings.Join(types, " "); got != want {
		t.Errorf("rich content types %q, want %q", got, want)
	}
	wantAsk := "no elicitation"
	if rev >= "2025-06-18" {
		wantAsk = `accept {"name":"Ada"}`
	}
	if len(ask.Content) != 2 || ask.Content[0].Text != wantAsk || ask.Content[1].Text != "a poem" {
		t.Errorf("ask: %+v, want %q then the poem", ask.Content, wantAsk)
	}
}

var occurredAt = regexp.MustCompile(`"occurred_at":"[^"]*"`)

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	// A receipt's occurred_at is the server's clock: the one part of a
	// transcript that changes from run to run.
	got = occurredAt.ReplaceAll(got, []byte(`"occurred_at":"TIME"`))
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to write it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wire transcript differs from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestNegotiation: the lifecycle pages' rule, for every kind of requested version.
func TestNegotiation(t *testing.T) {
	cases := map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25", // no handshake in 2026-07-28
		"2099-01-01": "2025-11-25", "2024-10-07": "2025-11-25", "latest": "2025-11-25", " 2025-03-26": "2025-11-25",
	}
	for asked, want := range cases {
		c := serveInMemory(t, revisionServer(t))
		if olderRev(want) {
			c.rev = want
		}
		r := c.call(false, "initialize", map[string]any{"protocolVersion": asked, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "n", "version": "1"}})
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		r.decodeResult(t, &ir)
		if ir.ProtocolVersion != want {
			t.Errorf("asked %q: got %q, want %q", asked, ir.ProtocolVersion, want)
		}
	}
}

// TestStrictOlderSchemas: the closed older schemas refuse what a later revision
// added, so the validation in TestEveryRevision can fail.
func TestStrictOlderSchemas(t *testing.T) {
	bad := []struct{ rev, def, raw string }{
		{"2025-03-26", "CallToolResult", `{"content":[],"structuredContent":{}}`},
		{"2024-11-05", "Tool", `{"name":"a","inputSchema":{"type":"object"},"annotations":{}}`},
		{"2025-03-26", "Tool", `{"name":"a","inputSchema":{"type":"object"},"title":"A"}`},
		{"2024-11-05", "ProgressNotification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"m"}}`},
		{"2024-11-05", "ServerCapabilities", `{"completions":{}}`},
		{"2025-03-26", "Implementation", `{"name":"a","version":"1","title":"A"}`},
	}
	for _, b := range bad {
		if err := testSpec.validate(b.rev, b.def, []byte(b.raw)); err == nil {
			t.Errorf("%s %s accepted %s", b.rev, b.def, b.raw)
		}
	}
	if err := testSpec.validate("2024-11-05", "ProgressNotification", []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)); err != nil {
		t.Errorf("a valid 2024-11-05 progress notification: %v", err)
	}
}
