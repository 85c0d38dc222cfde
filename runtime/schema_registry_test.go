package runtime

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/fullhook"
)

// withFullHook runs f with the full validator hook set to compile (nil: none).
func withFullHook(compile func([]byte) (fullhook.Validator, error), f func()) {
	saved := fullhook.Compile
	fullhook.Compile = compile
	defer func() { fullhook.Compile = saved }()
	f()
}

// fakeFullValidator stands for runtime/fullschema: it records every instance
// it validates in *seen and rejects {"a":1} at /a.
func fakeFullValidator(seen *[]string) func([]byte) (fullhook.Validator, error) {
	return func([]byte) (fullhook.Validator, error) {
		return func(inst []byte) ([]fullhook.Failure, error) {
			*seen = append(*seen, string(inst))
			if string(inst) == `{"a":1}` {
				return []fullhook.Failure{{Pointer: "/a", Keyword: "type", Message: "got 1"}}, nil
			}
			return nil, nil
		}, nil
	}
}

func TestAddToolBeyondBuiltin(t *testing.T) {
	tool := &Tool{Name: "t", Handler: echoTool().Handler,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}}}`)}
	withFullHook(nil, func() {
		defer func() {
			msg := fmt.Sprint(recover())
			for _, want := range []string{`tool "t"`, `"allOf"`, "/properties/a/allOf", `import _ "github.com/mcpgen/mcpgen/runtime/fullschema"`} {
				if !strings.Contains(msg, want) {
					t.Errorf("panic %q lacks %q", msg, want)
				}
			}
		}()
		NewServer(Implementation{Name: "s", Version: "1"}, nil).AddTool(tool)
	})
	var validated []string
	fake := fakeFullValidator(&validated)
	withFullHook(fake, func() {
		s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
		s.AddTool(tool)
		e := s.tools.Load().Get("t")
		for inst, want := range map[string]string{
			`{"a":"x"}`:       "",
			`{"a":1}`:         "- /a: type: got 1",
			`{"a":1,"a":"x"}`: "- /a: the member name 'a' is repeated",
			`{"b":[1e999]}`:   "- /b/0: got a number: a number is out of range",
		} {
			msg, err := e.checkArgs(json.RawMessage(inst))
			if err != nil || want == "" && msg != "" || !strings.Contains(msg, want) {
				t.Errorf("%s: %q, %v; want %q", inst, msg, err, want)
			}
		}
		slices.Sort(validated) // the cases run in map order
		if strings.Join(validated, " ") != `{"a":"x"} {"a":1}` {
			t.Errorf("the full validator saw %q, want only the values without repeated names or huge numbers", validated)
		}
	})
}

func TestAddToolInvalidSchema(t *testing.T) {
	defer func() {
		if msg := fmt.Sprint(recover()); !strings.Contains(msg, "invalid JSON Schema") || !strings.Contains(msg, "minLength") {
			t.Errorf("panic %q, want an invalid schema naming minLength", msg)
		}
	}()
	NewServer(Implementation{Name: "s", Version: "1"}, nil).AddTool(&Tool{Name: "t", Handler: echoTool().Handler,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"minLength":"2"}}}`)})
}

func TestDecodeClosedFastPath(t *testing.T) {
	var in echoIn
	req := &ToolRequest{Name: "echo", Arguments: json.RawMessage(`{"text":"a","repeat":2}`), closed: true}
	if err := req.Decode(&in); err != nil || in.Text != "a" || in.Repeat != 2 {
		t.Errorf("Decode = %+v, %v", in, err)
	}
	strict := &ToolRequest{Name: "echo", Arguments: req.Arguments}
	fast := testing.AllocsPerRun(50, func() { _ = req.Decode(&in) })
	slow := testing.AllocsPerRun(50, func() { _ = strict.Decode(&in) })
	if fast >= slow {
		t.Errorf("closed Decode allocates %v times, strict %v: want fewer", fast, slow)
	}
	if err := (&ToolRequest{Name: "echo", Arguments: json.RawMessage(`{"text":5}`), closed: true}).Decode(&in); err == nil {
		t.Errorf("closed Decode accepted a number for a string")
	}
}

// TestSchemasChecked: a tool the generator checked (SchemasChecked) is
// registered without AddTool's checks: its schemas are compiled, and it is
// serialised, on first use. A schema beyond the built-in validator goes to
// runtime/fullschema then, or fails the call with a clear internal error
// without it; an invalid schema fails its calls and tools/list with an
// internal error, and the server keeps serving its other tools.
func TestSchemasChecked(t *testing.T) {
	beyond := json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}}}`)
	checked := func(name string, schema json.RawMessage) *Tool {
		return &Tool{Name: name, Handler: echoTool().Handler, InputSchema: schema, SchemasChecked: true}
	}
	call := func(s *Server, name, args string) string {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		return string(s.HandleRaw(t.Context(), []byte(line), nil, nil).Body)
	}
	withFullHook(nil, func() {
		s := NewServer(Implementation{Name: "s", Version: "1"}, &Options{Logger: discardLogger()})
		s.AddTool(checked("beyond", beyond)) // no panic: the generator would have linked fullschema
		s.AddTool(echoTool())
		got := call(s, "beyond", `{"a":"x"}`)
		if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "unusable input schema") {
			t.Errorf("call of a checked tool beyond the built-in validator without fullschema: %s", got)
		}
		if got := call(s, "echo", `{"text":"hi"}`); !strings.Contains(got, `"hi"`) {
			t.Errorf("the other tool after it: %s", got)
		}
	})
	var validated []string
	fake := fakeFullValidator(&validated)
	withFullHook(fake, func() {
		s := NewServer(Implementation{Name: "s", Version: "1"}, &Options{Logger: discardLogger()})
		s.AddTool(checked("beyond", beyond))
		e := s.tools.Load().Get("beyond")
		if e.desc.Wired() || e.argNames != nil {
			t.Error("AddTool serialised a checked tool")
		}
		if msg, err := e.checkArgs(json.RawMessage(`{"a":1}`)); err != nil || !strings.Contains(msg, "- /a: type: got 1") || !strings.Contains(msg, "valid arguments: a") {
			t.Errorf("checked tool beyond the built-in validator: %q, %v", msg, err)
		}
		if strings.Join(validated, " ") != `{"a":1}` {
			t.Errorf("the full validator saw %q", validated)
		}
	})
	s := NewServer(Implementation{Name: "s", Version: "1"}, &Options{Logger: discardLogger()})
	s.AddTool(checked("bad", json.RawMessage(`{"type":"object","properties":{"a":{"minLength":"2"}}}`)))
	if got := call(s, "bad", `{"a":"x"}`); !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "tool bad has an unusable input schema") {
		t.Errorf("call of a checked tool with an invalid schema: %s", got)
	}
	s.AddTool(checked("broken", json.RawMessage(`{"type":"object",`)))
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if got := string(s.HandleRaw(t.Context(), []byte(list), nil, nil).Body); !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "tool broken cannot be listed") {
		t.Errorf("tools/list with a checked tool whose schema is not JSON: %s", got)
	}
	if !s.RemoveTool("broken") {
		t.Fatal("RemoveTool")
	}
	if got := string(s.HandleRaw(t.Context(), []byte(list), nil, nil).Body); !strings.Contains(got, `"name":"bad"`) {
		t.Errorf("tools/list after removing the broken tool: %s", got)
	}
}
