package runtime_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// fuzzServer returns the everything server with options that bound every
// fuzzed input: a question to the client times out at once and a tool call is
// cut (answered with an isError result) after 20 ms, so the everything tools
// that sleep between progress steps cannot make one input cost 100 ms or more.
// A fuzz worker runs inputs one after another, and minimizing an input runs it
// thousands of times, so every millisecond an input costs counts.
//
// FuzzRequestState needs one call to complete while it sets up (in every fuzz
// worker, possibly on a loaded machine): it passes a longer callTimeout.
func fuzzServer(callTimeout time.Duration) *mcpruntime.Server {
	return everythingServer2(&mcpruntime.Options{Logger: quietLogger(), InputTimeout: 20 * time.Millisecond,
		CallTimeout: callTimeout, DrainTimeout: time.Second})
}

// fuzzCallTimeout cuts the fuzzed tool calls.
const fuzzCallTimeout = 20 * time.Millisecond

// FuzzStdio feeds arbitrary bytes to ServeStdio: it must not panic, must
// write only JSON-RPC messages, one per line, and must answer every
// well-formed request exactly once (unless the input cancels something).
func FuzzStdio(f *testing.F) {
	for _, seed := range []string{
		legacyInit + "\n" + simpleCallLegacy + "\n",
		simpleCallModern + "\n" + simpleCallModern + "\n",
		"{\n}\n[]\n\"x\"\n",
		legacyInit + "\r\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\r\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		callLine(true, "3", "test_input_required_result_elicitation", "{}") + "\n",
		callLine(true, "4", "test_tool_with_progress", "{}") + "\n",
		"\xff\xfe\n\n   \n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
		// A 2025-03-26 session, whose batches are served.
		strings.Replace(legacyInit, "2025-11-25", "2025-03-26", 1) + "\n[" + simpleCallLegacy + `,{"jsonrpc":"2.0","id":5,"method":"ping"}]` + "\n",
	} {
		f.Add([]byte(seed))
	}
	// One server serves every input of this process: building the everything
	// server costs more than serving most inputs. Each ServeStdio call is its own
	// connection and session.
	s := fuzzServer(fuzzCallTimeout)
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.ServeStdio(ctx, bytes.NewReader(in), &out); err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
		checkStdioOutput(t, in, out.Bytes())
	})
}

// checkStdioOutput checks the output lines against the input lines.
func checkStdioOutput(t *testing.T, in, out []byte) {
	t.Helper()
	owed := map[string]int{} // request id -> requests with it
	// batched: requests inside a JSON-RPC batch, answered only when the session
	// negotiated 2025-03-26 (then in one array line).
	batched := map[string]int{}
	cancels := bytes.Contains(in, []byte("cancelled"))
	for line := range bytes.SplitSeq(in, []byte("\n")) {
		var elems []json.RawMessage
		if json.Unmarshal(line, &elems) == nil {
			for _, el := range elems {
				if m, err := mcpruntime.ParseMessage(el); err == nil && m.Kind == mcpruntime.KindRequest {
					batched[string(m.ID)]++
				}
			}
		}
		m, err := mcpruntime.ParseMessage(bytes.TrimSuffix(line, []byte("\r")))
		switch {
		case err == nil && m.Kind == mcpruntime.KindRequest:
			owed[string(m.ID)]++
		case err != nil:
			// A malformed message whose id could be read is answered with it.
			var rep struct {
				ID json.RawMessage `json:"id"`
			}
			if body := mcpruntime.ErrorReply(err).Body; body != nil && json.Unmarshal(body, &rep) == nil && rep.ID != nil {
				owed[string(rep.ID)]++
			}
		}
	}
	answered := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		msgs := []json.RawMessage{sc.Bytes()}
		if bytes.HasPrefix(sc.Bytes(), []byte("[")) { // a batch's answer (2025-03-26)
			if err := json.Unmarshal(sc.Bytes(), &msgs); err != nil || len(msgs) == 0 {
				t.Fatalf("stdout line is not a JSON-RPC batch response: %q", sc.Bytes())
			}
		}
		for _, raw := range msgs {
			var msg struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(raw, &msg); err != nil || msg.JSONRPC != "2.0" {
				t.Fatalf("stdout line is not a JSON-RPC message: %q", sc.Bytes())
			}
			if msg.Method == "" && (msg.Result != nil || msg.Error != nil) && msg.ID != nil {
				answered[string(msg.ID)]++
			}
		}
	}
	for id, n := range owed {
		got := answered[id]
		// A duplicate in-flight id gets its own error answer, so answers
		// match requests one for one, unless a cancellation dropped some
		// (or a served batch answered more under the same id).
		if got > n+batched[id] || !cancels && got < n {
			t.Errorf("request id %s: %d answers to %d requests", id, got, n)
		}
	}
}

