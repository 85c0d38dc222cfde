// Package surfaces holds nothing but this comment: the module
// github.com/mcpgen/mcpgen/surfaces keeps the provider SDKs out of the
// runtime and out of generated code. Its packages turn provider SDK types into
// modelcall.Dispatcher calls and back:
//
//	openaisurface     github.com/openai/openai-go/v3 (Chat Completions and Responses)
//	anthropicsurface  github.com/anthropics/anthropic-sdk-go/v2 (Messages)
//
// The definitions come from modelcall.OpenAITools and AnthropicTools; see
// docs/surfaces.md.
package surfaces
