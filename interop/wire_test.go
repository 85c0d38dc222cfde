package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A wireMsg is one JSON-RPC message seen by a client: Dir is "send" (client to
// server) or "recv" (server to client).
type wireMsg struct {
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

// rpc is the envelope of any JSON-RPC message.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// parseGoSDKLog turns the Go SDK's LoggingTransport output ("read: JSON" and
// "write: JSON" lines) into wire messages.
func parseGoSDKLog(t *testing.T, log string) []wireMsg {
	t.Helper()
	var msgs []wireMsg
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "read: "):
			msgs = append(msgs, wireMsg{"recv", json.RawMessage(strings.TrimPrefix(line, "read: "))})
		case strings.HasPrefix(line, "write: "):
			msgs = append(msgs, wireMsg{"send", json.RawMessage(strings.TrimPrefix(line, "write: "))})
		case strings.HasPrefix(line, "read error: "), strings.HasPrefix(line, "write error: "), strings.TrimSpace(line) == "":
			// The end of the connection (EOF when the session closes).
		default:
			t.Errorf("unexpected line in the Go SDK's wire log: %q", line)
		}
	}
	return msgs
}

// resultDefs names the spec's result type for each request method a client sends here.
var resultDefs = map[string]string{
	"initialize":      "InitializeResult",
	"ping":            "EmptyResult",
	"server/discover": "DiscoverResult",
	"tools/list":      "ListToolsResult",
	"tools/call":      "CallToolResult",

	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
}

var schemas struct {
	sync.Mutex
	byRev map[string]map[string]*jsonschema.Schema // revision -> $defs name -> compiled
}

