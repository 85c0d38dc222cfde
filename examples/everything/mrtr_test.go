package everything_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// allCaps are the client capabilities the conformance suite declares.
var allCaps = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}}

// answers are what the suite answers each kind of input request with.
var answers = map[string]any{
	"elicitation/create":     map[string]any{"action": "accept", "content": map[string]any{"name": "Alice", "color": "blue", "ok": true, "context": "cats"}},
	"sampling/createMessage": map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "test-model", "stopReason": "endTurn"},
	"roots/list":             map[string]any{"roots": []any{map[string]any{"uri": "file:///test/root", "name": "Test Root"}}},
}

// round is one 2026-07-28 result of a tool call or prompt.
type round struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string `json:"method"`
	} `json:"inputRequests"`
	RequestState string            `json:"requestState"`
	Content      []json.RawMessage `json:"content"`
	Messages     []json.RawMessage `json:"messages"`
}

// modernRound posts one 2026-07-28 request and decodes its result.
func modernRound(t *testing.T, url, method, name string, caps map[string]any, extra map[string]any) round {
	t.Helper()
	params := map[string]any{"name": name, "_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
	}}
	for k, v := range extra {
		params[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}, "Mcp-Name": {name}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Result round
		Error  json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Error != nil {
		t.Fatalf("%s %s: error %s (%v)", method, name, env.Error, err)
	}
	return env.Result
}

// answer answers every input request of r the way the suite does.
func answer(r round) map[string]any {
	out := map[string]any{}
	for key, req := range r.InputRequests {
		out[key] = answers[req.Method]
	}
	return out
}

// TestMRTRTools runs each MRTR tool and prompt to completion, answering every
// round, and checks the rounds and input kinds the conformance suite expects.
func TestMRTRTools(t *testing.T) {
	ts := newServer(t)
	tests := []struct {
		method, name string
		caps         map[string]any
		rounds       [][]string // input request methods per round, sorted
		want         string     // in the final content or messages
	}{
		{"tools/call", "test_input_required_result_elicitation", allCaps, [][]string{{"elicitation/create"}}, "Hello, Alice!"},
		{"tools/call", "test_input_required_result_sampling", allCaps, [][]string{{"sampling/createMessage"}}, "Paris"},
		{"tools/call", "test_input_required_result_list_roots", allCaps, [][]string{{"roots/list"}}, "Test Root"},
		{"tools/call", "test_input_required_result_request_state", allCaps, [][]string{{"elicitation/create"}}, "state-ok"},
		{"tools/call", "test_input_required_result_multiple_inputs", allCaps, [][]string{{"elicitation/create", "roots/list", "sampling/createMessage"}}, "Paris"},
		{"tools/call", "test_input_required_result_multi_round", allCaps, [][]string{{"elicitation/create"}, {"elicitation/create"}}, "Alice likes blue"},
		{"tools/call", "test_input_required_result_capabilities", map[string]any{"sampling": map[string]any{}}, [][]string{{"sampling/createMessage"}}, "Paris"},
		{"prompts/get", "test_input_required_result_prompt", allCaps, [][]string{{"elicitation/create"}}, "cats"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var extra map[string]any
			var states []string
			for i := 0; ; i++ {
				r := modernRound(t, ts.URL, tt.method, tt.name, tt.caps, extra)
				if r.ResultType == "complete" {
					if i != len(tt.rounds) {
						t.Fatalf("complete after %d rounds, want %d", i, len(tt.rounds))
					}
					all := ""
					for _, m := range append(r.Content, r.Messages...) {
						all += string(m)
					}
					if !strings.Contains(all, tt.want) {
						t.Errorf("final result %s, want it to contain %q", all, tt.want)
					}
					return
				}
				if i >= len(tt.rounds) || r.ResultType != "input_required" || r.RequestState == "" || slices.Contains(states, r.RequestState) {
					t.Fatalf("round %d = %+v, want input_required with a fresh requestState", i+1, r)
				}
				var methods []string
				for _, req := range r.InputRequests {
					methods = append(methods, req.Method)
				}
				slices.Sort(methods)
				if !slices.Equal(methods, tt.rounds[i]) {
					t.Errorf("round %d asks %v, want %v", i+1, methods, tt.rounds[i])
				}
				states = append(states, r.RequestState)
				extra = map[string]any{"inputResponses": answer(r), "requestState": r.RequestState}
			}
		})
	}
}
