package runtime

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// httpSpec validates what the HTTP transport sends against
// ../shared/spec/<rev>/schema/schema.json (definitions under $defs).
type httpSpec struct {
	dir string // …/shared/spec

	// mu guards compilers and compiled.
	mu        sync.Mutex
	compilers map[string]*jsonschema.Compiler
	compiled  map[string]*jsonschema.Schema
}

// loadHTTPSpec finds ../shared/spec beside the repository root (the directory
// holding go.mod above the working directory). A missing spec is an error.
func loadHTTPSpec() (*httpSpec, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, fmt.Errorf("go.mod not found above the working directory")
		}
		dir = parent
	}
	spec := filepath.Join(dir, "..", "shared", "spec")
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		if _, err := os.Stat(filepath.Join(spec, rev, "schema", "schema.json")); err != nil {
			return nil, fmt.Errorf("spec schema for %s: %w", rev, err)
		}
	}
	return &httpSpec{dir: spec, compilers: map[string]*jsonschema.Compiler{}, compiled: map[string]*jsonschema.Schema{}}, nil
}

// schema returns the compiled #/$defs/<def> of rev.
func (s *httpSpec) schema(rev, def string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.compiled[rev+"#"+def]; ok {
		return sch, nil
	}
	c, ok := s.compilers[rev]
	url := "https://spec.test/" + rev + "/schema.json"
	if !ok {
		data, err := os.ReadFile(filepath.Join(s.dir, rev, "schema", "schema.json"))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decode %s schema: %w", rev, err)
		}
		c = jsonschema.NewCompiler()
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("add %s schema: %w", rev, err)
		}
		s.compilers[rev] = c
	}
	sch, err := c.Compile(url + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("compile %s %s: %w", rev, def, err)
	}
	s.compiled[rev+"#"+def] = sch
	return sch, nil
}

// validate checks raw against #/$defs/<def> of rev.
func (s *httpSpec) validate(rev, def string, raw []byte) error {
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

// httpResultDef names the result definition of method in rev, or "".
func httpResultDef(rev, method string) string {
	switch method {
	case "tools/list":
		return "ListToolsResult"
	case "tools/call":
		return "CallToolResult"
	case "initialize":
		return "InitializeResult"
	case "server/discover":
		return "DiscoverResult"
	case "resources/list":
		return "ListResourcesResult"
	case "resources/templates/list":
		return "ListResourceTemplatesResult"
	case "resources/read":
		return "ReadResourceResult"
	case "prompts/list":
		return "ListPromptsResult"
	case "prompts/get":
		return "GetPromptResult"
	case "completion/complete":
		return "CompleteResult"
	case "subscriptions/listen":
		if rev != "2025-11-25" {
			return "SubscriptionsListenResult"
		}
	case "ping", "logging/setLevel":
		if rev == "2025-11-25" {
			return "EmptyResult"
		}
	}
	return ""
}

// httpNotificationDef names the definition of a server notification.
func httpNotificationDef(method string) string {
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
	}
	return "JSONRPCNotification"
}
