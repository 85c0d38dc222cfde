package modelcall

// surfaces.go: the registered tools as model providers' function tools (OpenAI
// Chat Completions and Responses, Anthropic, Gemini). Descriptions and schemas
// are those tools/list advertises, adapted only where a provider requires it;
// the rules are those of internal/schemaprofile, which the generator's -lint
// uses too.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/mcpgen/mcpgen/internal/schemaprofile"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/apps"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// A FunctionTool is one registered tool as a provider's function tool.
type FunctionTool struct {
	// Name is the tool's name, as the model will call it.
	Name string
	// Description is the tool's description (empty when it has none).
	Description string
	// Parameters is the input schema as the provider gets it (compact JSON).
	Parameters json.RawMessage
	// Strict (OpenAI) is true when the schema passes the OpenAI strict-mode
	// profile as it is: the definition then asks for "strict": true.
	Strict bool
	// Dropped (Gemini) lists what was left out of the schema because the
	// provider's subset cannot say it, as "#pointer: keyword".
	// The runtime still validates the call against the full schema.
	Dropped []string
}

// A Finding is a tool that a provider would reject, left out of its
// definitions.
type Finding struct {
	Tool, Provider string
	Ptr, Msg       string
}

func (f Finding) String() string {
	return fmt.Sprintf("tool %s: %s: %s (at #%s)", f.Tool, f.Provider, f.Msg, f.Ptr)
}

// providerName is the function-name pattern OpenAI and Anthropic accept.
var providerName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// geminiName is the function-name pattern Gemini accepts.
var geminiName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`)

// OpenAITools returns the tools registered with s as OpenAI function tools, in
// registration order: the schemas unchanged, Strict when a schema passes the
// openai profile (generate with -strict=openai to make every schema pass). A
// tool whose name OpenAI rejects is left out and reported.
func OpenAITools(s *runtime.Server) ([]FunctionTool, []Finding) {
	openai, _ := schemaprofile.Lookup("openai")
	return functionTools(s, "openai", providerName, func(t *FunctionTool) []schemaprofile.Finding {
		fs, err := openai.Check(t.Parameters)
		t.Strict = err == nil && len(fs) == 0
		return nil
	})
}

// AnthropicTools returns the tools registered with s as Anthropic tools (name,
// description, input_schema), in registration order, schemas unchanged. A tool
// that fails the anthropic profile (an input schema whose root is not an
// object, or is a union) is left out and reported.
func AnthropicTools(s *runtime.Server) ([]FunctionTool, []Finding) {
	anthropic, _ := schemaprofile.Lookup("anthropic")
	return functionTools(s, "anthropic", providerName, func(t *FunctionTool) []schemaprofile.Finding {
		fs, err := anthropic.Check(t.Parameters)
		if err != nil {
			return []schemaprofile.Finding{{Msg: err.Error()}}
		}
		return fs
	})
}

// GeminiTools returns the tools registered with s as Gemini function declarations,
// in registration order. Their parameters are cut down to the Schema subset
// Gemini accepts (see docs/surfaces.md): what cannot be said there is dropped
// and listed in Dropped; the result must pass the gemini profile, else the tool
// is left out and the profile's findings are reported.
func GeminiTools(s *runtime.Server) ([]FunctionTool, []Finding) {
	gemini, _ := schemaprofile.Lookup("gemini")
	return functionTools(s, "gemini", geminiName, func(t *FunctionTool) []schemaprofile.Finding {
		params, dropped, err := geminiSchema(t.Parameters)
		if err != nil {
			return []schemaprofile.Finding{{Msg: err.Error()}}
		}
		t.Parameters, t.Dropped = params, dropped
		fs, err := gemini.Check(params)
		if err != nil {
			return []schemaprofile.Finding{{Msg: err.Error()}}
		}
		return fs
	})
}

// functionTools lists the tools for provider, adapting each with adapt; a
// tool with findings, or a name outside names, is left out.
func functionTools(s *runtime.Server, provider string, names *regexp.Regexp, adapt func(*FunctionTool) []schemaprofile.Finding) ([]FunctionTool, []Finding) {
	var out []FunctionTool
	var findings []Finding
	for _, tool := range s.Tools() {
		if !apps.ModelVisible(tool) { // an MCP Apps tool only views may call
			continue
		}
		t := FunctionTool{Name: tool.Name, Description: tool.Description, Parameters: compactSchema(tool.InputSchema)}
		if !names.MatchString(t.Name) {
			findings = append(findings, Finding{Tool: t.Name, Provider: provider, Msg: fmt.Sprintf("the name does not match %s", names)})
			continue
		}
		fs := adapt(&t)
		for _, f := range fs {
			findings = append(findings, Finding{Tool: t.Name, Provider: provider, Ptr: f.Ptr, Msg: f.Msg})
		}
		if len(fs) == 0 {
			out = append(out, t)
		}
	}
	return out, findings
}

// compactSchema returns the schema without insignificant space; a tool
// without one takes no arguments.
func compactSchema(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{"type":"object","additionalProperties":false}`)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw // AddTool refuses invalid schemas: not reached
	}
	return b.Bytes()
}

