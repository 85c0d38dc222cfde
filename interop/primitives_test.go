package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resources, resource templates, prompts and completion, for the examples that have them.

type primitivesExp struct {
	resources []string // URIs that must be listed
	templates []string // URI templates that must be listed
	prompts   []string // prompt names that must be listed

	Reads       []string     `json:"reads"` // URIs to read; want the matching entry of reads
	reads       []readExp    // what each read must return
	Gets        []getExp     `json:"gets"`
	Completions []completion `json:"completions"`
}

type readExp struct {
	mime       string // the contents' mimeType
	text       string // exact text, or
	blobPrefix string // the start of the base64 blob
}

type getExp struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	texts     []string          // the text of each message, in order ("" for a non-text one)
}

type completion struct {
	Ref      map[string]string `json:"ref"`
	Argument map[string]string `json:"argument"`
	values   []string
}

var primitiveExpectations = map[string]*primitivesExp{
	"everything": {
		resources: []string{"test://static-text", "test://static-binary", "test://watched-resource"},
		templates: []string{"test://template/{id}/data"},
		prompts:   []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image"},
		Reads:     []string{"test://static-text", "test://static-binary", "test://template/42/data"},
		reads: []readExp{
			{mime: "text/plain", text: "This is the content of the static text resource."},
			{mime: "image/png", blobPrefix: "iVBORw0KGgo"}, // a PNG's signature, base64
			{mime: "application/json", text: `{"id":"42","templateTest":true,"data":"Data for ID: 42"}`},
		},
		Gets: []getExp{
			{Name: "test_simple_prompt", texts: []string{"This is a simple prompt for testing."}},
			{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}, texts: []string{"Prompt with arguments: arg1='a', arg2='b'"}},
			{Name: "test_prompt_with_embedded_resource", Arguments: map[string]string{"resourceUri": "test://x"}, texts: []string{"", "Please process the embedded resource above."}},
		},
		Completions: []completion{
			{Ref: map[string]string{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, Argument: map[string]string{"name": "arg1", "value": "te"}, values: []string{"test", "testValue1", "testing"}},
		},
	},
}

// primitivesSeen is what a client saw, as raw JSON.
type primitivesSeen struct {
	Resources   []json.RawMessage `json:"resources"`
	Templates   []json.RawMessage `json:"templates"`
	Prompts     []json.RawMessage `json:"prompts"`
	Reads       []rawOutcome      `json:"reads"`
	Gets        []rawOutcome      `json:"gets"`
	Completions []rawOutcome      `json:"completions"`
}

type rawOutcome struct {
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// goSDKPrimitives does with the Go SDK what client.mjs does for its primitives plan.
func goSDKPrimitives(t *testing.T, cs *mcp.ClientSession, p *primitivesExp) *primitivesSeen {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seen := &primitivesSeen{}
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		seen.Resources = append(seen.Resources, mustMarshal(t, r))
	}
	for r, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/templates/list: %v", err)
		}
		seen.Templates = append(seen.Templates, mustMarshal(t, r))
	}
	for r, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		seen.Prompts = append(seen.Prompts, mustMarshal(t, r))
	}
	outcome := func(res any, err error) rawOutcome {
		var werr *jsonrpc.Error
		switch {
		case errors.As(err, &werr):
			return rawOutcome{Error: mustMarshal(t, map[string]any{"code": werr.Code, "message": werr.Message})}
		case err != nil:
			return rawOutcome{Error: mustMarshal(t, map[string]any{"code": "client", "message": err.Error()})}
		}
		return rawOutcome{Result: mustMarshal(t, res)}
	}
	for _, uri := range p.Reads {
		seen.Reads = append(seen.Reads, outcome(cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})))
	}
	for _, g := range p.Gets {
		seen.Gets = append(seen.Gets, outcome(cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: g.Name, Arguments: g.Arguments})))
	}
	for _, c := range p.Completions {
		seen.Completions = append(seen.Completions, outcome(cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: c.Ref["type"], Name: c.Ref["name"], URI: c.Ref["uri"]},
			Argument: mcp.CompleteParamsArgument{Name: c.Argument["name"], Value: c.Argument["value"]},
		})))
	}
	return seen
}

func mustMarshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkPrimitives asserts what a client saw of resources, templates, prompts and completion.
func checkPrimitives(t *testing.T, p *primitivesExp, seen *primitivesSeen) {
	t.Helper()
	if seen == nil {
		t.Fatalf("the client reported no resources, prompts or completions")
	}
	names := func(items []json.RawMessage, field string) []string {
		var out []string
		for _, raw := range items {
			var m map[string]any
			_ = json.Unmarshal(raw, &m)
			s, _ := m[field].(string)
			out = append(out, s)
		}
		return out
	}
	for _, want := range []struct {
		what  string
		got   []string
		names []string
	}{
		{"resource", names(seen.Resources, "uri"), p.resources},
		{"resource template", names(seen.Templates, "uriTemplate"), p.templates},
		{"prompt", names(seen.Prompts, "name"), p.prompts},
	} {
		for _, n := range want.names {
			if !contains(want.got, n) {
				t.Errorf("%s %q is not listed; listed: %v", want.what, n, want.got)
			}
		}
	}

	if len(seen.Reads) != len(p.Reads) || len(seen.Gets) != len(p.Gets) || len(seen.Completions) != len(p.Completions) {
		t.Fatalf("%d reads, %d gets, %d completions; want %d, %d, %d",
			len(seen.Reads), len(seen.Gets), len(seen.Completions), len(p.Reads), len(p.Gets), len(p.Completions))
	}
	for i, uri := range p.Reads {
		want, got := p.reads[i], seen.Reads[i]
		var res struct {
			Contents []struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
				Blob     string `json:"blob"`
			} `json:"contents"`
		}
		if err := decodeOutcome(got, &res); err != nil {
			t.Errorf("resources/read %s: %v", uri, err)
			continue
		}
		if len(res.Contents) != 1 {
			t.Errorf("resources/read %s: %d contents, want 1: %s", uri, len(res.Contents), got.Result)
			continue
		}
		c := res.Contents[0]
		if c.URI != uri || c.MIMEType != want.mime {
			t.Errorf("resources/read %s: contents for %q (%s), want %q (%s)", uri, c.URI, c.MIMEType, uri, want.mime)
		}
		if want.blobPrefix != "" && !strings.HasPrefix(c.Blob, want.blobPrefix) {
			t.Errorf("resources/read %s: blob %.40q..., want it to start with %q", uri, c.Blob, want.blobPrefix)
		}
		if want.blobPrefix == "" && c.Text != want.text {
			t.Errorf("resources/read %s: text %q, want %q", uri, c.Text, want.text)
		}
	}
	for i, g := range p.Gets {
		var res struct {
			Messages []struct {
				Role    string `json:"role"`
				Content struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := decodeOutcome(seen.Gets[i], &res); err != nil {
			t.Errorf("prompts/get %s: %v", g.Name, err)
			continue
		}
		var texts []string
		for _, m := range res.Messages {
			texts = append(texts, m.Content.Text)
		}
		if !reflect.DeepEqual(texts, g.texts) {
			t.Errorf("prompts/get %s %v: message texts %q, want %q", g.Name, g.Arguments, texts, g.texts)
		}
	}
	for i, c := range p.Completions {
		var res struct {
			Completion struct {
				Values []string `json:"values"`
			} `json:"completion"`
		}
		if err := decodeOutcome(seen.Completions[i], &res); err != nil {
			t.Errorf("completion/complete %v %v: %v", c.Ref, c.Argument, err)
			continue
		}
		if !reflect.DeepEqual(res.Completion.Values, c.values) {
			t.Errorf("completion/complete %v %v: values %q, want %q", c.Ref, c.Argument, res.Completion.Values, c.values)
		}
	}
}

func decodeOutcome(o rawOutcome, v any) error {
	if o.Error != nil {
		return fmt.Errorf("error %s", o.Error)
	}
	return json.Unmarshal(o.Result, v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
