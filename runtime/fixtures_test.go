package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Schemas of the in-process test tools, indented as generated code writes them.
const (
	echoInput = `{
  "type": "object",
  "properties": {
    "text": {"type": "string", "minLength": 1},
    "repeat": {"type": "integer", "minimum": 1, "maximum": 5}
  },
  "required": ["text"],
  "additionalProperties": false
}`
	echoOutput = `{
  "type": "object",
  "properties": {"text": {"type": "string", "minLength": 1}},
  "required": ["text"],
  "additionalProperties": false
}`
	addInput = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`
	noInput  = `{"type":"object","additionalProperties":false}`
	intOut   = `{"type":"integer"}`
	wrapOut  = `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"additionalProperties":false}`
)

// echoIn and echoOut are the echo tool's input and output.
type echoIn struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat"`
}

type echoOut struct {
	Text string `json:"text"`
}

// echoTool echoes its text; output is an object.
func echoTool() *Tool {
	return &Tool{
		Name: "echo", Title: "Echo", Description: "Echo returns the text.",
		Annotations: &ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(echoInput), OutputSchema: json.RawMessage(echoOutput),
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			in := echoIn{Repeat: 1}
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			out := ""
			for range in.Repeat {
				out += in.Text
			}
			return Structured(echoOut{Text: out})
		},
	}
}

// addTool adds two integers; its output is not an object, so legacy clients get it
// wrapped.
func addTool() *Tool {
	return &Tool{
		Name: "add", Description: "Add adds.",
		InputSchema: json.RawMessage(addInput), OutputSchema: json.RawMessage(intOut),
		LegacyOutputSchema: json.RawMessage(wrapOut), LegacyWrap: "result",
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			var in struct{ A, B int }
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			return Structured(in.A + in.B)
		},
	}
}

// simpleTool is a tool without arguments or output schema running fn.
func simpleTool(name string, fn func(ctx context.Context) (*ToolResult, error)) *Tool {
	return &Tool{
		Name: name, Description: "Tool " + name + ".", InputSchema: json.RawMessage(noInput),
		Handler: func(ctx context.Context, _ *ToolRequest) (*ToolResult, error) { return fn(ctx) },
	}
}

// errBoom is the error of the fail tool.
var errBoom = errors.New("boom: the tool failed")

// failTool returns errBoom.
func failTool() *Tool {
	return simpleTool("fail", func(context.Context) (*ToolResult, error) { return nil, errBoom })
}

// panicTool panics with a secret.
func panicTool() *Tool {
	return simpleTool("crash", func(context.Context) (*ToolResult, error) { panic("secret-detail-42") })
}

// progressTool sends n progress steps and log messages at each level given.
func progressTool(n int) *Tool {
	return simpleTool("steps", func(ctx context.Context) (*ToolResult, error) {
		for i := 1; i <= n; i++ {
			if err := Progress(ctx, float64(i), float64(n), fmt.Sprintf("step %d", i)); err != nil {
				return nil, err
			}
			for _, level := range []string{"debug", "info", "error"} {
				if err := Log(ctx, level, "steps", map[string]any{"step": i, "level": level}); err != nil {
					return nil, err
				}
			}
		}
		return &ToolResult{Content: []Content{Text("done")}}, nil
	})
}

// blockTool reports progress once, signals started, and waits for cancellation; it
// records the cancellation cause on cancelled.
func blockTool(started chan<- struct{}, cancelled chan<- error) *Tool {
	return simpleTool("block", func(ctx context.Context) (*ToolResult, error) {
		if err := Progress(ctx, 1, 0, "blocked"); err != nil {
			return nil, err
		}
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- ctx.Err()
		_ = Progress(ctx, 2, 0, "after cancel") // must not reach the client
		return &ToolResult{Content: []Content{Text("cancelled")}}, nil
	})
}
