package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// What every client must see from each example server.

// A call is one tools/call a client sends, and what must come back.
type call struct {
	Name string         `json:"name"`
	Args map[string]any `json:"arguments,omitempty"`
	// Progress asks for progress notifications (the client sends a progressToken).
	Progress bool `json:"progress,omitempty"`
	// CancelOnProgress has the client cancel the call on its first progress notification.
	CancelOnProgress bool `json:"cancelOnProgress,omitempty"`
	// LogLevel asks for log messages at this level or above.
	LogLevel string `json:"logLevel,omitempty"`

	want       outcome           // ok, isError or rpcError
	code       int               // rpcError: the JSON-RPC error code
	mentions   []string          // substrings the text blocks must contain; "{rev}" stands for the revision
	never      []string          // substrings the text blocks must not contain
	content    []string          // ok, no outputSchema: the content block types, in order
	structured map[string]string // ok: the exact structuredContent JSON by revision ("" for any)
	progress   []float64         // Progress: the progress values of the notifications, in order
	logs       []string          // the data of the log messages the call must bring, in order (nil: any)
	noLogs     bool              // the call must bring no log message
	asks       int               // how many times the server asks the client mid-call
}

type outcome int

const (
	ok        outcome = iota // a result without isError; structured when the tool has an outputSchema
	isError                  // a result with isError: true and a text block
	rpcError                 // a JSON-RPC error response
	cancelled                // cancelled by the client: no answer may follow the cancellation
)

func (o outcome) String() string { return [...]string{"ok", "isError", "rpcError", "cancelled"}[o] }

type expectation struct {
	instructions string            // the server's instructions, from initialize or server/discover
	tools        []string          // names that must be listed
	titles       map[string]string // tool name -> its title
	annotations  map[string]string // tool name -> its annotations, as JSON
	calls        []call
}

const unknownTool = "no_such_tool_mcpgen_interop"

