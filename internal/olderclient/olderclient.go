// Package olderclient is what the interop cells of older Go MCP clients share:
// interop/older (the official Go SDK v1.1.0 and mcp-go v0.32.0) and
// interop/gosdk020 (the official Go SDK v0.2.0) each pin client releases in a
// module of their own, so they cannot share test files. They share this: the
// test server they drive (runtime/internal/testserver), the conversation
// every cell has with it (ping, every page of tools/list, four tool calls) and
// the checks on what the client saw.
package olderclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testproc"
)

// Main is a TestMain: it builds runtime/internal/testserver of the
// repository at root (with -race when race is set) into *bin, runs the tests
// and exits with their status.
func Main(m *testing.M, root string, race bool, bin *string) {
	code, err := run(m, root, race, bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

func run(m *testing.M, root string, race bool, bin *string) (int, error) {
	tmp, err := os.MkdirTemp("", "mcpgen-interop-testserver-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(tmp)
	*bin = filepath.Join(tmp, "testserver")
	args := []string{"build", "-o", *bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./runtime/internal/testserver")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("go build testserver: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// StartHTTP starts the test server bin on a free loopback port with the extra
// arguments and returns its base URL; it gets SIGTERM when the test ends and
// must exit 0.
func StartHTTP(t *testing.T, bin string, extra ...string) string {
	t.Helper()
	addr := testproc.FreeAddr(t)
	testproc.Serve(t, exec.Command(bin, append([]string{"-http", addr}, extra...)...), addr)
	return "http://" + addr
}

// A Session is one client's connection as Converse drives it: three calls of
// the client's own API. Converse reads their results through their JSON
// encoding: every client's result types marshal to the spec's shape, so one
// reading serves them all.
type Session struct {
	Ping func(context.Context) error
	// ListTools lists the page at cursor ("" for the first): a ListToolsResult.
	ListTools func(ctx context.Context, cursor string) (any, error)
	// CallTool calls a tool: a CallToolResult.
	CallTool func(ctx context.Context, name string, args map[string]any) (any, error)
}

// GoSDK is the Session of an official Go SDK client session of any release:
// their ClientSessions have these methods, with types of their own package.
// The params too are made through their JSON encoding.
func GoSDK[PP, LP, LR, CP, CR any](cs interface {
	Ping(context.Context, *PP) error
	ListTools(context.Context, *LP) (*LR, error)
	CallTool(context.Context, *CP) (*CR, error)
}) Session {
	return Session{
		Ping: func(ctx context.Context) error { return cs.Ping(ctx, nil) },
		ListTools: func(ctx context.Context, cursor string) (any, error) {
			var p LP
			if err := reencode(map[string]any{"cursor": cursor}, &p); err != nil {
				return nil, err
			}
			return cs.ListTools(ctx, &p)
		},
		CallTool: func(ctx context.Context, name string, args map[string]any) (any, error) {
			var p CP
			if err := reencode(map[string]any{"name": name, "arguments": args}, &p); err != nil {
				return nil, err
			}
			return cs.CallTool(ctx, &p)
		},
	}
}

// Outcome is what a client saw, client-neutral.
type Outcome struct {
	Negotiated string // the revision the session speaks
	Tools      int    // tools listed, over every page
	Calls      map[string]Call
}

// Call is what a client saw of one tools/call.
type Call struct {
	Types      []string // each content block's type
	Texts      []string // the text blocks' text
	Structured bool     // the result has structuredContent
	IsError    bool
}

// Calls are the tool calls of every cell.
var Calls = []struct {
	Name string
	Args map[string]any
}{
	{"whoami", nil},
	{"echo", map[string]any{"text": "hi"}},
	{"rich", nil},
	{"fail", nil},
}

// Converse pings, lists every page of tools and makes the Calls; the caller
// sets the outcome's Negotiated.
func Converse(ctx context.Context, s Session) (*Outcome, error) {
	out := &Outcome{Calls: map[string]Call{}}
	if err := s.Ping(ctx); err != nil {
		return nil, fmt.Errorf("ping: %w", err)
	}
	for cursor := ""; ; {
		var page struct { // a ListToolsResult
			Tools      []json.RawMessage
			NextCursor string
		}
		r, err := s.ListTools(ctx, cursor)
		if err == nil {
			err = reencode(r, &page)
		}
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out.Tools += len(page.Tools)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, call := range Calls {
		var res struct { // a CallToolResult (the fields match its members' names)
			Content           []struct{ Type, Text string }
			StructuredContent json.RawMessage
			IsError           bool
		}
		r, err := s.CallTool(ctx, call.Name, call.Args)
		if err == nil {
			err = reencode(r, &res)
		}
		if err != nil {
			return nil, fmt.Errorf("tools/call %s: %w", call.Name, err)
		}
		c := Call{Structured: res.StructuredContent != nil && string(res.StructuredContent) != "null", IsError: res.IsError}
		for _, b := range res.Content {
			c.Types = append(c.Types, b.Type)
			if b.Type == "text" {
				c.Texts = append(c.Texts, b.Text)
			}
		}
		out.Calls[call.Name] = c
	}
	return out, nil
}

// reencode decodes from into v (a client's result into ours, our params into
// a client's) through from's JSON encoding.
func reencode(from, v any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Check checks what a client saw on revision rev.
func Check(t *testing.T, rev string, out *Outcome) {
	t.Helper()
	if out.Negotiated != rev {
		t.Errorf("negotiated %q, want %q", out.Negotiated, rev)
	}
	if out.Tools < 5 {
		t.Errorf("listed %d tools", out.Tools)
	}
	if w := out.Calls["whoami"]; len(w.Texts) != 1 || !strings.Contains(w.Texts[0], "version="+rev) {
		t.Errorf("whoami: %q, want version=%s", w.Texts, rev)
	}
	e := out.Calls["echo"]
	if len(e.Texts) != 1 || e.Texts[0] != `{"text":"hi"}` || e.Structured != (rev >= "2025-06-18") {
		t.Errorf("echo: text %q, structured %v on %s", e.Texts, e.Structured, rev)
	}
	want := map[string]string{
		"2024-11-05": "text image text resource resource text",
		"2025-03-26": "text image audio resource resource text",
		"2025-06-18": "text image audio resource resource resource_link",
	}[rev]
	if got := strings.Join(out.Calls["rich"].Types, " "); got != want {
		t.Errorf("rich: %s, want %s", got, want)
	}
	if f := out.Calls["fail"]; !f.IsError {
		t.Errorf("fail: isError false")
	}
}
