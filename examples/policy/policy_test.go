package policy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/policy"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// meta is the _meta of a 2026-07-28 request declaring form elicitation.
func meta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// call is one tools/call of get_policy with extra params.
func call(id int, caps map[string]any, extra map[string]any) []byte {
	p := map[string]any{"_meta": meta(caps), "name": "get_policy", "arguments": map[string]any{"productId": "S-42"}}
	for k, v := range extra {
		p[k] = v
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p})
	return b
}

// response is the part of a JSON-RPC response the tests read.
type response struct {
	Method string          `json:"method"`
	ID     json.RawMessage `json:"id"`
	Params json.RawMessage `json:"params"`
	Result struct {
		ResultType    string                        `json:"resultType"`
		InputRequests map[string]json.RawMessage    `json:"inputRequests"`
		RequestState  string                        `json:"requestState"`
		Structured    struct{ Region, Rule string } `json:"structuredContent"`
		IsError       bool                          `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

var form = map[string]any{"elicitation": map[string]any{}}

// accept answers the market question with region.
func accept(region string) map[string]any {
	return map[string]any{"market": map[string]any{"action": "accept", "content": map[string]any{"region": region}}}
}

// post sends one modern POST and decodes the single JSON response.
func post(t *testing.T, url string, body []byte) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"get_policy"}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return r
}

func newHTTP(t *testing.T) string {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "policy", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	policy.RegisterMCP(s)
	ts := httptest.NewServer(s.HTTPHandler(nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestModernTwoRounds: the generated Market schema goes out as requestedSchema,
// the retry with the answer completes.
func TestModernTwoRounds(t *testing.T) {
	url := newHTTP(t)
	r1 := post(t, url, call(1, form, nil))
	if r1.Result.ResultType != "input_required" || !strings.Contains(string(r1.Result.InputRequests["market"]), `"enum":["CN","EU"]`) {
		t.Fatalf("round 1 = %+v, want input_required asking market with the CN/EU enum", r1)
	}
	r2 := post(t, url, call(2, form, map[string]any{"inputResponses": accept("CN"), "requestState": r1.Result.RequestState}))
	if r2.Result.ResultType != "complete" || r2.Result.Structured.Region != "CN" || !strings.Contains(r2.Result.Structured.Rule, "7 days") {
		t.Fatalf("round 2 = %+v, want the CN rule", r2)
	}
	bad := post(t, url, call(3, form, map[string]any{"inputResponses": accept("US"), "requestState": r1.Result.RequestState}))
	if bad.Result.ResultType != "input_required" {
		t.Errorf("an answer outside the enum = %+v, want the question again", bad)
	}
	declined := post(t, url, call(4, form, map[string]any{"inputResponses": map[string]any{"market": map[string]any{"action": "decline"}}, "requestState": r1.Result.RequestState}))
	if !declined.Result.IsError {
		t.Errorf("decline = %+v, want an isError result", declined)
	}
	for _, caps := range []map[string]any{{}, {"elicitation": map[string]any{"url": map[string]any{}}}} {
		r := post(t, url, call(5, caps, nil))
		if r.Error == nil || r.Error.Code != -32021 {
			t.Errorf("caps %v = %+v, want -32021", caps, r)
		}
	}
}

// TestLegacySameHandler: the same handler, asked by a 2025-11-25 client over
// stdio, sends elicitation/create during the call and finishes with the answer.
func TestLegacySameHandler(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "policy", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	policy.RegisterMCP(s)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(t.Context(), inR, outW); outW.Close() }()
	lines := bufio.NewScanner(outR)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	next := func() response {
		if !lines.Scan() {
			t.Fatal("server closed its output")
		}
		var r response
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("bad line %q", lines.Bytes())
		}
		return r
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": form, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
	next()
	send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "get_policy", "arguments": map[string]any{"productId": "S-42"}}})
	ask := next()
	if ask.Method != "elicitation/create" || !strings.Contains(string(ask.Params), `"enum":["CN","EU"]`) {
		t.Fatalf("got %+v, want elicitation/create with the Market schema", ask)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": ask.ID, "result": map[string]any{"action": "accept", "content": map[string]any{"region": "EU"}}})
	r := next()
	if r.Result.ResultType != "" || r.Result.Structured.Region != "EU" || !strings.Contains(r.Result.Structured.Rule, "14 days") {
		t.Fatalf("legacy result = %+v, want the EU rule without resultType", r)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

// TestRoundAcrossProcesses starts a round on one server process and finishes it
// on another that shares MCP_STATE_KEY; a process with another key rejects it.
func TestRoundAcrossProcesses(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "policy-server")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/policy-server").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	shared := "MCP_STATE_KEY=replica-shared-secret-0123456789"
	first := exchange(t, bin, shared, call(1, form, nil))
	if first.Result.ResultType != "input_required" {
		t.Fatalf("process A round 1 = %+v, want input_required", first)
	}
	retry := call(2, form, map[string]any{"inputResponses": accept("CN"), "requestState": first.Result.RequestState})
	if second := exchange(t, bin, shared, retry); second.Result.ResultType != "complete" || second.Result.Structured.Region != "CN" {
		t.Errorf("process B round 2 = %+v, want complete for CN", second)
	}
	if other := exchange(t, bin, "MCP_STATE_KEY=some-other-secret-0123456789", retry); other.Error == nil || other.Error.Code != -32602 {
		t.Errorf("process with another key = %+v, want -32602", other)
	}
}

// exchange runs bin over stdio with env, sends one request and returns its response.
func exchange(t *testing.T, bin, env string, req []byte) response {
	t.Helper()
	cmd := exec.Command(bin, "-stdio")
	cmd.Env = append(os.Environ(), env)
	cmd.Stdin = bytes.NewReader(append(req, '\n'))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	var r response
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	return r
}
