package incidents

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestAppsSchemas validates the example's MCP Apps messages: tools/list,
// resources/read of the board's view and server/discover against the
// 2026-07-28 schema, and each _meta.ui against the ext-apps schema
// (McpUiToolMeta, McpUiResourceMeta) of npm @modelcontextprotocol/ext-apps,
// found at $MCPGEN_EXT_APPS_SCHEMA (scripts/apps.sh sets it) or in the npm
// cache scripts/apps.sh fills; without either the ext-apps half is skipped.
func TestAppsSchemas(t *testing.T) {
	spec := compileSchema(t, specDir(t)+"/2026-07-28/schema/schema.json")
	s := newServer()
	results := map[string]json.RawMessage{
		"ListToolsResult":    result(t, callApps(t, s, "tools/list", map[string]any{})),
		"ReadResourceResult": result(t, callApps(t, s, "resources/read", map[string]any{"uri": "ui://incidents/board"})),
		"DiscoverResult":     result(t, callApps(t, s, "server/discover", map[string]any{})),
	}
	for def, raw := range results {
		validate(t, spec, "#/$defs/"+def, raw)
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
			Meta struct {
				UI json.RawMessage `json:"ui"`
			} `json:"_meta"`
		} `json:"tools"`
	}
	var read struct {
		Contents []struct {
			URI, MIMEType, Text string
			Meta                struct {
				UI json.RawMessage `json:"ui"`
			} `json:"_meta"`
		} `json:"contents"`
	}
	unmarshal(t, results["ListToolsResult"], &list)
	unmarshal(t, results["ReadResourceResult"], &read)
	ui := map[string]string{}
	for _, tool := range list.Tools {
		if tool.Meta.UI != nil {
			ui[tool.Name] = string(tool.Meta.UI)
		}
	}
	want := map[string]string{
		"show_incident_board": `{"resourceUri":"ui://incidents/board"}`,
		"acknowledge_alert":   `{"resourceUri":"ui://incidents/board","visibility":["app"]}`,
	}
	if len(ui) != len(want) || ui["show_incident_board"] != want["show_incident_board"] || ui["acknowledge_alert"] != want["acknowledge_alert"] {
		t.Errorf("tools' _meta.ui = %v, want %v", ui, want)
	}
	if len(read.Contents) != 1 || read.Contents[0].MIMEType != "text/html;profile=mcp-app" ||
		!strings.HasPrefix(read.Contents[0].Text, "<!doctype html>") || string(read.Contents[0].Meta.UI) != `{"prefersBorder":true}` {
		t.Errorf("resources/read ui://incidents/board = %s, want one HTML view with _meta.ui {\"prefersBorder\":true}", results["ReadResourceResult"])
	}

	path := extAppsSchema(t)
	if path == "" {
		t.Skip("no ext-apps schema: set MCPGEN_EXT_APPS_SCHEMA or run scripts/apps.sh once")
	}
	apps := compileSchema(t, path)
	for name, meta := range ui {
		t.Logf("%s _meta.ui against McpUiToolMeta", name)
		validate(t, apps, "#/$defs/McpUiToolMeta", json.RawMessage(meta))
	}
	validate(t, apps, "#/$defs/McpUiResourceMeta", read.Contents[0].Meta.UI)
	// The schema is enforced: a visibility it does not know fails.
	sch, err := apps.Compile("https://schema.test/doc.json#/$defs/McpUiToolMeta")
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(map[string]any{"visibility": []any{"robot"}}) == nil {
		t.Error(`McpUiToolMeta accepts visibility ["robot"]; the schema checks nothing`)
	}
}

// TestAcknowledgeOnce checks that a retried acknowledgement (same idempotency
// key) runs the handler once and replays its receipt.
func TestAcknowledgeOnce(t *testing.T) {
	d := mustDesk()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "incidents", Version: "test"},
		&mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	RegisterMCP(s, d)
	args := map[string]any{"alert_id": "alert-payments-0001", "idempotency_key": "ack-test-0001"}
	first := callTool(t, s, map[string]any{"name": "acknowledge_alert", "arguments": args})
	again := callTool(t, s, map[string]any{"name": "acknowledge_alert", "arguments": args})
	if d.AckRuns() != 1 || string(first) != string(again) || !strings.Contains(string(first), `"ack_id":"ACK-0001"`) {
		t.Errorf("acknowledge twice with one key: %d runs, results\n%s\n%s\nwant 1 run, ACK-0001 twice", d.AckRuns(), first, again)
	}
	board := callTool(t, s, map[string]any{"name": "show_incident_board"})
	if !strings.Contains(string(board), `P1 alert-payments-0001 payments: error rate 18.2 %, checkout failures 21 %, acknowledged (ACK-0001)`) {
		t.Errorf("board after the acknowledgement lacks it in its text: %s", board)
	}
}

// callTool sends one tools/call through mcpgentest and returns its result.
func callTool(t *testing.T, s *mcpruntime.Server, params map[string]any) json.RawMessage {
	t.Helper()
	raw, rerr := mcpgentest.Call(t, s, "tools/call", params)
	if rerr != nil {
		t.Fatalf("got error %v, want a result", rerr)
	}
	return raw
}

// callApps sends one 2026-07-28 request from a client with MCP Apps.
func callApps(t *testing.T, s *mcpruntime.Server, method string, params map[string]any) map[string]json.RawMessage {
	t.Helper()
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": uiCaps,
	}
	raw, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	var resp map[string]json.RawMessage
	unmarshal(t, s.HandleRaw(context.Background(), raw, nil, nil).Body, &resp)
	return resp
}

// result returns a response's result, failing the test on an error.
func result(t *testing.T, resp map[string]json.RawMessage) json.RawMessage {
	t.Helper()
	if resp["result"] == nil {
		t.Fatalf("got error %s, want a result", resp["error"])
	}
	return resp["result"]
}

func unmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// specDir is the MCP spec beside the repository ($MCPGEN_SPEC_DIR when set);
// a missing spec fails the test.
func specDir(t *testing.T) string {
	if dir := os.Getenv("MCPGEN_SPEC_DIR"); dir != "" {
		return dir
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "spec"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// extAppsSchema is the ext-apps package's schema.json, or "" when there is none.
func extAppsSchema(t *testing.T) string {
	if path := os.Getenv("MCPGEN_EXT_APPS_SCHEMA"); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("MCPGEN_EXT_APPS_SCHEMA: %v", err)
		}
		return path
	}
	cache := os.Getenv("MCPGEN_INTEROP_HOME")
	if cache == "" {
		home, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, "mcpgen-interop")
	}
	found, _ := filepath.Glob(filepath.Join(cache, "apps-*", "node_modules", "@modelcontextprotocol", "ext-apps", "dist", "src", "generated", "schema.json"))
	if len(found) == 0 {
		return ""
	}
	return found[len(found)-1]
}

// compileSchema loads a schema document for validate.
func compileSchema(t *testing.T, path string) *jsonschema.Compiler {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("https://schema.test/doc.json", doc); err != nil {
		t.Fatal(err)
	}
	return c
}

// validate checks raw against the definition at ref of the compiler's document.
func validate(t *testing.T, c *jsonschema.Compiler, ref string, raw json.RawMessage) {
	t.Helper()
	sch, err := c.Compile("https://schema.test/doc.json" + ref)
	if err != nil {
		t.Fatalf("compile %s: %v", ref, err)
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not validate: %v\n%s", ref, err, raw)
	}
}
