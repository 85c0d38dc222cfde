package surfaces_test

// The real provider SDKs, pointed at a local server that answers with recorded
// provider responses (testdata/*_N.json, one per request). The tests assert
// the exact tool definitions each SDK sends, the exact tool results the loop
// sends back (testdata/*.golden; go test -update rewrites them), and how often
// each handler ran: bad input never reaches a handler.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/mcpgen/mcpgen/examples/incidents"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/modelcall"
	"github.com/mcpgen/mcpgen/surfaces/anthropicsurface"
	"github.com/mcpgen/mcpgen/surfaces/openaisurface"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// provider is a recorded provider: it answers the i-th request with
// testdata/<prefix>_<i>.json and keeps the request bodies.
type provider struct {
	t      *testing.T
	prefix string
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.bodies = append(p.bodies, body)
	p.paths = append(p.paths, r.Method+" "+r.URL.Path)
	n := len(p.bodies)
	p.mu.Unlock()
	resp, err := os.ReadFile(filepath.Join("testdata", p.prefix+"_"+string(rune('0'+n))+".json"))
	if err != nil {
		http.Error(w, `{"error":{"message":"no recorded response"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// start serves the recorded responses of prefix on a local port.
func start(t *testing.T, prefix string) (*provider, string) {
	p := &provider{t: t, prefix: prefix}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// member returns the raw member key of the JSON object body.
func member(t *testing.T, body []byte, key string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body is not an object: %v", err)
	}
	return m[key]
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got: %s\nwant: %s", name, got, want)
	}
}

// indent pretty-prints raw JSON for a golden file, keeping member order.
func indent(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), '\n')
}

// counted is the incidents server with each tool's handler runs counted; a
// handler also checks that the caller's principal reached it.
type counted struct {
	s    *mcpruntime.Server
	mu   sync.Mutex
	runs map[string]int
	who  map[string]string
}

func newCounted(t *testing.T) *counted {
	c := &counted{runs: map[string]int{}, who: map[string]string{}}
	c.s = mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.DiscardHandler)})
	incidents.RegisterMCP(c.s, mustDesk())
	for _, name := range []string{"get_service_status", "list_deployments", "create_incident_ticket"} {
		tool := c.s.Tool(name)
		h := tool.Handler
		tool.Handler = func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			c.mu.Lock()
			c.runs[name]++
			if p := mcpruntime.PrincipalFrom(ctx); p != nil {
				c.who[name] = p.Subject
			}
			c.mu.Unlock()
			return h(ctx, req)
		}
		c.s.PutTool(tool)
	}
	return c
}

// check compares the run counts with want and the principal seen by each run.
func (c *counted) check(t *testing.T, want map[string]int) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, name := range []string{"get_service_status", "list_deployments", "create_incident_ticket"} {
		if c.runs[name] != want[name] {
			t.Errorf("%s ran %d times, want %d", name, c.runs[name], want[name])
		}
		if c.runs[name] > 0 && c.who[name] != "alice" {
			t.Errorf("%s ran as %q, want the principal alice", name, c.who[name])
		}
	}
}

// asAlice is the context of the loop: the host's user.
func asAlice() context.Context {
	return mcpruntime.WithPrincipal(context.Background(), &mcpruntime.Principal{Subject: "alice", Scopes: []string{"incident:create:p1"}})
}

func TestOpenAIChatLoop(t *testing.T) {
	c := newCounted(t)
	p, url := start(t, "openai_chat")
	client := openai.NewClient(ooption.WithBaseURL(url+"/v1/"), ooption.WithAPIKey("sk-test"), ooption.WithMaxRetries(0))
	tools, findings := openaisurface.ChatTools(c.s)
	if len(findings) != 0 {
		t.Fatalf("findings: %v", findings)
	}
	d := modelcall.NewDispatcher(c.s, &modelcall.Options{MaxConcurrent: 3})
	final, err := openaisurface.ChatLoop(asAlice(), client, d, openai.ChatCompletionNewParams{
		Model:    "gpt-5.1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Payments alerts are firing: triage.")},
		Tools:    tools,
	}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := final.Choices[0].Message.Content; got == "" {
		t.Errorf("final answer is empty")
	}
	if len(p.bodies) != 2 || p.paths[0] != "POST /v1/chat/completions" {
		t.Fatalf("requests: %v", p.paths)
	}
	golden(t, "openai_chat_tools.golden", indent(t, member(t, p.bodies[0], "tools")))
	golden(t, "openai_chat_results.golden", indent(t, member(t, p.bodies[1], "messages")))
	c.check(t, map[string]int{"get_service_status": 1, "list_deployments": 1, "create_incident_ticket": 0})
}

func TestOpenAIResponsesLoop(t *testing.T) {
	c := newCounted(t)
	p, url := start(t, "openai_responses")
	client := openai.NewClient(ooption.WithBaseURL(url+"/v1/"), ooption.WithAPIKey("sk-test"), ooption.WithMaxRetries(0))
	tools, findings := openaisurface.ResponsesTools(c.s)
	if len(findings) != 0 {
		t.Fatalf("findings: %v", findings)
	}
	d := modelcall.NewDispatcher(c.s, nil)
	final, err := openaisurface.ResponsesLoop(asAlice(), client, d, responses.ResponseNewParams{
		Model: "gpt-5.1",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Is checkout degraded?")},
		Tools: tools,
	}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if final.OutputText() == "" {
		t.Errorf("final answer is empty")
	}
	if len(p.bodies) != 2 || p.paths[0] != "POST /v1/responses" {
		t.Fatalf("requests: %v", p.paths)
	}
	golden(t, "openai_responses_tools.golden", indent(t, member(t, p.bodies[0], "tools")))
	if got := string(member(t, p.bodies[1], "previous_response_id")); got != `"resp_01"` {
		t.Errorf("previous_response_id = %s", got)
	}
	golden(t, "openai_responses_results.golden", indent(t, member(t, p.bodies[1], "input")))
	// The forged receipt is refused at the schema: the write never ran.
	c.check(t, map[string]int{"get_service_status": 1, "list_deployments": 0, "create_incident_ticket": 0})
}

func TestAnthropicLoop(t *testing.T) {
	c := newCounted(t)
	p, url := start(t, "anthropic")
	client := anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("sk-ant-test"), aoption.WithMaxRetries(0))
	tools, findings := anthropicsurface.Tools(c.s)
	if len(findings) != 0 {
		t.Fatalf("findings: %v", findings)
	}
	d := modelcall.NewDispatcher(c.s, &modelcall.Options{MaxConcurrent: 2})
	final, err := anthropicsurface.Loop(asAlice(), client, d, anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Payments alerts are firing: triage."))},
		Tools:     tools,
	}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if final.StopReason != "end_turn" {
		t.Errorf("stop reason %q", final.StopReason)
	}
	if len(p.bodies) != 2 || p.paths[0] != "POST /v1/messages" {
		t.Fatalf("requests: %v", p.paths)
	}
	golden(t, "anthropic_tools.golden", indent(t, member(t, p.bodies[0], "tools")))
	golden(t, "anthropic_results.golden", indent(t, member(t, p.bodies[1], "messages")))
	c.check(t, map[string]int{"get_service_status": 1, "list_deployments": 1, "create_incident_ticket": 0})
}