// OpenAIChat returns t as a Chat Completions tool:
// {"type":"function","function":{"name","description","parameters","strict"}}.
func (t FunctionTool) OpenAIChat() json.RawMessage {
	b := []byte(`{"type":"function","function":`)
	return append(append(b, t.OpenAIFunction()...), '}')
}

// OpenAIFunction returns t as a Chat Completions function definition:
// {"name","description","parameters","strict"}.
func (t FunctionTool) OpenAIFunction() json.RawMessage {
	b := t.nameDescription(nil, "parameters")
	return append(strconv.AppendBool(append(b, `,"strict":`...), t.Strict), '}')
}

// OpenAIResponses returns t as a Responses API function tool:
// {"type":"function","name","description","parameters","strict"}.
func (t FunctionTool) OpenAIResponses() json.RawMessage {
	b := t.nameDescription([]byte(`"type":"function",`), "parameters")
	return append(strconv.AppendBool(append(b, `,"strict":`...), t.Strict), '}')
}

// Anthropic returns t as an Anthropic tool: {"name","description","input_schema"}.
func (t FunctionTool) Anthropic() json.RawMessage {
	return append(t.nameDescription(nil, "input_schema"), '}')
}

// Gemini returns t as a Gemini function declaration:
// {"name","description","parameters"}.
func (t FunctionTool) Gemini() json.RawMessage {
	return append(t.nameDescription(nil, "parameters"), '}')
}

// nameDescription writes {prefix"name":…,"description":…,"<schemaKey>":schema
// without the closing brace.
func (t FunctionTool) nameDescription(prefix []byte, schemaKey string) []byte {
	b := make([]byte, 0, 64+len(t.Description)+len(t.Parameters))
	b = append(append(b, '{'), prefix...)
	b = jsonwire.AppendString(append(b, `"name":`...), t.Name)
	if t.Description != "" {
		b = jsonwire.AppendString(append(b, `,"description":`...), t.Description)
	}
	b = jsonwire.AppendString(append(b, ','), schemaKey)
	return append(append(b, ':'), t.Parameters...)
}

// geminiSchema cuts an input schema down to the Gemini subset: it drops what
// the subset cannot say and rewrites what it can say otherwise (const as a
// one-value enum, an exclusive integer bound as an inclusive one). It keeps
// the order of members. dropped lists "pointer: keyword".
func geminiSchema(raw json.RawMessage) (json.RawMessage, []string, error) {
	root, err := parseOrdered(raw)
	if err != nil {
		return nil, nil, err
	}
	var dropped []string
	geminiNode(root, "", &dropped)
	return root.append(nil), dropped, nil
}

// geminiKeep lists the keywords Gemini's Schema object has.
func geminiKeep(k string) bool {
	switch k {
	case "type", "format", "title", "description", "nullable", "enum",
		"maxItems", "minItems", "properties", "required", "minProperties", "maxProperties",
		"minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
		"default", "items", "minimum", "maximum":
		return true
	}
	return false
}

