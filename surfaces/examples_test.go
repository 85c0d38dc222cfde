package surfaces_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/bench"
	"github.com/mcpgen/mcpgen/examples/everything"
	"github.com/mcpgen/mcpgen/examples/files"
	"github.com/mcpgen/mcpgen/examples/goplsport"
	"github.com/mcpgen/mcpgen/examples/incidents"
	"github.com/mcpgen/mcpgen/examples/notes"
	"github.com/mcpgen/mcpgen/examples/policy"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/modelcall"
)

// leftOut are the example tools a provider rejects: the conformance suite's
// JSON Schema 2020-12 tool, whose schema is exotic on purpose.
var leftOut = map[string]bool{
	`everything: tool json_schema_2020_12_tool: anthropic: "allOf" at the top level of an input schema is rejected by Anthropic (at #)`:                                                                           true,
	`everything: tool json_schema_2020_12_tool: gemini: keyword "$ref" is not supported by Gemini (recursive Go types need $ref: break the recursion, or give the type a //mcp:schema) (at #/properties/address)`: true,
}

// TestExampleDefinitions derives the three providers' definitions of every
// example tool: none is left out (names and the anthropic and gemini
// profiles) but the leftOut ones, and the OpenAI ones are strict exactly
// where the schema passes the openai profile (incidents: all of them).
func TestExampleDefinitions(t *testing.T) {
	for name, register := range map[string]func(*mcpruntime.Server){
		"bench":      bench.RegisterMCP,
		"everything": everything.RegisterMCP,
		"files":      files.RegisterMCP,
		"goplsport":  func(s *mcpruntime.Server) { goplsport.RegisterMCP(s, &goplsport.Workspace{}) },
		"incidents":  func(s *mcpruntime.Server) { incidents.RegisterMCP(s, mustDesk()) },
		"notes":      notes.RegisterMCP,
		"policy":     policy.RegisterMCP,
	} {
		s := mcpruntime.NewServer(mcpruntime.Implementation{Name: name, Version: "test"}, &mcpruntime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		register(s)
		openai, f1 := modelcall.OpenAITools(s)
		anth, f2 := modelcall.AnthropicTools(s)
		gem, f3 := modelcall.GeminiTools(s)
		out := 0
		for _, f := range append(append(f1, f2...), f3...) {
			if !leftOut[name+": "+f.String()] {
				t.Errorf("%s: %s", name, f)
			}
			out++
		}
		if len(anth)+len(gem)+out != 2*len(openai) {
			t.Errorf("%s: %d openai, %d anthropic, %d gemini tools", name, len(openai), len(anth), len(gem))
		}
		var strict, loose []string
		for _, tool := range openai {
			if tool.Strict {
				strict = append(strict, tool.Name)
			} else {
				loose = append(loose, tool.Name)
			}
		}
		var dropped []string
		for _, tool := range gem {
			for _, d := range tool.Dropped {
				if !strings.HasSuffix(d, ": additionalProperties") {
					dropped = append(dropped, tool.Name+" "+d)
				}
			}
		}
		t.Logf("%s: strict %v; not strict %v; gemini also drops %v", name, strict, loose, dropped)
		if name == "incidents" && len(loose) != 0 {
			t.Errorf("incidents: tools not strict: %v", loose)
		}
	}
}

// mustDesk returns a new incidents desk (in memory: it cannot fail).
func mustDesk() *incidents.Desk {
	d, err := incidents.NewDesk()
	if err != nil {
		panic(err)
	}
	return d
}
