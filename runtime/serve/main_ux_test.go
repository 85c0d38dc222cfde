package serve

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// ttyReader is an empty stdin that says it is a character device.
type ttyReader struct{ io.Reader }

func (ttyReader) Stat() (os.FileInfo, error) { return ttyInfo{}, nil }

type ttyInfo struct{}

func (ttyInfo) Name() string       { return "tty" }
func (ttyInfo) Size() int64        { return 0 }
func (ttyInfo) Mode() fs.FileMode  { return fs.ModeDevice | fs.ModeCharDevice | 0o620 }
func (ttyInfo) ModTime() time.Time { return time.Time{} }
func (ttyInfo) IsDir() bool        { return false }
func (ttyInfo) Sys() any           { return nil }

// uxServer is a server with two tools, for Main's messages.
func uxServer() *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "demo", Version: "1.2.3"}, nil)
	for _, name := range []string{"alpha", "beta"} {
		s.AddTool(&mcpruntime.Tool{Name: name, Description: name, InputSchema: []byte(`{"type":"object"}`),
			Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
				return &mcpruntime.ToolResult{}, nil
			}})
	}
	return s
}

func TestMainHelpNamesTools(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), uxServer(), []string{"-h"}, strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"usage: demo", "tools: alpha, beta", "-http addr", "-log-level", "-version"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h: got %q, want it to contain %q", stderr.String(), want)
		}
	}
}

func TestMainVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), uxServer(), []string{"-version"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("-version: exit %d, want 0", code)
	}
	if got := stdout.String(); got != "demo 1.2.3\n" {
		t.Errorf("-version: got %q, want %q", got, "demo 1.2.3\n")
	}
}

func TestMainTerminalHint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		hint  bool
	}{
		{"terminal", ttyReader{strings.NewReader("")}, true},
		{"pipe", strings.NewReader(""), false},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), uxServer(), nil, tc.stdin, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d, want 0 (EOF ends the server)", tc.name, code)
		}
		got := strings.Contains(stderr.String(), "an MCP client should start this command")
		if got != tc.hint {
			t.Errorf("%s: hint printed %v, want %v; stderr %q", tc.name, got, tc.hint, stderr.String())
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: stdout %q, want nothing (stdout carries only JSON-RPC)", tc.name, stdout.String())
		}
	}
}
