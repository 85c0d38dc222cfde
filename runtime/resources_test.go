package runtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// primitivesServer registers resources, a template, prompts and completers
// used by the tests below; lists have two entries per page.
func primitivesServer(t *testing.T) *Server {
	t.Helper()
	s := newTestServer(t, &Options{PageSize: 2}, echoTool())
	text := func(s string) ResourceHandler {
		return func(context.Context, *ResourceRequest) (*ResourceResult, error) { return TextResource(s), nil }
	}
	s.AddResource(&Resource{URI: "test://a", Name: "a", Description: "A text.", MIMEType: "text/plain", Handler: text("alpha")})
	s.AddResource(&Resource{URI: "test://bin", Name: "bin", MIMEType: "application/octet-stream",
		Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) {
			return BlobResource([]byte{0, 1, 2, 0xff}), nil
		}})
	s.AddResource(&Resource{URI: "test://gone", Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) {
		return nil, fmt.Errorf("%w: deleted", ErrResourceNotFound)
	}})
	s.AddResource(&Resource{URI: "test://broken", Handler: func(context.Context, *ResourceRequest) (*ResourceResult, error) {
		panic("boom")
	}})
	s.AddResourceTemplate(&ResourceTemplate{URITemplate: "notes://{folder}/{id}", Name: "note", MIMEType: "text/markdown",
		Values:   map[string][]string{"folder": {"work", "home"}},
		Complete: map[string]Completer{"id": CompleteFrom("1", "2", "10")},
		Handler: func(_ context.Context, req *ResourceRequest) (*ResourceResult, error) {
			return TextResource(req.Vars["folder"] + "/" + req.Vars["id"]), nil
		}})
	s.AddPrompt(&Prompt{Name: "greet", Description: "Greets someone.", Arguments: []PromptArgument{
		{Name: "name", Description: "Who.", Required: true},
		{Name: "tone", Values: []string{"warm", "formal"}},
	}, Handler: func(_ context.Context, req *PromptRequest) (*PromptResult, error) {
		var in struct {
			Name string `json:"name"`
			Tone string `json:"tone"`
		}
		if err := req.Decode(&in); err != nil {
			return nil, err
		}
		return Messages(UserMessage(Text("Hello "+in.Name+" ("+in.Tone+")")),
			AssistantMessage(Image([]byte{1, 2}, "image/png")),
			UserMessage(EmbeddedResource(ResourceContents{URI: "test://a", MIMEType: "text/plain", Text: "alpha"}))), nil
	}})
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprintf("v%03d", i)
	}
	s.AddPrompt(&Prompt{Name: "many", Description: "Many values.", Arguments: []PromptArgument{{Name: "x", Complete: CompleteFrom(many...)}},
		Handler: func(context.Context, *PromptRequest) (*PromptResult, error) { return nil, nil }})
	return s
}

// eraClient returns a client for s; legacy clients have initialized first.
func eraClient(t *testing.T, s *Server, modern bool) *testClient {
	c := serveInMemory(t, s)
	if !modern {
		initialize(t, c, versionLegacy)
	}
	return c
}

func TestResourcesList(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(Era(btoi(modern)).String(), func(t *testing.T) {
			c := eraClient(t, primitivesServer(t), modern)
			var uris []string
			var cursor any
			for page := 0; page < 5; page++ {
				params := map[string]any{}
				if cursor != nil {
					params["cursor"] = cursor
				}
				var got struct {
					Resources []struct {
						URI, Name string
					} `json:"resources"`
					NextCursor string `json:"nextCursor"`
					TTLMs      *int64 `json:"ttlMs"`
					CacheScope string `json:"cacheScope"`
				}
				c.call(modern, "resources/list", params).decodeResult(t, &got)
				if modern != (got.TTLMs != nil && got.CacheScope == "public") {
					t.Errorf("caching hints: ttlMs %v, cacheScope %q; want them only in 2026-07-28", got.TTLMs, got.CacheScope)
				}
				for _, r := range got.Resources {
					uris = append(uris, r.URI)
				}
				if got.NextCursor == "" {
					break
				}
				cursor = got.NextCursor
			}
			if want := []string{"test://a", "test://bin", "test://gone", "test://broken"}; !slices.Equal(uris, want) {
				t.Errorf("resources over all pages = %v, want %v", uris, want)
			}
			if resp := c.call(modern, "resources/list", map[string]any{"cursor": "bogus"}); resp.errorCode() != CodeInvalidParams {
				t.Errorf("bad cursor: got %s, want -32602", resp.raw)
			}
			var tpls struct {
				ResourceTemplates []struct {
					URITemplate, Name, MIMEType string
				} `json:"resourceTemplates"`
			}
			c.call(modern, "resources/templates/list", nil).decodeResult(t, &tpls)
			if len(tpls.ResourceTemplates) != 1 || tpls.ResourceTemplates[0].URITemplate != "notes://{folder}/{id}" {
				t.Errorf("templates = %+v, want notes://{folder}/{id}", tpls.ResourceTemplates)
			}
		})
	}
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readResult is the decoded shape of ReadResourceResult.
type readResult struct {
	Contents []struct {
		URI, MIMEType, Text, Blob string
	} `json:"contents"`
	TTLMs *int64 `json:"ttlMs"`
}