// FuzzHTTPHandler sends arbitrary methods, headers and bodies to the
// Streamable HTTP handler: no panic, a known status, and a body that is
// empty, one JSON-RPC message or an SSE stream.
func FuzzHTTPHandler(f *testing.F) {
	f.Add("POST", "Content-Type: application/json\nAccept: application/json, text/event-stream\nMCP-Protocol-Version: 2026-07-28\nMcp-Method: tools/call\nMcp-Name: test_simple_text", []byte(simpleCallModern))
	f.Add("POST", "Content-Type: application/json\nMCP-Protocol-Version: 2025-11-25", []byte(legacyInit))
	f.Add("GET", "Accept: text/event-stream\nMcp-Session-Id: x", []byte(nil))
	f.Add("DELETE", "Mcp-Session-Id: x", []byte(nil))
	f.Add("POST", "Origin: http://evil.example", []byte("{}"))
	f.Add("PUT", "", []byte("[]"))
	f.Add("POST", "Content-Type: application/json\nMcp-Name: =?base64?***?=", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":`+modernMeta+`}}`))
	s := fuzzServer(fuzzCallTimeout)
	h := s.HTTPHandler(&mcpruntime.HTTPOptions{MaxBodyBytes: 1 << 16, KeepAlive: -1})
	known := map[int]bool{200: true, 202: true, 204: true, 400: true, 403: true, 404: true, 405: true, 406: true, 413: true, 415: true, 503: true}
	f.Fuzz(func(t *testing.T, method, headers string, body []byte) {
		if !validMethod(method) {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", bytes.NewReader(body))
		for line := range strings.SplitSeq(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && validToken(k) {
				req.Header.Add(k, strings.TrimSpace(v))
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !known[rec.Code] {
			t.Fatalf("%s with %q: status %d", method, headers, rec.Code)
		}
		b := rec.Body.Bytes()
		ct := rec.Header().Get("Content-Type")
		switch {
		case len(bytes.TrimSpace(b)) == 0:
		case strings.HasPrefix(ct, "text/event-stream"):
		case !json.Valid(b):
			t.Fatalf("%s with %q: body is not JSON: %q", method, headers, b)
		}
		checkNoLeakText(t, b)
	})
}

func validMethod(m string) bool { return m != "" && validToken(m) }

// validToken reports whether s is an HTTP token (what net/http accepts as a
// method or header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return false
		}
	}
	return true
}

// FuzzRequestState retries a 2026-07-28 MRTR call with an arbitrary
// requestState and inputResponses: no panic, and the answer is a result
// (complete or input_required) or -32602.
func FuzzRequestState(f *testing.F) {
	s := fuzzServer(10 * time.Second)
	meta := strings.Replace(modernMetaParams, `clientCapabilities":{}`, `clientCapabilities":{"elicitation":{}}`, 1)
	first := s.HandleRaw(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_input_required_result_request_state","arguments":{}`+meta+`}}`), nil, nil)
	var r struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	json.Unmarshal(first.Body, &r)
	if r.Result.RequestState == "" {
		f.Fatalf("no requestState in %s", first.Body)
	}
	f.Add(r.Result.RequestState, `{}`)
	f.Add(r.Result.RequestState+"x", `{}`)
	f.Add("mcs1.", `{"confirm":{"action":"accept","content":{"ok":true}}}`)
	f.Add("", `12345`)
	f.Add("mcs1.AAAA", `{"x":12345}`)
	f.Fuzz(func(t *testing.T, state, responses string) {
		if !json.Valid([]byte(responses)) {
			responses = "{}"
		}
		st, _ := json.Marshal(state)
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_input_required_result_request_state","arguments":{},"requestState":` +
			string(st) + `,"inputResponses":` + responses + meta + `}}`
		rep := s.HandleRaw(context.Background(), []byte(body), nil, nil)
		switch rep.Code {
		case 0, -32602:
		default:
			t.Fatalf("state %q responses %s: got %s", state, responses, rep.Body)
		}
		checkNoLeakText(t, rep.Body)
	})
}

// TestWriteFuzzCorpus writes the bad-input matrix as the committed seed corpus
// of FuzzStdio and FuzzHTTPHandler (testdata/fuzz) when MCPGEN_WRITE_CORPUS=1;
// otherwise it checks that corpus is there.
func TestWriteFuzzCorpus(t *testing.T) {
	var bodies []string
	for _, modern := range []bool{false, true} {
		for _, c := range append(commonCases(modern), metaCases()...) {
			bodies = append(bodies, c.body)
		}
	}
	write := os.Getenv("MCPGEN_WRITE_CORPUS") == "1"
	for i, b := range bodies {
		if len(b) > 64<<10 {
			continue // the deep-nesting case: the fuzzer mutates smaller inputs
		}
		files := map[string]string{
			filepath.Join("testdata", "fuzz", "FuzzStdio", fmt.Sprintf("matrix-%03d", i)):       fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", legacyInit+"\n"+b+"\n"),
			filepath.Join("testdata", "fuzz", "FuzzHTTPHandler", fmt.Sprintf("matrix-%03d", i)): fmt.Sprintf("go test fuzz v1\nstring(%q)\nstring(%q)\n[]byte(%q)\n", "POST", "Content-Type: application/json\nAccept: application/json, text/event-stream\nMCP-Protocol-Version: 2026-07-28", b),
		}
		for path, content := range files {
			if write {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if _, err := os.Stat(path); err != nil {
				t.Fatalf("seed corpus missing (run with MCPGEN_WRITE_CORPUS=1): %v", err)
			}
		}
	}
}
