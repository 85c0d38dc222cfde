// Written by hand in the shape mcpgen generates (an older form of it: no
// SchemasChecked, so AddTool checks every schema at start), so the runtime's
// tests drive the server through the API generated code uses. It carries no
// "Code generated" header: mcpgen -check would report it obsolete, since
// handlers.go has no //mcp:tool directives.

package main

import (
	"context"
	"encoding/json"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Fails to compile when the runtime is older/newer than this generated code expects.
const _ = mcpruntime.SupportPackageIsVersion1

var (
	_ func(context.Context, EchoInput) (EchoOutput, error) = Echo
	_ func(context.Context, AddInput) (int, error)         = Add
	_ func(context.Context, SlowInput) (string, error)     = Slow
	_ func(context.Context) error                          = Block
	_ func(context.Context) error                          = Fail
	_ func(context.Context) error                          = Crash
	_ func(context.Context) (*EchoOutput, error)           = Nothing
	_ func(context.Context) (EchoOutput, error)            = BadOutput
	_ func(context.Context) ([]mcpruntime.Content, error)  = Rich
	_ func(context.Context) (string, error)                = WhoAmI
)

var mcpEchoInputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "text": {
      "type": "string",
      "minLength": 1,
      "description": "Text to echo."
    },
    "repeat": {
      "type": "integer",
      "minimum": 1,
      "maximum": 5,
      "default": 1
    }
  },
  "required": [
    "text"
  ],
  "additionalProperties": false
}`)

var mcpEchoOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "text": {
      "type": "string",
      "minLength": 1
    }
  },
  "required": [
    "text"
  ],
  "additionalProperties": false
}`)

var mcpAddInputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "a": {
      "type": "integer"
    },
    "b": {
      "type": "integer"
    }
  },
  "required": [
    "a",
    "b"
  ],
  "additionalProperties": false
}`)

var mcpAddOutputSchema = json.RawMessage(`{
  "type": "integer"
}`)

var mcpAddLegacyOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "result": {
      "type": "integer"
    }
  },
  "required": [
    "result"
  ],
  "additionalProperties": false
}`)

var mcpSlowInputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "steps": {
      "type": "integer",
      "minimum": 0
    },
    "delayMs": {
      "type": "integer",
      "minimum": 0
    }
  },
  "required": [
    "steps",
    "delayMs"
  ],
  "additionalProperties": false
}`)

var mcpSlowOutputSchema = json.RawMessage(`{
  "type": "string"
}`)

var mcpSlowLegacyOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "result": {
      "type": "string"
    }
  },
  "required": [
    "result"
  ],
  "additionalProperties": false
}`)

var mcpNoInputSchema = json.RawMessage(`{
  "type": "object",
  "additionalProperties": false
}`)

// RegisterMCP registers the tools of package main with s.
func RegisterMCP(s *mcpruntime.Server) {
	s.AddTool(&mcpruntime.Tool{
		Name:         "echo",
		Title:        "Echo",
		Description:  "Echo returns the text, repeated.",
		Annotations:  &mcpruntime.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		InputSchema:  mcpEchoInputSchema,
		OutputSchema: mcpEchoOutputSchema,
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			in := EchoInput{Repeat: 1}
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			out, err := Echo(ctx, in)
			if err != nil {
				return nil, err
			}
			return mcpruntime.Structured(out)
		},
	})
	s.AddTool(&mcpruntime.Tool{
		Name:               "add",
		Description:        "Add returns a+b: a non-object output, wrapped for 2025-11-25 clients.",
		InputSchema:        mcpAddInputSchema,
		OutputSchema:       mcpAddOutputSchema,
		LegacyOutputSchema: mcpAddLegacyOutputSchema,
		LegacyWrap:         "result",
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			var in AddInput
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			out, err := Add(ctx, in)
			if err != nil {
				return nil, err
			}
			return mcpruntime.Structured(out)
		},
	})
	s.AddTool(&mcpruntime.Tool{
		Name:               "slow",
		Description:        "Slow reports progress and log messages for each step, then returns.",
		InputSchema:        mcpSlowInputSchema,
		OutputSchema:       mcpSlowOutputSchema,
		LegacyOutputSchema: mcpSlowLegacyOutputSchema,
		LegacyWrap:         "result",
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			var in SlowInput
			if err := req.Decode(&in); err != nil {
				return nil, err
			}
			out, err := Slow(ctx, in)
			if err != nil {
				return nil, err
			}
			return mcpruntime.Structured(out)
		},
	})
	addNoOutput(s, "block", "Block reports one progress step and waits until it is cancelled.", Block)
	addNoOutput(s, "fail", "Fail always fails.", Fail)
	addNoOutput(s, "crash", "Crash panics.", Crash)
	s.AddTool(&mcpruntime.Tool{
		Name:         "nothing",
		Description:  "Nothing returns a nil pointer, which the adapter reports as ErrNilResult.",
		InputSchema:  mcpNoInputSchema,
		OutputSchema: mcpEchoOutputSchema,
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			out, err := Nothing(ctx)
			if err != nil {
				return nil, err
			}
			if out == nil {
				return nil, mcpruntime.ErrNilResult
			}
			return mcpruntime.Structured(out)
		},
	})
	s.AddTool(&mcpruntime.Tool{
		Name:         "bad_output",
		Description:  "BadOutput returns output that breaks its own output schema.",
		InputSchema:  mcpNoInputSchema,
		OutputSchema: mcpEchoOutputSchema,
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			out, err := BadOutput(ctx)
			if err != nil {
				return nil, err
			}
			return mcpruntime.Structured(out)
		},
	})
	s.AddTool(&mcpruntime.Tool{
		Name:        "rich",
		Description: "Rich returns every kind of content block.",
		InputSchema: mcpNoInputSchema,
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			out, err := Rich(ctx)
			if err != nil {
				return nil, err
			}
			return &mcpruntime.ToolResult{Content: out}, nil
		},
	})
	s.AddTool(&mcpruntime.Tool{
		Name:               "whoami",
		Description:        "WhoAmI reports what the runtime knows about the request.",
		InputSchema:        mcpNoInputSchema,
		OutputSchema:       mcpSlowOutputSchema,
		LegacyOutputSchema: mcpSlowLegacyOutputSchema,
		LegacyWrap:         "result",
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			out, err := WhoAmI(ctx)
			if err != nil {
				return nil, err
			}
			return mcpruntime.Structured(out)
		},
	})
}

// addNoOutput registers a tool of shape func(context.Context) error.
func addNoOutput(s *mcpruntime.Server, name, desc string, fn func(context.Context) error) {
	s.AddTool(&mcpruntime.Tool{
		Name:        name,
		Description: desc,
		InputSchema: mcpNoInputSchema,
		Handler: func(ctx context.Context, req *mcpruntime.ToolRequest) (*mcpruntime.ToolResult, error) {
			if err := fn(ctx); err != nil {
				return nil, err
			}
			return &mcpruntime.ToolResult{}, nil
		},
	})
}