func TestResourcesRead(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(Era(btoi(modern)).String(), func(t *testing.T) {
			c := eraClient(t, primitivesServer(t), modern)
			var got readResult
			c.call(modern, "resources/read", map[string]any{"uri": "test://a"}).decodeResult(t, &got)
			if len(got.Contents) != 1 || got.Contents[0].Text != "alpha" || got.Contents[0].URI != "test://a" || got.Contents[0].MIMEType != "text/plain" {
				t.Errorf("read test://a = %+v, want alpha with uri and mimeType filled in", got.Contents)
			}
			got = readResult{}
			c.call(modern, "resources/read", map[string]any{"uri": "test://bin"}).decodeResult(t, &got)
			if blob, err := base64.StdEncoding.DecodeString(got.Contents[0].Blob); err != nil || string(blob) != "\x00\x01\x02\xff" {
				t.Errorf("blob = %q (%v), want base64 of 00 01 02 ff", got.Contents[0].Blob, err)
			}
			got = readResult{}
			c.call(modern, "resources/read", map[string]any{"uri": "notes://work/a%20b"}).decodeResult(t, &got)
			if got.Contents[0].Text != "work/a b" || got.Contents[0].MIMEType != "text/markdown" {
				t.Errorf("template read = %+v, want decoded variables and the template's mimeType", got.Contents)
			}
		})
	}
}

func TestResourceNotFound(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(Era(btoi(modern)).String(), func(t *testing.T) {
			c := eraClient(t, primitivesServer(t), modern)
			want := CodeResourceNotFound
			if modern {
				want = CodeInvalidParams
			}
			// Unknown URI, a handler saying not found, a template variable outside its enum.
			for _, uri := range []string{"test://nope", "test://gone", "notes://attic/1", "notes://work/"} {
				resp := c.call(modern, "resources/read", map[string]any{"uri": uri})
				var data struct{ URI string }
				if resp.Error != nil {
					_ = json.Unmarshal(resp.Error.Data, &data)
				}
				if resp.errorCode() != want || data.URI != uri {
					t.Errorf("read %s: got %s, want %d with data.uri", uri, resp.raw, want)
				}
			}
			if resp := c.call(modern, "resources/read", map[string]any{"uri": "test://broken"}); resp.errorCode() != CodeInternalError || strings.Contains(resp.raw2(), "boom") {
				t.Errorf("panicking handler: got %s, want -32603 without the panic text", resp.raw)
			}
		})
	}
}

// raw2 is the raw message as a string.
func (m *msg) raw2() string { return string(m.raw) }

