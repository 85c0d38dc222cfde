package goplsport

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// meta is the per-request _meta of 2026-07-28.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{}}`

// A result is a tools/call result.
type result struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// call sends one tools/call to a server registering the generated code
// over the workspace in testdata/ws, and returns its result.
func call(t *testing.T, tool string, args any) result {
	t.Helper()
	root, err := filepath.Abs("testdata/ws")
	if err != nil {
		t.Fatal(err)
	}
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "gopls", Version: "test"}, nil)
	RegisterMCP(s, &Workspace{Root: root})
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + string(a) + `,` + meta + `}}` + "\n"
	var out bytes.Buffer
	if err := s.ServeStdio(context.Background(), strings.NewReader(req), &out); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Result result `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &msg); err != nil {
		t.Fatalf("%s: response %s: %v", tool, out.Bytes(), err)
	}
	return msg.Result
}

// text is the text of a result that must not be an error.
func (r result) text(t *testing.T) string {
	t.Helper()
	if r.IsError || len(r.Content) == 0 {
		t.Fatalf("got %+v, want a text result", r)
	}
	return r.Content[0].Text
}

func abs(t *testing.T, rel string) string {
	p, err := filepath.Abs(filepath.Join("testdata/ws", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTools calls every tool as a client would, with the arguments gopls's
// own tools take, and checks what each finds in testdata/ws.
func TestTools(t *testing.T) {
	shapes := abs(t, "shapes/shapes.go")
	tests := []struct {
		tool string
		args any
		want []string // substrings of the text
	}{
		{"go_workspace", map[string]any{}, []string{"module example.com/ws", "- example.com/ws/shapes"}},
		{"go_package_api", map[string]any{"packagePaths": []string{"example.com/ws/shapes"}},
			[]string{"type Circle struct", "func (c Circle) Area() float64", "var Unit = Circle{R: 1}"}},
		{"go_diagnostics", map[string]any{"files": []string{shapes}}, []string{"No diagnostics."}},
		{"go_rename_symbol", map[string]any{"file": shapes, "symbol": "shapes.Unit", "new_name": "One"},
			[]string{"main.go:9:34: replace Unit with One", "shapes/shapes.go:13:5: replace Unit with One"}},
		{"go_symbol_references", map[string]any{"file": shapes, "symbol": "Circle.Area"},
			[]string{"shapes/shapes.go:10:17", "main.go:9:39"}},
		{"go_search", map[string]any{"query": "circ"}, []string{"example.com/ws/shapes.Circle"}},
		{"go_file_context", map[string]any{"file": abs(t, "main.go")},
			[]string{`- "example.com/ws/shapes": uses Unit`, `- "fmt": uses Println`}},
	}
	for _, tc := range tests {
		got := call(t, tc.tool, tc.args).text(t)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: got %q, want it to contain %q", tc.tool, got, w)
			}
		}
	}
	if got := call(t, "go_search", map[string]any{"query": "helpr"}).text(t); !strings.Contains(got, "shapes.helper") || strings.Contains(got, "Circle") {
		t.Errorf("go_search helpr: got %q, want only shapes.helper", got)
	}
}

// TestVulncheckStructured checks go_vulncheck's structured result, and its
// optional arguments.
func TestVulncheckStructured(t *testing.T) {
	r := call(t, "go_vulncheck", map[string]any{})
	var out VulncheckResult
	if err := json.Unmarshal(r.StructuredContent, &out); err != nil || r.IsError {
		t.Fatalf("got %+v (%v), want a structured result", r, err)
	}
	if !strings.Contains(out.Logs, "checked ./... in ") || len(out.Findings) != 0 {
		t.Errorf("got %+v, want the default pattern and no findings", out)
	}
	if r := call(t, "go_vulncheck", map[string]any{"dir": abs(t, "nowhere")}); !r.IsError {
		t.Errorf("a missing directory: got %+v, want isError", r)
	}
}

// TestArgumentsChecked shows what mcpgen's schemas refuse before a handler
// runs: gopls's SDK schemas refuse these too (a missing required argument,
// a wrong type), except the unknown argument, which the SDK's schemas allow.
func TestArgumentsChecked(t *testing.T) {
	for _, args := range []any{
		map[string]any{},                                        // query is required
		map[string]any{"query": 3},                              // not a string
		map[string]any{"query": "circ", "limit": 10},            // no such argument
		map[string]any{"file": abs(t, "main.go"), "symbol": ""}, // another tool's arguments
	} {
		if r := call(t, "go_search", args); !r.IsError {
			t.Errorf("go_search %v: got %+v, want isError", args, r)
		}
	}
}
