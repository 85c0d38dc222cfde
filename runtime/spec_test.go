package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpgen/mcpgen/internal/specschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Revisions whose schemas validate what the server writes.
const (
	revLegacy = "2025-11-25"
	revModern = "2026-07-28"
)

// olderRevs are the handshake revisions before 2025-11-25 the server also serves.
var olderRevs = []string{"2024-11-05", "2025-03-26", "2025-06-18"}

// allRevs is every revision served, oldest first.
var allRevs = append(append([]string(nil), olderRevs...), revLegacy, revModern)

// specSchemas validates messages against ../shared/spec/<rev>/schema/schema.json.
type specSchemas struct {
	dir string // .../shared/spec

	// mu guards compilers and compiled.
	mu        sync.Mutex
	compilers map[string]*jsonschema.Compiler
	compiled  map[string]*jsonschema.Schema
}

// loadSpecSchemas finds the spec in ../shared/spec beside the repository root (the
// directory holding go.mod, walking up from the working directory), or in
// $MCPGEN_SPEC_DIR when set (e.g. for a git worktree elsewhere). A missing spec is an
// error, never a skip. Every test validating against the spec uses the one instance
// TestMain loads (testSpec).
func loadSpecSchemas() (*specSchemas, error) {
	dir := os.Getenv("MCPGEN_SPEC_DIR")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return nil, err
		}
		dir = filepath.Join(root, "..", "shared", "spec")
	}
	for _, rev := range allRevs {
		if _, err := os.Stat(schemaPath(dir, rev)); err != nil {
			return nil, fmt.Errorf("spec schema for %s: %w", rev, err)
		}
	}
	return &specSchemas{dir: dir, compilers: map[string]*jsonschema.Compiler{}, compiled: map[string]*jsonschema.Schema{}}, nil
}

// repoRoot walks up from the working directory to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// schemaPath is the schema.json of a revision.
func schemaPath(dir, rev string) string {
	return filepath.Join(dir, rev, "schema", "schema.json")
}

// schema returns the compiled #/$defs/<def> of a revision.
func (s *specSchemas) schema(rev, def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := rev + "#" + def
	if sch, ok := s.compiled[key]; ok {
		return sch, nil
	}
	c, err := s.compiler(rev)
	if err != nil {
		return nil, err
	}
	sch, err := c.Compile(specURL(rev) + "#/" + defsKey(rev) + "/" + def)
	if err != nil {
		return nil, fmt.Errorf("compile %s %s: %w", rev, def, err)
	}
	s.compiled[key] = sch
	return sch, nil
}

// compiler returns the compiler holding a revision's schema.json (s.mu held).
func (s *specSchemas) compiler(rev string) (*jsonschema.Compiler, error) {
	if c, ok := s.compilers[rev]; ok {
		return c, nil
	}
	f, err := os.Open(schemaPath(s.dir, rev))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s schema: %w", rev, err)
	}
	if olderRev(rev) {
		strictify(doc)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(specURL(rev), doc); err != nil {
		return nil, err
	}
	s.compilers[rev] = c
	return c, nil
}

// olderRev, defsKey and strictify: internal/specschema.
func olderRev(rev string) bool  { return specschema.Older(rev) }
func defsKey(rev string) string { return specschema.DefsKey(rev) }
func strictify(doc any)         { specschema.Strictify(doc) }

// specURL names a revision's schema.json inside the compiler.
func specURL(rev string) string { return "https://spec.test/" + rev + "/schema.json" }

// validate checks raw JSON against #/$defs/<def> of a revision.
func (s *specSchemas) validate(rev, def string, raw []byte) error {
	sch, err := s.schema(rev, def)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s %s: %w", rev, def, err)
	}
	return nil
}

// resultDef names the result definition of a method in a revision ("" if the method
// does not exist there).
func resultDef(rev, method string) string {
	defs := map[string]string{
		"tools/list":               "ListToolsResult",
		"tools/call":               "CallToolResult",
		"resources/list":           "ListResourcesResult",
		"resources/templates/list": "ListResourceTemplatesResult",
		"resources/read":           "ReadResourceResult",
		"prompts/list":             "ListPromptsResult",
		"prompts/get":              "GetPromptResult",
		"completion/complete":      "CompleteResult",
	}
	if rev != revModern {
		defs["initialize"] = "InitializeResult"
		defs["ping"] = "EmptyResult"
		defs["logging/setLevel"] = "EmptyResult"
		defs["resources/subscribe"] = "EmptyResult"
		defs["resources/unsubscribe"] = "EmptyResult"
	} else {
		defs["server/discover"] = "DiscoverResult"
		defs["subscriptions/listen"] = "SubscriptionsListenResult"
	}
	return defs[method]
}

// notificationDef names the definition of a server notification.
func notificationDef(method string) string {
	switch method {
	case "notifications/progress":
		return "ProgressNotification"
	case "notifications/message":
		return "LoggingMessageNotification"
	case "notifications/cancelled":
		return "CancelledNotification"
	case "notifications/resources/updated":
		return "ResourceUpdatedNotification"
	case "notifications/tools/list_changed":
		return "ToolListChangedNotification"
	case "notifications/prompts/list_changed":
		return "PromptListChangedNotification"
	case "notifications/resources/list_changed":
		return "ResourceListChangedNotification"
	}
	return "JSONRPCNotification"
}

// rawMember returns a member of a JSON object, or nil.
func rawMember(raw []byte, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj[key]
}

// serverRequestDef names the definition of a server-to-client request.
func serverRequestDef(method string) string {
	switch method {
	case "sampling/createMessage":
		return "CreateMessageRequest"
	case "elicitation/create":
		return "ElicitRequest"
	case "roots/list":
		return "ListRootsRequest"
	case "ping":
		return "PingRequest"
	}
	return ""
}

// envelopeDef names a response envelope in rev: the revisions before 2025-11-25
// call them JSONRPCError and JSONRPCResponse.
func envelopeDef(rev, def string) string {
	if !olderRev(rev) {
		return def
	}
	switch def {
	case "JSONRPCErrorResponse":
		return "JSONRPCError"
	case "JSONRPCResultResponse":
		return "JSONRPCResponse"
	}
	return def
}
