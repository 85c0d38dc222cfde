package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// testNotes is a corpus independent of the embedded one.
var testNotes = fstest.MapFS{
	"n/a.md": {Data: []byte("Alpha MCP\nbeta\nmcp again\n")},
	"n/b.md": {Data: []byte("no match\nLast Mcp line\n")},
}

func TestSearchIgnoresCase(t *testing.T) {
	got, err := search(context.Background(), testNotes, "n", SearchInput{Keyword: "mCp", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := SearchResult{Matches: []Match{
		{File: "a.md", Line: 1, Text: "Alpha MCP"},
		{File: "a.md", Line: 3, Text: "mcp again"},
		{File: "b.md", Line: 2, Text: "Last Mcp line"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("search mismatch (-want +got):\n%s", diff)
	}
}

func TestSearchLimit(t *testing.T) {
	got, err := search(context.Background(), testNotes, "n", SearchInput{Keyword: "mcp", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Matches) != 2 || !got.Truncated {
		t.Errorf("got %d matches, truncated %v; want 2, true", len(got.Matches), got.Truncated)
	}
}

func TestSearchNoMatchIsEmptyNotNull(t *testing.T) {
	got, err := SearchNotes(context.Background(), SearchInput{Keyword: "zzz-nothing", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(got)
	if want := `{"matches":[],"truncated":false}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
}

func TestSearchSeedLine(t *testing.T) {
	got, err := SearchNotes(context.Background(), SearchInput{Keyword: "MCP", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got.Matches {
		lines = append(lines, m.String())
	}
	if want := "meeting.md:2: 2026-09-01 讨论了 MCP 选题。"; !strings.Contains(strings.Join(lines, "\n"), want) {
		t.Errorf("matches %q lack %q", lines, want)
	}
}

// meta is the per-request _meta of 2026-07-28.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"},` +
	`"io.modelcontextprotocol/clientCapabilities":{}}`

// serve sends request lines to a server with the generated registration and
// returns the responses by id.
func serve(t *testing.T, requests ...string) map[string]json.RawMessage {
	t.Helper()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "test"}, nil)
	RegisterMCP(s)
	var out bytes.Buffer
	in := strings.NewReader(strings.Join(requests, "\n") + "\n")
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	byID := map[string]json.RawMessage{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("response %s: %v", line, err)
		}
		byID[string(msg.ID)] = msg.Result
	}
	return byID
}

func TestGeneratedServer(t *testing.T) {
	res := serve(t,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{"keyword":"mcp","limit":1},`+meta+`}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_notes","arguments":{"keyword":42},`+meta+`}}`,
	)
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Annotations map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res["1"], &list); err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "search_notes" {
		t.Fatalf("tools/list: got %s (%v), want one tool search_notes", res["1"], err)
	}
	if list.Tools[0].Annotations["readOnlyHint"] != true || list.Tools[0].Annotations["idempotentHint"] != true {
		t.Errorf("annotations: got %v, want readOnlyHint and idempotentHint", list.Tools[0].Annotations)
	}
	var call struct {
		StructuredContent SearchResult `json:"structuredContent"`
		IsError           bool         `json:"isError"`
	}
	if err := json.Unmarshal(res["2"], &call); err != nil {
		t.Fatal(err)
	}
	if call.IsError || len(call.StructuredContent.Matches) != 1 || !call.StructuredContent.Truncated {
		t.Errorf("tools/call limit=1: got %s, want one match and truncated", res["2"])
	}
	if err := json.Unmarshal(res["3"], &call); err != nil || !call.IsError {
		t.Errorf("tools/call with a number keyword: got %s, want isError", res["3"])
	}
}

func TestDefaultLimitApplied(t *testing.T) {
	res := serve(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_notes","arguments":{"keyword":" "},`+meta+`}}`)
	var call struct {
		StructuredContent SearchResult `json:"structuredContent"`
	}
	if err := json.Unmarshal(res["1"], &call); err != nil {
		t.Fatal(err)
	}
	want, err := SearchNotes(context.Background(), SearchInput{Keyword: " ", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !want.Truncated {
		t.Fatal("the corpus needs more than 10 lines with a space for this test")
	}
	if diff := cmp.Diff(want, call.StructuredContent); diff != "" {
		t.Errorf("without limit (-want limit=10 +got):\n%s", diff)
	}
}