// geminiNode rewrites one subschema in place.
func geminiNode(n *ordered, ptr string, dropped *[]string) {
	if n.kind != '{' {
		return
	}
	typ, _ := rawStringOf(n.get("type"))
	var kept []member
	for _, m := range n.obj {
		p := ptr + "/" + schemaprofile.Escape(m.key)
		switch {
		case m.key == "properties" && m.val.kind == '{':
			for _, pm := range m.val.obj {
				geminiNode(pm.val, p+"/"+schemaprofile.Escape(pm.key), dropped)
			}
		case m.key == "items":
			geminiNode(m.val, p, dropped)
		case m.key == "anyOf" && m.val.kind == '[':
			for i, v := range m.val.arr {
				geminiNode(v, p+"/"+strconv.Itoa(i), dropped)
			}
		case m.key == "additionalProperties" && m.val.kind == 'f':
			// Closed objects: the subset has no such field; the server still
			// refuses unknown arguments.
			*dropped = append(*dropped, "#"+ptr+": additionalProperties")
			continue
		case m.key == "const" && m.val.kind == '"' && n.get("enum") == nil:
			kept = append(kept, member{"enum", &ordered{kind: '[', arr: []*ordered{m.val}}})
			continue
		case (m.key == "exclusiveMinimum" || m.key == "exclusiveMaximum") && typ == "integer":
			if bound, ok := inclusiveBound(m); ok && n.get(bound.key) == nil {
				kept = append(kept, bound)
				continue
			}
		case m.key == "format" && m.val.kind == '"':
			f, _ := rawStringOf(m.val)
			if !geminiFormatOK(typ, f) {
				*dropped = append(*dropped, "#"+ptr+": format "+f)
				continue
			}
		}
		if !geminiKeep(m.key) {
			if m.key == "additionalProperties" || m.key == "$ref" {
				kept = append(kept, m) // the subset cannot express it: left for the profile to report
				continue
			}
			*dropped = append(*dropped, "#"+ptr+": "+m.key)
			continue
		}
		kept = append(kept, m)
	}
	n.obj = kept
}

// inclusiveBound turns exclusiveMinimum n (exclusiveMaximum n) of an integer
// into minimum n+1 (maximum n-1), when n is an integer.
func inclusiveBound(m member) (member, bool) {
	if m.val.kind != '0' {
		return member{}, false
	}
	v, err := strconv.ParseInt(string(m.val.raw), 10, 64)
	if err != nil {
		return member{}, false
	}
	if m.key == "exclusiveMinimum" {
		return member{"minimum", &ordered{kind: '0', raw: strconv.AppendInt(nil, v+1, 10)}}, true
	}
	return member{"maximum", &ordered{kind: '0', raw: strconv.AppendInt(nil, v-1, 10)}}, true
}

// geminiFormatOK reports whether Gemini accepts format f on type t.
func geminiFormatOK(t, f string) bool {
	switch t + " " + f {
	case "string enum", "string date-time", "number float", "number double", "integer int32", "integer int64":
		return true
	}
	return false
}

// rawStringOf returns n's string value.
func rawStringOf(n *ordered) (string, bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	var s string
	err := json.Unmarshal(n.raw, &s)
	return s, err == nil
}

// An ordered is a JSON value whose objects keep their members' order: kind is
// '{' (obj), '[' (arr), '"' (string), '0' (number), 't', 'f' or 'n' (raw).
type ordered struct {
	kind byte
	obj  []member
	arr  []*ordered
	raw  json.RawMessage
}

// A member is one member of an ordered object.
type member struct {
	key string
	val *ordered
}

// get returns the value of member key, or nil.
func (n *ordered) get(key string) *ordered {
	for _, m := range n.obj {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// parseOrdered decodes raw keeping the order of object members.
func parseOrdered(raw json.RawMessage) (*ordered, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := decodeOrdered(dec)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return n, nil
}

// decodeOrdered reads one value from dec.
func decodeOrdered(dec *json.Decoder) (*ordered, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &ordered{kind: byte(v)}
		for dec.More() {
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				val, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				n.obj = append(n.obj, member{k.(string), val})
				continue
			}
			val, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			n.arr = append(n.arr, val)
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	case string:
		return &ordered{kind: '"', raw: jsonwire.AppendString(nil, v)}, nil
	case json.Number:
		return &ordered{kind: '0', raw: json.RawMessage(v)}, nil
	case bool:
		if v {
			return &ordered{kind: 't', raw: json.RawMessage("true")}, nil
		}
		return &ordered{kind: 'f', raw: json.RawMessage("false")}, nil
	}
	return &ordered{kind: 'n', raw: json.RawMessage("null")}, nil
}

// append encodes n onto b.
func (n *ordered) append(b []byte) []byte {
	switch n.kind {
	case '{':
		b = append(b, '{')
		for i, m := range n.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(jsonwire.AppendString(b, m.key), ':')
			b = m.val.append(b)
		}
		return append(b, '}')
	case '[':
		b = append(b, '[')
		for i, v := range n.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.append(b)
		}
		return append(b, ']')
	}
	return append(b, n.raw...)
}
