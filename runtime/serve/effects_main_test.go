package serve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestMainEffectFlags: -store with an unlinked scheme fails before serving and
// names the package to link; -audit turns the audit trail on.
func TestMainEffectFlags(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "fx", Version: "1"}, &mcpruntime.Options{Logger: discardLogger()})
	var stderr bytes.Buffer
	if code := run(context.Background(), s, []string{"-store", "nosuch://x"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "runtime/store/redisstore") {
		t.Errorf("-store nosuch://: exit %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	if code := run(context.Background(), s, []string{"-audit", "-store", "memory"}, strings.NewReader(in), &bytes.Buffer{}, &stderr); code != 0 ||
		!strings.Contains(stderr.String(), `"msg":"audit"`) || !strings.Contains(stderr.String(), `"method":"tools/list"`) {
		t.Errorf("-audit: exit %d, stderr %q", code, stderr.String())
	}
}