// specSchema returns the compiled #/$defs/def of ../shared/spec/REV/schema/schema.json
// ($MCPGEN_SPEC_DIR/REV/… when set), or nil after reporting why there is none.
func specSchema(t *testing.T, rev, def string) *jsonschema.Schema {
	t.Helper()
	schemas.Lock()
	defer schemas.Unlock()
	if s := schemas.byRev[rev][def]; s != nil {
		return s
	}
	dir := os.Getenv("MCPGEN_SPEC_DIR") // as in the runtime's tests, e.g. for a git worktree
	if dir == "" {
		dir = filepath.Join(filepath.Dir(env.repo), "shared", "spec")
	}
	path := filepath.Join(dir, rev, "schema", "schema.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the spec schema is needed to check the wire: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	url := "https://spec.invalid/" + rev + "/schema.json"
	if olderRev(rev) {
		strictify(doc) // older_test.go
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s, err := c.Compile(url + "#/" + defsKey(rev) + "/" + def)
	if err != nil {
		t.Errorf("%s has no usable #/$defs/%s: %v", path, def, err)
		return nil
	}
	if schemas.byRev == nil {
		schemas.byRev = map[string]map[string]*jsonschema.Schema{}
	}
	if schemas.byRev[rev] == nil {
		schemas.byRev[rev] = map[string]*jsonschema.Schema{}
	}
	schemas.byRev[rev][def] = s
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, raw json.RawMessage) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// checkWire validates every message the server sent against the spec schema of
// revision rev: the JSON-RPC envelope, and each result against its request's result
// type. It also checks era rules a schema cannot see.
func checkWire(t *testing.T, rev string, msgs []wireMsg) {
	t.Helper()
	if len(msgs) == 0 {
		t.Errorf("no messages were recorded on the wire")
		return
	}
	envelope := specSchema(t, rev, "JSONRPCMessage")
	if envelope == nil {
		return
	}
	// The requests first: a log may record a response before its request.
	methods := map[string]string{} // request id -> method
	for _, m := range msgs {
		var r rpc
		if m.Dir == "send" && json.Unmarshal(m.Msg, &r) == nil && r.Method != "" && r.ID != nil {
			methods[string(r.ID)] = r.Method
		}
	}
	checkCancelled(t, msgs)
	for i, m := range msgs {
		var r rpc
		if err := json.Unmarshal(m.Msg, &r); err != nil {
			t.Errorf("wire message %d (%s) is not JSON-RPC: %v\n%s", i, m.Dir, err, m.Msg)
			continue
		}
		if m.Dir == "send" {
			continue
		}
		if err := validate(t, envelope, m.Msg); err != nil {
			t.Errorf("server message %d is not a %s JSONRPCMessage: %v\n%s", i, rev, err, m.Msg)
		}
		if r.Result == nil {
			continue
		}
		method, ok := methods[string(r.ID)]
		if !ok {
			t.Errorf("server message %d answers id %s, which the client never sent\n%s", i, r.ID, m.Msg)
			continue
		}
		def, ok := resultDefs[method]
		if !ok {
			continue
		}
		var kind struct {
			ResultType string `json:"resultType"`
		}
		if json.Unmarshal(r.Result, &kind) == nil && kind.ResultType == "input_required" {
			def = "InputRequiredResult" // 2026-07-28 multi round trip: the client fulfils and retries
		}
		s := specSchema(t, rev, def)
		if s == nil {
			t.Errorf("server message %d answers a %s request, which has no result type in %s\n%s", i, method, rev, m.Msg)
			continue
		}
		if err := validate(t, s, r.Result); err != nil {
			t.Errorf("result of %s is not a %s %s: %v\n%s", method, rev, def, err, m.Msg)
		}
		var meta struct {
			ResultType *string `json:"resultType"`
		}
		_ = json.Unmarshal(r.Result, &meta)
		switch {
		case rev == "2026-07-28" && meta.ResultType == nil:
			t.Errorf("2026-07-28 result of %s has no resultType\n%s", method, m.Msg)
		case rev == "2025-11-25" && meta.ResultType != nil && *meta.ResultType == "input_required":
			t.Errorf("2025-11-25 result of %s is input_required\n%s", method, m.Msg)
		}
	}
}

// checkCancelled checks that the server sent nothing for a request after the client
// cancelled it: no response (2025-11-25: SHOULD NOT; 2026-07-28: nothing more at all)
// and no progress notification for its progressToken.
func checkCancelled(t *testing.T, msgs []wireMsg) {
	t.Helper()
	tokens := map[string]string{} // request id -> progress token
	for _, m := range msgs {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if m.Dir == "send" && json.Unmarshal(m.Msg, &r) == nil && r.Method != "" && r.ID != nil && r.Params.Meta.ProgressToken != nil {
			tokens[string(r.ID)] = string(r.Params.Meta.ProgressToken)
		}
	}
	for i, m := range msgs {
		var c struct {
			Method string `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if m.Dir != "send" || json.Unmarshal(m.Msg, &c) != nil || c.Method != "notifications/cancelled" {
			continue
		}
		id := string(c.Params.RequestID)
		for _, later := range msgs {
			var r struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"params"`
			}
			if later.Dir != "recv" || json.Unmarshal(later.Msg, &r) != nil {
				continue
			}
			if r.Method == "" && string(r.ID) == id {
				t.Errorf("the server answered request %s after the client cancelled it:\n%s", id, later.Msg)
			}
		}
		for _, later := range msgs[i+1:] {
			var r struct {
				Method string `json:"method"`
				Params struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"params"`
			}
			if later.Dir == "recv" && json.Unmarshal(later.Msg, &r) == nil && r.Method == "notifications/progress" &&
				tokens[id] != "" && string(r.Params.ProgressToken) == tokens[id] {
				t.Errorf("the server sent progress for request %s after the client cancelled it:\n%s", id, later.Msg)
			}
		}
	}
}

// dumpWire renders messages for a failure message.
func dumpWire(msgs []wireMsg) string {
	var b strings.Builder
	for _, m := range msgs {
		arrow := "->"
		if m.Dir == "recv" {
			arrow = "<-"
		}
		fmt.Fprintf(&b, "%s %s\n", arrow, m.Msg)
	}
	return b.String()
}
