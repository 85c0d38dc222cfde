package serve

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

func TestMainFlags(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{[]string{"-version"}, 0, "unit 0.1\n", ""},
		{[]string{"-bogus"}, 2, "", "flag provided but not defined"},
		{[]string{"-log-level", "loud"}, 2, "", "-log-level"},
		{[]string{"-stdio", "-http", ":0"}, 2, "", "exclusive"},
		{[]string{"extra"}, 2, "", "unexpected argument"},
		{[]string{"-h"}, 0, "", "-http"},
		{[]string{"-h"}, 0, "", "-sse"},
		{[]string{"-sse"}, 2, "", "-sse needs -http"},
		{[]string{"-sse", "-http", "256.1.1.1:bad"}, 1, "", ""},
		{[]string{"-http", "256.1.1.1:bad"}, 1, "", ""},
	}
	for _, tt := range tests {
		s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "unit", Version: "0.1"}, nil)
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), s, tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderrIn) {
			t.Errorf("main(%q) = %d, stdout %q, stderr %q; want %d, %q, containing %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderrIn)
		}
	}
}

func TestMainStdioAndLogLevel(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "unit", Version: "0.1"}, nil)
	var stdout, stderr bytes.Buffer
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	if code := run(context.Background(), s, []string{"-log-level", "debug"}, in, &stdout, &stderr); code != 0 {
		t.Fatalf("main = %d, stderr %s", code, stderr.String())
	}
	if got := stdout.String(); got != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" {
		t.Errorf("stdout = %q", got)
	}
	if !s.Logger().Enabled(context.Background(), slog.LevelDebug) {
		t.Errorf("-log-level debug did not enable debug logs")
	}
}
