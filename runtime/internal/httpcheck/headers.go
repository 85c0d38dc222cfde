// Package httpcheck holds the checks of an HTTP request that need no server:
// Origin and Host (guard.go) and the 2026-07-28 header rules (headers.go).
package httpcheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Header names of the Streamable HTTP transport. Go canonicalizes header
// names, so lookups through http.Header are case-insensitive as the spec requires.
const (
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderLastEventID     = "Last-Event-Id"
	HeaderParamPrefix     = "Mcp-Param-"
)

// A Mismatch explains why the request headers disagree with its body;
// it becomes HTTP 400 with JSON-RPC error -32020.
type Mismatch struct{ msg string }

func (e *Mismatch) Error() string { return "header mismatch: " + e.msg }

// mismatchf returns a *Mismatch with a formatted message.
func mismatchf(format string, args ...any) error {
	return &Mismatch{msg: fmt.Sprintf(format, args...)}
}

// HeaderValue returns the value of header name with surrounding whitespace
// removed (RFC 9110 §5.5), and whether the header was present. Repeated
// headers are joined as HTTP does, so a duplicate never silently wins.
func HeaderValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.TrimSpace(strings.Join(vs, ",")), true
}

// DecodeHeaderValue undoes the "=?base64?…?=" sentinel encoding of Mcp-Name
// and Mcp-Param-* values. A value without both markers is literal. Invalid
// Base64 inside the markers, or raw bytes outside visible ASCII, space and
// tab, are errors.
func DecodeHeaderValue(v string) (string, error) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("invalid character %q in header value", c)
		}
	}
	const prefix, suffix = "=?base64?", "?="
	if len(v) < len(prefix)+len(suffix) || !strings.HasPrefix(v, prefix) || !strings.HasSuffix(v, suffix) {
		return v, nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(prefix) : len(v)-len(suffix)])
	if err != nil {
		return "", fmt.Errorf("invalid base64 header value: %w", err)
	}
	return string(b), nil
}

// nameParamField returns the params field that Mcp-Name mirrors for method,
// and false for methods that carry no Mcp-Name.
func nameParamField(method string) (string, bool) {
	switch method {
	case "tools/call", "prompts/get":
		return "name", true
	case "resources/read":
		return "uri", true
	case "tasks/get", "tasks/update", "tasks/cancel":
		return "taskId", true
	}
	return "", false
}

// CheckStandard validates MCP-Protocol-Version, Mcp-Method and Mcp-Name
// of a 2026-07-28 request against its body: method, params and the version
// its _meta declares.
func CheckStandard(h http.Header, method string, params json.RawMessage, metaVersion string) error {
	if v, ok := HeaderValue(h, HeaderProtocolVersion); !ok {
		return mismatchf("missing %s header", HeaderProtocolVersion)
	} else if v != metaVersion {
		return mismatchf("%s header %q does not match _meta protocol version %q", HeaderProtocolVersion, v, metaVersion)
	}
	if v, ok := HeaderValue(h, HeaderMethod); !ok {
		return mismatchf("missing %s header", HeaderMethod)
	} else if v != method {
		return mismatchf("%s header %q does not match body method %q", HeaderMethod, v, method)
	}
	field, ok := nameParamField(method)
	if !ok {
		return nil
	}
	// Malformed params are the dispatcher's to report. The last member named
	// field counts, decoded as encoding/json would (anything but a string is "").
	var want string
	if len(params) > 0 && params[0] == '{' {
		jsonwire.EachMember(params, func(key, val []byte) {
			if string(key) != field {
				return
			}
			want = ""
			if s, ok := jsonwire.String(val); ok && utf8.ValidString(s) {
				want = s
			} else {
				_ = json.Unmarshal(val, &want)
			}
		})
	}
	raw, ok := HeaderValue(h, HeaderName)
	if !ok {
		return mismatchf("missing %s header", HeaderName)
	}
	got, err := DecodeHeaderValue(raw)
	if err != nil {
		return mismatchf("%s: %v", HeaderName, err)
	}
	if got != want {
		return mismatchf("%s header %q does not match body %s %q", HeaderName, got, field, want)
	}
	return nil
}

// A ParamHeader is an x-mcp-header annotation of a tool's inputSchema: the
// property path inside arguments and the header name suffix.
type ParamHeader struct {
	path []string
	name string
}

// ParamHeaders collects the x-mcp-header annotations of an input schema,
// following nested "properties" chains, in a deterministic order.
func ParamHeaders(schema json.RawMessage) []ParamHeader {
	var out []ParamHeader
	collectParamHeaders(schema, nil, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// collectParamHeaders appends the annotations under one object schema.
func collectParamHeaders(schema json.RawMessage, path []string, out *[]ParamHeader) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for key, prop := range s.Properties {
		p := append(append([]string(nil), path...), key)
		var ann struct {
			Header string `json:"x-mcp-header"`
		}
		if json.Unmarshal(prop, &ann) == nil && ann.Header != "" {
			*out = append(*out, ParamHeader{path: p, name: ann.Header})
		}
		collectParamHeaders(prop, p, out)
	}
}

// CheckParams validates the Mcp-Param-* headers of a tools/call against
// the call's arguments: every annotated argument with a non-null value needs
// its header, decoded and equal to the value (numbers compared numerically).
func CheckParams(h http.Header, anns []ParamHeader, arguments json.RawMessage) error {
	for _, a := range anns {
		val, ok := lookupPath(arguments, a.path)
		if !ok {
			continue
		}
		name := HeaderParamPrefix + a.name
		raw, present := HeaderValue(h, name)
		if !present {
			return mismatchf("missing %s header for argument %s", name, strings.Join(a.path, "."))
		}
		got, err := DecodeHeaderValue(raw)
		if err != nil {
			return mismatchf("%s: %v", name, err)
		}
		if !headerMatchesJSON(got, val) {
			return mismatchf("%s header %q does not match argument %s", name, got, strings.Join(a.path, "."))
		}
	}
	return nil
}

// lookupPath returns the JSON value at path inside obj, and false when it is
// absent or null.
func lookupPath(obj json.RawMessage, path []string) (json.RawMessage, bool) {
	cur := obj
	for _, k := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil, false
		}
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		cur = v
	}
	if bytes.Equal(bytes.TrimSpace(cur), []byte("null")) {
		return nil, false
	}
	return cur, true
}

// headerMatchesJSON reports whether a decoded header value represents the JSON
// value v: strings literally, numbers numerically, booleans as true/false.
func headerMatchesJSON(header string, v json.RawMessage) bool {
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return false
	}
	switch x := x.(type) {
	case string:
		return header == x
	case bool:
		return header == fmt.Sprint(x)
	case json.Number:
		a, okA := new(big.Rat).SetString(header)
		b, okB := new(big.Rat).SetString(x.String())
		return okA && okB && a.Cmp(b) == 0
	}
	return false
}