func TestPrompts(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(Era(btoi(modern)).String(), func(t *testing.T) {
			c := eraClient(t, primitivesServer(t), modern)
			var list struct {
				Prompts []struct {
					Name      string
					Arguments []struct {
						Name     string
						Required bool
					}
				} `json:"prompts"`
			}
			c.call(modern, "prompts/list", nil).decodeResult(t, &list)
			if len(list.Prompts) != 2 || list.Prompts[0].Name != "greet" || !list.Prompts[0].Arguments[0].Required {
				t.Errorf("prompts/list = %+v, want greet (name required) and many", list.Prompts)
			}
			var got struct {
				Messages []struct {
					Role    string
					Content struct{ Type, Text string }
				} `json:"messages"`
			}
			c.call(modern, "prompts/get", map[string]any{"name": "greet", "arguments": map[string]string{"name": "Ada", "tone": "warm"}}).decodeResult(t, &got)
			if len(got.Messages) != 3 || got.Messages[0].Content.Text != "Hello Ada (warm)" || got.Messages[1].Role != "assistant" || got.Messages[2].Content.Type != "resource" {
				t.Errorf("prompts/get = %+v", got.Messages)
			}
			bad := []map[string]any{
				{"name": "nope"},
				{"name": "greet"},
				{"name": "greet", "arguments": map[string]string{"name": "Ada", "extra": "x"}},
				{"name": "greet", "arguments": map[string]string{"name": "Ada", "tone": "rude"}},
				{"name": "greet", "arguments": map[string]any{"name": 7}},
			}
			for _, p := range bad {
				if resp := c.call(modern, "prompts/get", p); resp.errorCode() != CodeInvalidParams {
					t.Errorf("prompts/get %v: got %s, want -32602", p, resp.raw)
				}
			}
			if resp := c.call(modern, "prompts/get", map[string]any{"name": "many"}); resp.errorCode() != CodeInternalError {
				t.Errorf("nil prompt result: got %s, want -32603", resp.raw)
			}
		})
	}
}

// completion is the decoded shape of CompleteResult.
type completion struct {
	Completion struct {
		Values  []string `json:"values"`
		Total   int      `json:"total"`
		HasMore bool     `json:"hasMore"`
	} `json:"completion"`
}

func TestComplete(t *testing.T) {
	for _, modern := range []bool{false, true} {
		t.Run(Era(btoi(modern)).String(), func(t *testing.T) {
			c := eraClient(t, primitivesServer(t), modern)
			complete := func(ref map[string]any, arg, value string) *msg {
				return c.call(modern, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": value}})
			}
			greet := map[string]any{"type": "ref/prompt", "name": "greet"}
			note := map[string]any{"type": "ref/resource", "uri": "notes://{folder}/{id}"}
			tests := []struct {
				ref        map[string]any
				arg, value string
				want       []string
			}{
				{greet, "tone", "W", []string{"warm"}},
				{greet, "name", "A", []string{}},
				{note, "folder", "", []string{"work", "home"}},
				{note, "id", "1", []string{"1", "10"}},
				{map[string]any{"type": "ref/resource", "uri": "test://a"}, "x", "", []string{}},
			}
			for _, tt := range tests {
				var got completion
				complete(tt.ref, tt.arg, tt.value).decodeResult(t, &got)
				if !slices.Equal(got.Completion.Values, tt.want) {
					t.Errorf("complete %v %s=%q: got %v, want %v", tt.ref, tt.arg, tt.value, got.Completion.Values, tt.want)
				}
			}
			var got completion
			complete(map[string]any{"type": "ref/prompt", "name": "many"}, "x", "v").decodeResult(t, &got)
			if len(got.Completion.Values) != 100 || !got.Completion.HasMore || got.Completion.Total != 150 {
				t.Errorf("150 values: got %d, hasMore %v, total %d; want 100, true, 150", len(got.Completion.Values), got.Completion.HasMore, got.Completion.Total)
			}
			for _, ref := range []map[string]any{{"type": "ref/prompt", "name": "nope"}, note, {"type": "ref/other"}} {
				if resp := complete(ref, "zzz", ""); resp.errorCode() != CodeInvalidParams {
					t.Errorf("complete %v zzz: got %s, want -32602", ref, resp.raw)
				}
			}
		})
	}
}

func TestPrimitiveCapabilities(t *testing.T) {
	bare := newTestServer(t, nil, echoTool()).capabilities()
	for _, k := range []string{"resources", "prompts", "completions"} {
		if _, ok := bare[k]; ok {
			t.Errorf("server without %s declares it: %v", k, bare)
		}
	}
	full := primitivesServer(t).capabilities()
	want := `{"completions":{},"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}}`
	if got := string(mustMarshal(full)); got != want {
		t.Errorf("capabilities = %s, want %s", got, want)
	}
}
