package tasks

// harness_test.go: what the tests of the tasks extension share: a server
// with the extension and the test tools, messages as tests read them, and
// the spec's schemas (2025-11-25 and the extension's) to validate them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/specschema"
	"github.com/mcpgen/mcpgen/internal/testproc"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// revLegacy is the handshake revision with tasks.
const revLegacy = "2025-11-25"

// waitTimeout bounds every wait of a test.
const waitTimeout = 10 * time.Second

// specDir is ../shared/spec beside the repository root, or $MCPGEN_SPEC_DIR
// (a worktree elsewhere). A missing spec fails the test, never skips it.
func specDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("MCPGEN_SPEC_DIR"); dir != "" {
		return dir
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "spec")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// schemas compiles definitions of the 2025-11-25 schema and the extension's.
var schemas struct {
	mu sync.Mutex
	c  map[string]*jsonschema.Compiler // by file
}

// validateDef validates raw against #/$defs/<def> of the schema file (relative
// to the spec directory).
func validateDef(t *testing.T, file, def string, raw []byte) error {
	t.Helper()
	schemas.mu.Lock()
	c := schemas.c[file]
	if c == nil {
		f, err := os.Open(filepath.Join(specDir(t), file))
		if err != nil {
			schemas.mu.Unlock()
			t.Fatalf("spec schema: %v", err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			schemas.mu.Unlock()
			t.Fatal(err)
		}
		c = jsonschema.NewCompiler()
		if err := c.AddResource("https://spec.test/"+file, doc); err != nil {
			schemas.mu.Unlock()
			t.Fatal(err)
		}
		if schemas.c == nil {
			schemas.c = map[string]*jsonschema.Compiler{}
		}
		schemas.c[file] = c
	}
	sch, err := c.Compile("https://spec.test/" + file + "#/" + specschema.DefsKey(revLegacy) + "/" + def)
	schemas.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %s: %w", def, raw, err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s: %s: %w", def, raw, err)
	}
	return nil
}

// validateExt validates raw against a definition of the tasks extension.
func validateExt(t *testing.T, def string, raw []byte) {
	t.Helper()
	if err := validateDef(t, "ext-tasks/schema/schema.json", def, raw); err != nil {
		t.Error(err)
	}
}

// validateLegacy validates raw against a 2025-11-25 definition.
func validateLegacy(t *testing.T, def string, raw []byte) error {
	t.Helper()
	return validateDef(t, revLegacy+"/schema/schema.json", def, raw)
}

// A msg is one decoded server message.
type msg struct {
	raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// modernMeta is the _meta of a well-formed 2026-07-28 request.
func modernMeta() map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test-client", "version": "1.0.0"},
	}
}

// rawMember returns a member of a JSON object, or nil.
func rawMember(raw []byte, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj[key]
}

// waitFor receives from ch or fails the test after waitTimeout.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = testproc.Buffer

// newTestServer returns a server with the tasks extension (its state x) and
// tools; its log goes to the test's output when the test fails.
func newTestServer(t *testing.T, opts *runtime.Options, tools ...*runtime.Tool) (*runtime.Server, *ext) {
	t.Helper()
	if opts == nil {
		opts = &runtime.Options{}
	}
	if opts.Logger == nil {
		buf := &syncBuffer{}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("server log:\n%s", buf.String())
			}
		})
		opts.Logger = slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s := runtime.NewServer(runtime.Implementation{Name: "unit", Version: "0.1"}, opts)
	x := newExt(s)
	s.MustUse(x.extension())
	for _, tool := range tools {
		s.AddTool(tool)
	}
	return s, x
}

// An sseEvent is one server-sent event's data.
type sseEvent struct{ data string }

// readEvents calls f with each event of an SSE body until f returns true or
// the body ends.
func readEvents(body interface{ Read([]byte) (int, error) }, f func(sseEvent) bool) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && data != nil:
			if f(sseEvent{strings.Join(data, "\n")}) {
				return nil
			}
			data = nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("event stream ended")
}
