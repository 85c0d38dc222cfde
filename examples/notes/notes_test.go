package notes

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgen/mcpgen/mcpgentest"
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

// newServer returns the notes server as the generated main builds it.
func newServer() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "notes", Version: "test"}, nil)
	RegisterMCP(s)
	return s
}

func TestGeneratedServer(t *testing.T) {
	s := newServer()
	for _, era := range []string{mcpgentest.Modern, mcpgentest.Legacy} {
		v := mcpgentest.Version(era)
		raw, rerr := mcpgentest.Call(t, s, "tools/list", nil, v)
		var list struct {
			Tools []struct {
				Name        string         `json:"name"`
				Annotations map[string]any `json:"annotations"`
			} `json:"tools"`
		}
		if rerr != nil || json.Unmarshal(raw, &list) != nil || len(list.Tools) != 1 || list.Tools[0].Name != "search_notes" {
			t.Fatalf("%s: tools/list: got %s (%v), want one tool search_notes", era, raw, rerr)
		}
		if list.Tools[0].Annotations["readOnlyHint"] != true || list.Tools[0].Annotations["idempotentHint"] != true {
			t.Errorf("%s: annotations: got %v, want readOnlyHint and idempotentHint", era, list.Tools[0].Annotations)
		}
		out, te := mcpgentest.CallTool[SearchResult](t, s, "search_notes", SearchInput{Keyword: "mcp", Limit: 1}, v)
		if te != nil || len(out.Matches) != 1 || !out.Truncated {
			t.Errorf("%s: tools/call limit=1: got %+v, %v; want one match and truncated", era, out, te)
		}
		_, te = mcpgentest.CallTool[SearchResult](t, s, "search_notes", map[string]any{"keyword": 42}, v)
		if te == nil || te.Code != mcpruntime.ErrCodeInvalidArguments {
			t.Errorf("%s: tools/call with a number keyword: got %v, want invalid_arguments", era, te)
		}
	}
}

func TestDefaultLimitApplied(t *testing.T) {
	got, te := mcpgentest.CallTool[SearchResult](t, newServer(), "search_notes", map[string]any{"keyword": " "})
	if te != nil {
		t.Fatal(te)
	}
	want, err := SearchNotes(context.Background(), SearchInput{Keyword: " ", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !want.Truncated {
		t.Fatal("the corpus needs more than 10 lines with a space for this test")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("without limit (-want limit=10 +got):\n%s", diff)
	}
}
