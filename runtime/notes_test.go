package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// These tests drive the generated examples/notes server (one tool, search_notes) as a
// real subprocess over stdio in both eras. Progress and cancellation need a tool
// that reports progress or blocks; search_notes does neither, so those are checked
// with runtime/internal/testserver (TestProcessModern, TestProcessLegacy).

// notesResult is the structured output of search_notes.
type notesResult struct {
	Matches []struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Text string `json:"text"`
	} `json:"matches"`
	Truncated bool `json:"truncated"`
}

// searchNotes calls search_notes and decodes its structured output.
func searchNotes(t *testing.T, c *testClient, modern bool, args map[string]any) (notesResult, callResult) {
	t.Helper()
	res, m := callTool(t, c, modern, "search_notes", args)
	if m.Error != nil || res.IsError {
		t.Fatalf("search_notes %v: %s", args, m.raw)
	}
	var out notesResult
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("structuredContent %s: %v", res.StructuredContent, err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != string(res.StructuredContent) {
		t.Errorf("content = %+v, want one text block with the structured JSON", res.Content)
	}
	return out, res
}

// checkNotesErrors checks the protocol and tool errors of the notes server in an era.
func checkNotesErrors(t *testing.T, c *testClient, modern bool) {
	t.Helper()
	res, _ := callTool(t, c, modern, "search_notes", map[string]any{"keyword": "", "limit": 0, "bogus": 1})
	text := res.Content[0].Text
	if !res.IsError || !strings.Contains(text, "/keyword: minLength") || !strings.Contains(text, "/limit: minimum") ||
		!strings.Contains(text, "'bogus'") || !strings.Contains(text, "valid arguments: keyword, limit") {
		t.Errorf("invalid arguments: %+v", res)
	}
	if _, m := callTool(t, c, modern, "search_everything", nil); m.errorCode() != CodeInvalidParams {
		t.Errorf("unknown tool: %s", m.raw)
	}
	if m := c.call(modern, "no/such/method", nil); m.errorCode() != CodeMethodNotFound {
		t.Errorf("unknown method: %s", m.raw)
	}
}

func TestNotesModern(t *testing.T) {
	p := startProcess(t, notesBin)
	var disc struct {
		SupportedVersions []string
		Meta              map[string]Implementation `json:"_meta"`
	}
	p.call(true, "server/discover", nil).decodeResult(t, &disc)
	if !slices.Contains(disc.SupportedVersions, "2026-07-28") || disc.Meta[metaServerInfo].Name != "notes" {
		t.Errorf("discover = %+v", disc)
	}
	if names := toolNames(t, p.testClient, true); !slices.Equal(names, []string{"search_notes"}) {
		t.Errorf("tools = %v", names)
	}
	out, res := searchNotes(t, p.testClient, true, map[string]any{"keyword": "the", "limit": 2})
	if len(out.Matches) == 0 || len(out.Matches) > 2 || res.ResultType != "complete" {
		t.Errorf("search the/2 = %+v", out)
	}
	checkNotesErrors(t, p.testClient, true)
	if m := p.call(false, "tools/list", map[string]any{}); m.errorCode() != CodeInvalidParams {
		t.Errorf("missing _meta: %s", m.raw)
	}
	meta := modernMeta()
	meta[metaProtocolVersion] = "2030-01-01"
	if m, _ := p.await(p.request("tools/list", map[string]any{"_meta": meta})); m.errorCode() != CodeUnsupportedVersion {
		t.Errorf("unsupported version: %s", m.raw)
	}
	if m := p.call(true, "ping", nil); m.errorCode() != CodeMethodNotFound {
		t.Errorf("modern ping: %s", m.raw)
	}
	// Opting in to progress and logs is harmless for a tool that sends neither.
	meta = modernMeta()
	meta["progressToken"], meta[metaLogLevel] = "t", "debug"
	if _, before := p.await(p.request("tools/call", map[string]any{"name": "search_notes", "arguments": map[string]any{"keyword": "x"}, "_meta": meta})); len(before) != 0 {
		t.Errorf("unexpected notifications: %d", len(before))
	}
}

func TestNotesLegacy(t *testing.T) {
	p := startProcess(t, notesBin)
	if m := p.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping = %s", m.raw)
	}
	var init struct {
		ProtocolVersion string
		ServerInfo      Implementation
	}
	initialize(t, p.testClient, "2026-07-28").decodeResult(t, &init)
	if init.ProtocolVersion != "2025-11-25" || init.ServerInfo.Name != "notes" {
		t.Errorf("initialize = %+v", init)
	}
	if names := toolNames(t, p.testClient, false); !slices.Equal(names, []string{"search_notes"}) {
		t.Errorf("tools = %v", names)
	}
	out, _ := searchNotes(t, p.testClient, false, map[string]any{"keyword": "zzz-no-such-word"})
	if len(out.Matches) != 0 || out.Truncated {
		t.Errorf("search without matches = %+v", out)
	}
	checkNotesErrors(t, p.testClient, false)
	if m := p.call(false, "logging/setLevel", map[string]any{"level": "debug"}); string(m.Result) != "{}" {
		t.Errorf("setLevel = %s", m.raw)
	}
	// A cancel for a finished request is ignored; the connection goes on.
	id := p.request("tools/call", map[string]any{"name": "search_notes", "arguments": map[string]any{"keyword": "a"}})
	p.await(id)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(id) + `}}`)
	if m := p.call(false, "ping", nil); string(m.Result) != "{}" {
		t.Errorf("ping after a late cancel = %s", m.raw)
	}
}

func TestNotesEOFWithCallInFlight(t *testing.T) {
	p := startProcess(t, notesBin)
	var ids []json.RawMessage
	for range 20 {
		ids = append(ids, p.modern("tools/call", map[string]any{"name": "search_notes", "arguments": map[string]any{"keyword": "e"}}))
	}
	p.stdin.Close() // every call is still in flight or unread
	answered := map[string]bool{}
	for len(answered) < len(ids) {
		m := p.next()
		if m.Error != nil || m.Result == nil {
			t.Errorf("after EOF: %s", m.raw)
		}
		answered[string(m.ID)] = true
	}
	for _, id := range ids {
		if !answered[string(id)] {
			t.Errorf("call %s not answered", id)
		}
	}
}
