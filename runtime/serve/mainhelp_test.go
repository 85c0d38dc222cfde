package serve

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// helpServer serves a tool, a scoped tool, a resource, a template and a prompt.
func helpServer(logs *bytes.Buffer) *mcpruntime.Server {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "demo", Version: "1"}, &mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	noop := func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
		return &mcpruntime.ToolResult{}, nil
	}
	s.AddTool(&mcpruntime.Tool{Name: "read_it", Description: "r", InputSchema: []byte(`{"type":"object"}`), Handler: noop})
	s.AddTool(&mcpruntime.Tool{Name: "write_it", Description: "w", InputSchema: []byte(`{"type":"object"}`), Scopes: []string{"things:write"}, Handler: noop})
	s.AddResource(&mcpruntime.Resource{URI: "demo://readme", Name: "readme", Handler: func(context.Context, *mcpruntime.ResourceRequest) (*mcpruntime.ResourceResult, error) {
		return mcpruntime.TextResource("x"), nil
	}})
	s.AddResourceTemplate(&mcpruntime.ResourceTemplate{URITemplate: "demo://items/{id}", Name: "item", Handler: func(context.Context, *mcpruntime.ResourceRequest) (*mcpruntime.ResourceResult, error) {
		return mcpruntime.TextResource("x"), nil
	}})
	s.AddPrompt(&mcpruntime.Prompt{Name: "summarize", Handler: func(context.Context, *mcpruntime.PromptRequest) (*mcpruntime.PromptResult, error) {
		return mcpruntime.Messages(), nil
	}})
	return s
}

// TestMainHelpListsEverything: -h names the tools, resources, templates and
// prompts.
func TestMainHelpListsEverything(t *testing.T) {
	var stdout, stderr, logs bytes.Buffer
	if code := run(context.Background(), helpServer(&logs), []string{"-h"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, want := range []string{"tools: read_it, write_it\n", "resources: demo://readme\n", "resource templates: demo://items/{id}\n", "prompts: summarize\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h: %q lacks %q", stderr.String(), want)
		}
	}
}

// TestHTTPWithoutAuthWarns: -http without authentication warns at start,
// naming the scoped tool; with anonymous scopes, or nothing scoped, it does not.
func TestHTTPWithoutAuthWarns(t *testing.T) {
	var logs bytes.Buffer
	s := helpServer(&logs)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	run(ctx, s, []string{"-http", "127.0.0.1:0"}, strings.NewReader(""), &stdout, &stderr)
	if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "tool write_it (things:write)") || strings.Contains(got, "read_it") {
		t.Errorf("start-up log %q: want a warning naming write_it only", got)
	}
	if w := unauthenticatedWarning(s, &mcpruntime.HTTPOptions{AnonymousPrincipal: &mcpruntime.Principal{Subject: "a", Scopes: []string{"things:write"}}}); w != "" {
		t.Errorf("with anonymous scopes: warning %q", w)
	}
	plain := mcpruntime.NewServer(mcpruntime.Implementation{Name: "p", Version: "1"}, nil)
	plain.AddTool(&mcpruntime.Tool{Name: "t", Description: "t", InputSchema: []byte(`{"type":"object"}`),
		Handler: func(context.Context, *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			return &mcpruntime.ToolResult{}, nil
		}})
	if w := unauthenticatedWarning(plain, nil); w != "" {
		t.Errorf("nothing scoped: warning %q", w)
	}
}