var expectations = map[string]expectation{
	"notes": {
		tools:       []string{"search_notes"},
		titles:      map[string]string{"search_notes": "Search notes"},
		annotations: map[string]string{"search_notes": `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`},
		calls: []call{
			// Case-insensitive, every file in name order, non-ASCII text intact, default limit 10.
			{Name: "search_notes", Args: map[string]any{"keyword": "MCP"}, want: ok, structured: map[string]string{"": `{"matches":[
				{"file":"ideas.md","line":2,"text":"Write a chapter on mcp tool annotations."},
				{"file":"ideas.md","line":4,"text":"Ask readers which MCP hosts they use."},
				{"file":"meeting.md","line":2,"text":"2026-09-01 讨论了 MCP 选题。"},
				{"file":"todo.md","line":2,"text":"- Fix the print() pitfall in chapter 2 (stdout must carry only MCP messages)."}],
				"truncated":false}`}},
			{Name: "search_notes", Args: map[string]any{"keyword": "mcp", "limit": 2}, want: ok, structured: map[string]string{"": `{"matches":[
				{"file":"ideas.md","line":2,"text":"Write a chapter on mcp tool annotations."},
				{"file":"ideas.md","line":4,"text":"Ask readers which MCP hosts they use."}],
				"truncated":true}`}},
			{Name: "search_notes", Args: map[string]any{"keyword": "no such words anywhere"}, want: ok, structured: map[string]string{"": `{"matches":[],"truncated":false}`}},
			{Name: "search_notes", Args: map[string]any{"keyword": ""}, want: isError, mentions: []string{"/keyword"}},
			{Name: "search_notes", Args: map[string]any{"keyword": "MCP", "limit": 0}, want: isError, mentions: []string{"/limit"}},
			{Name: "search_notes", Args: map[string]any{"keyword": "MCP", "limit": 101}, want: isError, mentions: []string{"/limit"}},
			// Wrong type: the failing path and rule, and the valid argument names.
			{Name: "search_notes", Args: map[string]any{"keyword": 42}, want: isError, mentions: []string{"/keyword", "keyword"}},
			// Unknown argument: the schemas are closed.
			{Name: "search_notes", Args: map[string]any{"keyword": "MCP", "bogus": true}, want: isError, mentions: []string{"bogus"}},
			// Missing required argument.
			{Name: "search_notes", Args: map[string]any{}, want: isError, mentions: []string{"keyword"}},
			{Name: unknownTool, Args: map[string]any{}, want: rpcError, code: -32602},
		},
	},
	// The runtime's hand-registered test server: legacy wrapping of non-object
	// output, pagination (4 tools a page), handler errors and panics, output that
	// breaks its schema, every content type.
	"testserver": {
		instructions: "A server for the runtime's tests.",
		tools:        []string{"echo", "add", "slow", "block", "fail", "crash", "nothing", "bad_output", "rich", "whoami"},
		calls: []call{
			{Name: "echo", Args: map[string]any{"text": "hi", "repeat": 2}, want: ok, structured: map[string]string{"": `{"text":"hihi"}`}},
			{Name: "echo", Args: map[string]any{"text": ""}, want: isError, mentions: []string{"/text"}},
			{Name: "echo", Args: map[string]any{"text": "hi", "repeat": "2"}, want: isError, mentions: []string{"/repeat"}},
			// A non-object result: wrapped in {"result": ...} for 2025-11-25 only.
			{Name: "add", Args: map[string]any{"a": 2, "b": 3}, want: ok, structured: map[string]string{"2025-11-25": `{"result":5}`, "2026-07-28": `5`}},
			{Name: "whoami", want: ok, mentions: []string{"version={rev}"}},
			{Name: "fail", want: isError, mentions: []string{"on purpose"}},
			{Name: "crash", want: isError, never: []string{"secret panic detail"}},
			{Name: "bad_output", want: rpcError, code: -32603},
			{Name: "nothing", want: rpcError, code: -32603},
			{Name: "rich", want: ok, content: []string{"text", "image", "audio", "resource", "resource", "resource_link"}},
			// No log level asked for (yet, on 2025-11-25): no log messages.
			{Name: "slow", Args: map[string]any{"steps": 3, "delayMs": 20}, Progress: true, want: ok, progress: []float64{1, 2, 3}, noLogs: true, structured: map[string]string{"2025-11-25": `{"result":"done after 3 steps"}`, "2026-07-28": `"done after 3 steps"`}},
			{Name: "slow", Args: map[string]any{"steps": 2, "delayMs": 1}, LogLevel: "info", want: ok, logs: []string{`"step 1"`, `"step 2"`}},
			// block reports progress once, then waits for its cancellation.
			{Name: "block", CancelOnProgress: true, want: cancelled},
			// The server still serves after the cancellation.
			{Name: "echo", Args: map[string]any{"text": "again"}, want: ok, structured: map[string]string{"": `{"text":"again"}`}},
			{Name: unknownTool, want: rpcError, code: -32602},
		},
	},
	"everything": {
		tools: []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types", "test_error_handling"},
		calls: []call{
			{Name: "test_simple_text", want: ok, content: []string{"text"}},
			{Name: "test_image_content", want: ok, content: []string{"image"}},
			{Name: "test_audio_content", want: ok, content: []string{"audio"}},
			{Name: "test_embedded_resource", want: ok, content: []string{"resource"}},
			{Name: "test_multiple_content_types", want: ok, content: []string{"text", "image", "resource"}},
			{Name: "test_error_handling", want: isError, mentions: []string{"intentionally"}},
			{Name: "test_tool_with_progress", Progress: true, want: ok, content: []string{"text"}, progress: []float64{0, 50, 100}},
			{Name: "test_tool_with_logging", LogLevel: "debug", want: ok, content: []string{"text"}, logs: []string{"Tool execution started", "Tool processing data", "Tool execution completed"}},
			// The server asks mid-call; the clients answer as a pretend user (name Ada,
			// colour teal, confirm yes) and model ("interop model says hi").
			{Name: "test_input_required_result_elicitation", want: ok, asks: 1, content: []string{"text"}, mentions: []string{"Hello, Ada!"}},
			{Name: "test_input_required_result_multi_round", want: ok, asks: 2, content: []string{"text"}, mentions: []string{"Ada", "teal"}},
			{Name: "test_input_required_result_request_state", want: ok, asks: 1, content: []string{"text"}, mentions: []string{"state-ok: confirmed"}},
			{Name: "test_sampling", Args: map[string]any{"prompt": "Say hi"}, want: ok, asks: 1, content: []string{"text"}, mentions: []string{"LLM response: interop model says hi"}},
			// A tool without arguments has a closed, empty input schema.
			{Name: "test_simple_text", Args: map[string]any{"unexpected": 1}, want: isError, mentions: []string{"unexpected"}},
			{Name: unknownTool, want: rpcError, code: -32602},
		},
	},
}

