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
	fake := func(schema []byte) (fullhook.Validator, error) {
		return func(inst []byte) ([]fullhook.Failure, error) {
			validated = append(validated, string(inst))
			if string(inst) == `{"a":1}` {
				return []fullhook.Failure{{Pointer: "/a", Keyword: "type", Message: "got 1"}}, nil
			}
			return nil, nil
		}, nil
	}
	withFullHook(fake, func() {
		s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
		s.AddTool(tool)
		e := s.tools.Load().byName["t"]
		for inst, want := range map[string]string{
			`{"a":"x"}`:       "",
			`{"a":1}`:         "- /a: type: got 1",
			`{"a":1,"a":"x"}`: "- /a: the member name 'a' is repeated",
			`{"b":[1e999]}`:   "- /b/0: got 1e999: a number is out of range",
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