// A conversation is what one client saw, in a client-neutral form.
type conversation struct {
	ProtocolVersion string            `json:"protocolVersion"`
	ServerName      string            `json:"serverName"`
	Instructions    string            `json:"instructions"`
	Tools           []json.RawMessage `json:"tools"`
	Calls           []callResult      `json:"calls"`
	Wire            []wireMsg         `json:"trace"`

	// dropsLateNotifications: the client may drop notifications that arrive in
	// the same read as the response (the TypeScript SDKs do, see checkConversation).
	dropsLateNotifications bool
}

type callResult struct {
	Name     string          `json:"name"`
	Progress []progress      `json:"progress"`
	Result   json.RawMessage `json:"result"`
	Error    *struct {
		Code    any    `json:"code"` // a number for protocol errors; the TypeScript SDKs use strings for their own
		Message string `json:"message"`
	} `json:"error"`
}

type progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// toolDef is the part of a listed tool these tests look at.
type toolDef struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
}

type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// checkConversation asserts what client saw from example at revision rev.
func checkConversation(t *testing.T, example, rev string, c *conversation) {
	t.Helper()
	exp, found := expectations[example]
	if !found {
		t.Fatalf("no expectations for example %q", example)
	}
	if c.ProtocolVersion != rev {
		t.Errorf("negotiated protocol version %q, want %q", c.ProtocolVersion, rev)
	}
	if c.ServerName == "" {
		t.Errorf("the client saw no serverInfo name")
	}
	if c.Instructions != exp.instructions {
		t.Errorf("the client saw instructions %q, want %q", c.Instructions, exp.instructions)
	}

	tools := map[string]toolDef{}
	for _, raw := range c.Tools {
		var td toolDef
		if err := json.Unmarshal(raw, &td); err != nil {
			t.Errorf("listed tool %s: %v", raw, err)
			continue
		}
		if _, dup := tools[td.Name]; dup {
			t.Errorf("tool %q listed twice", td.Name)
		}
		tools[td.Name] = td
		if td.Description == "" {
			t.Errorf("tool %q has no description", td.Name)
		}
		var in struct {
			Type                 string `json:"type"`
			AdditionalProperties *bool  `json:"additionalProperties"`
		}
		if err := json.Unmarshal(td.InputSchema, &in); err != nil || in.Type != "object" {
			t.Errorf("tool %q: inputSchema %s is not an object schema (%v)", td.Name, td.InputSchema, err)
		}
		if in.AdditionalProperties == nil || *in.AdditionalProperties {
			t.Errorf("tool %q: inputSchema is not closed (additionalProperties: false): %s", td.Name, td.InputSchema)
		}
		if _, err := compileSchema(td.InputSchema); err != nil {
			t.Errorf("tool %q: inputSchema does not compile as JSON Schema 2020-12: %v", td.Name, err)
		}
		if len(td.OutputSchema) > 0 {
			if _, err := compileSchema(td.OutputSchema); err != nil {
				t.Errorf("tool %q: outputSchema does not compile as JSON Schema 2020-12: %v", td.Name, err)
			}
		}
	}
	for _, name := range exp.tools {
		if _, found := tools[name]; !found {
			t.Errorf("tool %q is not listed; listed: %v", name, keys(tools))
		}
	}
	for name, title := range exp.titles {
		if got := tools[name].Title; got != title {
			t.Errorf("tool %q has title %q, want %q", name, got, title)
		}
	}
	for name, ann := range exp.annotations {
		var got, want any
		_ = json.Unmarshal(tools[name].Annotations, &got)
		if err := json.Unmarshal([]byte(ann), &want); err != nil {
			panic(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tool %q has annotations %s, want %s", name, tools[name].Annotations, ann)
		}
	}

	if len(c.Calls) != len(exp.calls) {
		t.Fatalf("%d call results for %d calls", len(c.Calls), len(exp.calls))
	}
	// The ids of the tools/call requests on the wire: the clients send the calls one
	// after another, each once, but for the retries that answer an input_required result.
	var callIDs []string
	for _, m := range c.Wire {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestState   *string         `json:"requestState"`
				InputResponses json.RawMessage `json:"inputResponses"`
			} `json:"params"`
		}
		if m.Dir == "send" && json.Unmarshal(m.Msg, &r) == nil && r.Method == "tools/call" && r.Params.RequestState == nil && r.Params.InputResponses == nil {
			callIDs = append(callIDs, string(r.ID))
		}
	}
	// More may follow (listChanged calls tools too); fewer means a call never went out.
	if len(callIDs) < len(exp.calls) {
		t.Errorf("%d tools/call requests on the wire for %d calls", len(callIDs), len(exp.calls))
	} else {
		callIDs = callIDs[:len(exp.calls)]
	}
	logsByCall := logMessagesByCall(c.Wire, callIDs)
	checkAsks(t, rev, c.Wire, exp.calls)
	for i, want := range exp.calls {
		got := c.Calls[i]
		label := fmt.Sprintf("call %d: %s %s", i, want.Name, mustJSON(want.Args))
		if got.Name != want.Name {
			t.Errorf("%s: result is for %q", label, got.Name)
			continue
		}
		if want.Progress {
			// What the client handed to its progress callback: the TypeScript SDKs
			// dispatch notifications a microtask later than responses, so they drop
			// notifications that arrive in the same read as the response (under load,
			// all of them). The wire (checkProgressWire) must carry them all, before
			// the response.
			var values []float64
			for _, p := range got.Progress {
				values = append(values, p.Progress)
			}
			switch {
			case c.dropsLateNotifications && (len(values) > len(want.progress) || !reflect.DeepEqual(values, want.progress[:len(values)])):
				t.Errorf("%s: the client saw progress %v, want a prefix of progress values %v", label, got.Progress, want.progress)
			case !c.dropsLateNotifications && !reflect.DeepEqual(values, want.progress):
				t.Errorf("%s: the client saw progress %v, want progress values %v", label, got.Progress, want.progress)
			}
			if i < len(callIDs) {
				checkProgressWire(t, label, c.Wire, callIDs[i], want.progress)
			}
		}
		if want.logs != nil || want.noLogs {
			var logs []string
			if i < len(logsByCall) {
				logs = logsByCall[i]
			}
			switch {
			case want.noLogs && len(logs) > 0:
				t.Errorf("%s: log messages without a log level asked for: %v", label, logs)
			case want.logs != nil && len(logs) != len(want.logs):
				t.Errorf("%s: log message data %v, want %d messages containing %q", label, logs, len(want.logs), want.logs)
			case want.logs != nil:
				for k, l := range logs {
					if !strings.Contains(l, want.logs[k]) {
						t.Errorf("%s: log message %d has data %s, want it to contain %q", label, k, l, want.logs[k])
					}
				}
			}
		}
		if want.want == cancelled {
			if got.Error == nil {
				t.Errorf("%s: got result %s, want the call cancelled", label, got.Result)
			}
			if len(got.Progress) == 0 {
				t.Errorf("%s: no progress notification came, so the call was never cancelled", label)
			}
			continue
		}
		if want.want == rpcError {
			if got.Error == nil {
				t.Errorf("%s: got result %s, want JSON-RPC error %d", label, got.Result, want.code)
			} else if code, _ := got.Error.Code.(float64); int(code) != want.code {
				t.Errorf("%s: got error %v %q, want code %d", label, got.Error.Code, got.Error.Message, want.code)
			}
			continue
		}
		if got.Error != nil {
			t.Errorf("%s: got error %v %q, want a result (%v)", label, got.Error.Code, got.Error.Message, want.want)
			continue
		}
		var res toolResult
		if err := json.Unmarshal(got.Result, &res); err != nil {
			t.Errorf("%s: result %s: %v", label, got.Result, err)
			continue
		}
		text := allText(res)
		for _, m := range want.mentions {
			if m = strings.ReplaceAll(m, "{rev}", rev); !strings.Contains(text, m) {
				t.Errorf("%s: text does not mention %q: %q", label, m, text)
			}
		}
		for _, m := range want.never {
			if strings.Contains(text, m) {
				t.Errorf("%s: text reveals %q: %q", label, m, text)
			}
		}
		switch want.want {
		case isError:
			if !res.IsError {
				t.Errorf("%s: isError is false, want true: %s", label, got.Result)
			}
			// Only a coded error of a tool without an outputSchema carries
			// structuredContent: {"error": {code, message, retryable}}.
			if len(res.StructuredContent) > 0 && (len(tools[want.Name].OutputSchema) > 0 || !isErrorObject(res.StructuredContent)) {
				t.Errorf("%s: an isError result carries structuredContent other than an error object, or despite an outputSchema: %s", label, got.Result)
			}
		case ok:
			if res.IsError {
				t.Errorf("%s: isError is true: %s", label, got.Result)
				continue
			}
			checkOK(t, label, rev, tools[want.Name], want, res, got.Result)
		}
	}
}

// checkOK checks a successful result: structured results against the advertised
// outputSchema with a text block holding the same JSON; others by content types.
func checkOK(t *testing.T, label, rev string, td toolDef, want call, res toolResult, raw json.RawMessage) {
	t.Helper()
	if len(td.OutputSchema) == 0 {
		if len(res.StructuredContent) > 0 {
			t.Errorf("%s: structuredContent without an advertised outputSchema: %s", label, raw)
		}
		var types []string
		for _, c := range res.Content {
			types = append(types, c.Type)
		}
		if !reflect.DeepEqual(types, want.content) {
			t.Errorf("%s: content types %v, want %v: %s", label, types, want.content, raw)
		}
		return
	}
	if len(res.StructuredContent) == 0 {
		t.Errorf("%s: no structuredContent although the tool has an outputSchema: %s", label, raw)
		return
	}
	s, err := compileSchema(td.OutputSchema)
	if err != nil {
		t.Errorf("%s: %v", label, err)
		return
	}
	if err := validate(t, s, res.StructuredContent); err != nil {
		t.Errorf("%s: structuredContent does not match the advertised outputSchema: %v\n%s", label, err, raw)
	}
	if len(res.Content) == 0 || res.Content[0].Type != "text" {
		t.Errorf("%s: no text block with the serialized structured result: %s", label, raw)
		return
	}
	var fromText, structured any
	if err := json.Unmarshal([]byte(res.Content[0].Text), &fromText); err != nil {
		t.Errorf("%s: the text block is not JSON: %v: %q", label, err, res.Content[0].Text)
	}
	_ = json.Unmarshal(res.StructuredContent, &structured)
	if !reflect.DeepEqual(fromText, structured) {
		t.Errorf("%s: the text block %s differs from structuredContent %s", label, res.Content[0].Text, res.StructuredContent)
	}
	exact, found := want.structured[rev]
	if !found {
		exact, found = want.structured[""]
	}
	if found {
		var w any
		if err := json.Unmarshal([]byte(exact), &w); err != nil {
			panic(err)
		}
		if !reflect.DeepEqual(structured, w) {
			t.Errorf("%s: structuredContent %s, want %s", label, res.StructuredContent, exact)
		}
	}
}

// checkAsks checks that the server asked the client mid-call the way the era
// prescribes, as often as the calls ask: 2026-07-28 with input_required results,
// 2025-11-25 with server-to-client requests.
func checkAsks(t *testing.T, rev string, wire []wireMsg, calls []call) {
	t.Helper()
	want := 0
	for _, c := range calls {
		want += c.asks
	}
	inputRequired, requests := 0, 0
	for _, m := range wire {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				ResultType string `json:"resultType"`
			} `json:"result"`
		}
		if m.Dir != "recv" || json.Unmarshal(m.Msg, &r) != nil {
			continue
		}
		switch {
		case r.Method != "" && r.ID != nil:
			requests++
		case r.Result.ResultType == "input_required":
			inputRequired++
		}
	}
	switch rev {
	case "2026-07-28":
		if inputRequired != want || requests != 0 {
			t.Errorf("2026-07-28: %d input_required results and %d server-to-client requests, want %d and 0", inputRequired, requests, want)
		}
	case "2025-11-25":
		if requests != want || inputRequired != 0 {
			t.Errorf("2025-11-25: %d server-to-client requests and %d input_required results, want %d and 0", requests, inputRequired, want)
		}
	}
}

// logMessagesByCall returns the data of the notifications/message the server sent
// during each call: after the previous call's response, up to the call's own. The
// calls go one after another, and a log of what the client read keeps its order.
func logMessagesByCall(wire []wireMsg, callIDs []string) [][]string {
	byCall := make([][]string, len(callIDs))
	k := -1 // the first call's messages come after tools/list, before its response
	pending := []string{}
	for _, m := range wire {
		if m.Dir != "recv" {
			continue
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Data json.RawMessage `json:"data"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Msg, &r) != nil {
			continue
		}
		if r.Method == "notifications/message" {
			pending = append(pending, string(r.Params.Data))
			continue
		}
		if r.Method == "" && k+1 < len(callIDs) && string(r.ID) == callIDs[k+1] {
			k++
			byCall[k] = pending
			pending = []string{}
		}
	}
	return byCall
}

// checkProgressWire checks that the server sent progress notifications with the
// values want for request id, all before its response.
func checkProgressWire(t *testing.T, label string, wire []wireMsg, id string, want []float64) {
	t.Helper()
	var token json.RawMessage
	for _, m := range wire {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if m.Dir == "send" && json.Unmarshal(m.Msg, &r) == nil && r.Method == "tools/call" && string(r.ID) == id {
			token = r.Params.Meta.ProgressToken
		}
	}
	if token == nil {
		t.Errorf("%s: the client sent no progressToken", label)
		return
	}
	var values []float64
	answered := false
	for _, m := range wire {
		if m.Dir != "recv" {
			continue
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Progress      float64         `json:"progress"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Msg, &r) != nil {
			continue
		}
		switch {
		case r.Method == "" && string(r.ID) == id:
			answered = true
		case r.Method == "notifications/progress" && bytes.Equal(r.Params.ProgressToken, token):
			if answered {
				t.Errorf("%s: progress after the response: %s", label, m.Msg)
			}
			values = append(values, r.Params.Progress)
		}
	}
	if !reflect.DeepEqual(values, want) {
		t.Errorf("%s: the server sent progress values %v for token %s, want %v", label, values, token, want)
	}
}

func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://tool.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://tool.json")
}

func allText(res toolResult) string {
	var parts []string
	for _, c := range res.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// isErrorObject reports whether sc is the runtime's {"error": {code, message, retryable}}.
func isErrorObject(sc json.RawMessage) bool {
	var v struct {
		Error *struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			Retryable *bool  `json:"retryable"`
		} `json:"error"`
	}
	return json.Unmarshal(sc, &v) == nil && v.Error != nil && v.Error.Code != "" && v.Error.Message != "" && v.Error.Retryable != nil
}
