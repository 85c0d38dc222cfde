// Package revision shapes messages for the initialize-handshake revisions
// older than 2025-11-25 that clients in the wild still negotiate (2024-11-05,
// 2025-03-26, 2025-06-18): which revision initialize answers, what a client's
// capabilities mean there, and what each result or server-sent message may
// carry, from that revision's schema.json and changelog. docs/runtime.md ("What
// each revision gets") is the table. It knows nothing of servers or calls.
package revision

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// The handshake revisions. Revisions are dates, so they compare as strings.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25" // the latest handshake revision
)

// handshake lists the revisions initialize negotiates, newest first.
var handshake = []string{V20251125, V20250618, V20250326, V20241105}

// Negotiate is the lifecycle's answer to an initialize asking for requested:
// that revision when the server serves it with a handshake, else the latest
// handshake revision (2025-11-25), which the client may refuse by disconnecting.
// 2026-07-28 has no handshake: a client asking for it in initialize gets 2025-11-25.
func Negotiate(requested string) string {
	for _, v := range handshake {
		if requested == v {
			return v
		}
	}
	return V20251125
}

// Handshake reports whether v is a revision of the initialize-handshake era
// (2025-11-25 or before).
func Handshake(v string) bool { return slices.Contains(handshake, v) }

// Older reports whether v is a negotiated handshake revision before
// 2025-11-25, whose messages need shaping. Revisions are dates, so they compare
// as strings.
func Older(v string) bool {
	return v != "" && v < V20251125
}

// AtLeast reports whether revision v is rev or newer.
func AtLeast(v, rev string) bool { return v >= rev }

// ClientCaps drops what the client declared that its revision cannot use:
// elicitation before 2025-06-18, and URL-mode elicitation before 2025-11-25 (a
// 2025-06-18 client gets form mode only).
func ClientCaps(version string, caps json.RawMessage) json.RawMessage {
	if !Older(version) {
		return caps
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil {
		return caps
	}
	if _, ok := m["elicitation"]; !ok {
		return caps
	}
	if AtLeast(version, V20250618) {
		m["elicitation"] = json.RawMessage(`{}`) // form mode
	} else {
		delete(m, "elicitation")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return caps
	}
	return b
}

// ShapeResponse reshapes the result of a response to method for an older revision.
// A response that does not decode is returned unchanged.
func ShapeResponse(version, method string, id json.RawMessage, body []byte) []byte {
	if unshaped(version, method) {
		return body
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(body, &env) != nil || env.Result == nil {
		return body
	}
	v, ok := decodeAny(env.Result)
	if !ok {
		return body
	}
	res, ok := v.(map[string]any)
	if !ok {
		return body
	}
	shapeResult(version, method, res)
	return jsonrpc.ResultResponse(id, encodeAny(res))
}

// unshaped reports whether shapeResult leaves every result of method as it
// is at version, so it need not be decoded: tools/call, resources/read and
// prompts/get from 2025-06-18 on (their content blocks and resource contents
// have every field then; TestUnshapedIsIdentity holds this to shapeResult).
func unshaped(version, method string) bool {
	switch method {
	case "tools/call", "resources/read", "prompts/get":
		return AtLeast(version, V20250618)
	}
	return false
}

// shapeResult drops or converts, in place, what an older revision's result of
// method cannot carry.
func shapeResult(version, method string, res map[string]any) {
	switch method {
	case "initialize":
		if info, ok := res["serverInfo"].(map[string]any); ok {
			shapeImplementation(version, info)
		}
		if caps, ok := res["capabilities"].(map[string]any); ok {
			if !AtLeast(version, V20250326) {
				delete(caps, "completions")
			}
			delete(caps, "tasks")
		}
	case "tools/list":
		for _, t := range objects(res["tools"]) {
			shapeTool(version, t)
		}
	case "tools/call":
		if !AtLeast(version, V20250618) {
			delete(res, "structuredContent")
		}
		res["content"] = shapeContents(version, res["content"])
	case "resources/list":
		for _, r := range objects(res["resources"]) {
			shapeDescriptor(version, r)
		}
	case "resources/templates/list":
		for _, r := range objects(res["resourceTemplates"]) {
			shapeDescriptor(version, r)
		}
	case "resources/read":
		for _, r := range objects(res["contents"]) {
			shapeResourceContents(version, r)
		}
	case "prompts/list":
		for _, p := range objects(res["prompts"]) {
			shapeDescriptor(version, p)
			if !AtLeast(version, V20250618) {
				for _, a := range objects(p["arguments"]) {
					delete(a, "title")
				}
			}
		}
	case "prompts/get":
		for _, m := range objects(res["messages"]) {
			m["content"] = shapeContent(version, m["content"])
		}
	}
}

// shapeImplementation keeps what an older Implementation has: name and version,
// and title from 2025-06-18.
func shapeImplementation(version string, info map[string]any) {
	for _, k := range []string{"description", "icons", "websiteUrl"} {
		delete(info, k)
	}
	if !AtLeast(version, V20250618) {
		delete(info, "title")
	}
}

// shapeTool keeps what an older Tool has: annotations from 2025-03-26, title,
// outputSchema and _meta from 2025-06-18; never icons or execution (2025-11-25).
func shapeTool(version string, t map[string]any) {
	delete(t, "icons")
	delete(t, "execution")
	if !AtLeast(version, V20250618) {
		delete(t, "title")
		delete(t, "outputSchema")
		delete(t, "_meta")
	}
	if !AtLeast(version, V20250326) {
		delete(t, "annotations")
	}
}

// shapeDescriptor shapes a Resource, ResourceTemplate or Prompt: title and _meta
// from 2025-06-18, no icons before 2025-11-25.
func shapeDescriptor(version string, d map[string]any) {
	delete(d, "icons")
	if !AtLeast(version, V20250618) {
		delete(d, "title")
		delete(d, "_meta")
	}
	shapeAnnotations(version, d)
}

// shapeAnnotations drops lastModified (2025-06-18) from an object's annotations.
func shapeAnnotations(version string, obj map[string]any) {
	if a, ok := obj["annotations"].(map[string]any); ok && !AtLeast(version, V20250618) {
		delete(a, "lastModified")
	}
}

// shapeResourceContents drops _meta (2025-06-18) from resource contents.
func shapeResourceContents(version string, r map[string]any) {
	if !AtLeast(version, V20250618) {
		delete(r, "_meta")
	}
}

// shapeContents shapes a list of content blocks.
func shapeContents(version string, v any) any {
	list, ok := v.([]any)
	if !ok {
		return v
	}
	for i, b := range list {
		list[i] = shapeContent(version, b)
	}
	return list
}

// shapeContent shapes one content block. What the revision has no block for
// becomes text: a resource link (2025-06-18) its name and URI, audio
// (2025-03-26) a note of its type and size.
func shapeContent(version string, v any) any {
	b, ok := v.(map[string]any)
	if !ok {
		return v
	}
	typ, _ := b["type"].(string)
	switch {
	case typ == "resource_link" && !AtLeast(version, V20250618):
		name, _ := b["name"].(string)
		uri, _ := b["uri"].(string)
		text := uri
		if name != "" && name != uri {
			text = name + ": " + uri
		}
		return map[string]any{"type": "text", "text": text}
	case typ == "audio" && !AtLeast(version, V20250326):
		mime, _ := b["mimeType"].(string)
		data, _ := b["data"].(string)
		n := base64.StdEncoding.DecodedLen(len(data))
		if raw, err := base64.StdEncoding.DecodeString(data); err == nil {
			n = len(raw)
		}
		return map[string]any{"type": "text", "text": fmt.Sprintf("[%s audio, %d bytes: %s clients cannot receive audio]", mime, n, version)}
	}
	if !AtLeast(version, V20250618) {
		delete(b, "_meta")
		if r, ok := b["resource"].(map[string]any); ok {
			shapeResourceContents(version, r)
		}
	}
	shapeAnnotations(version, b)
	return b
}

// ShapeOutgoing shapes a message the server sends on its own during a request
// (a notification or a server-to-client request) for an older revision.
func ShapeOutgoing(version string, msg []byte) []byte {
	if !mayShape(version, msg) {
		return msg
	}
	v, ok := decodeAny(msg)
	if !ok {
		return msg
	}
	m, ok := v.(map[string]any)
	if !ok {
		return msg
	}
	params, _ := m["params"].(map[string]any)
	if params == nil {
		return msg
	}
	switch m["method"] {
	case "notifications/progress":
		if AtLeast(version, V20250326) {
			return msg
		}
		delete(params, "message")
	case "elicitation/create":
		delete(params, "mode") // 2025-06-18 has form mode only
		if rs, ok := params["requestedSchema"].(map[string]any); ok {
			props, _ := rs["properties"].(map[string]any)
			for _, p := range props {
				shapeFormField(p)
			}
		}
	case "sampling/createMessage":
		for _, sm := range objects(params["messages"]) {
			delete(sm, "_meta")
			sm["content"] = shapeContent(version, sm["content"])
		}
	default:
		return msg
	}
	return encodeAny(m)
}

// mayShape reports whether msg may name a method ShapeOutgoing changes at
// version; the others (log messages, list changes, progress from 2025-03-26
// on) pass through without a decode. A byte search: the name elsewhere in msg
// costs only the decode that finds nothing to change.
func mayShape(version string, msg []byte) bool {
	if !AtLeast(version, V20250326) && bytes.Contains(msg, []byte(`"notifications/progress"`)) {
		return true
	}
	return bytes.Contains(msg, []byte(`"elicitation/create"`)) || bytes.Contains(msg, []byte(`"sampling/createMessage"`))
}

// shapeFormField makes one property of an elicitation form a 2025-06-18
// PrimitiveSchemaDefinition: no default (2025-11-25), and a titled single-select
// enum (oneOf of const and title) as enum with enumNames.
func shapeFormField(v any) {
	p, ok := v.(map[string]any)
	if !ok {
		return
	}
	delete(p, "default")
	options, ok := p["oneOf"].([]any)
	if !ok {
		return
	}
	var values, names []any
	for _, o := range objects(options) {
		values = append(values, o["const"])
		title, ok := o["title"]
		if !ok {
			title = o["const"]
		}
		names = append(names, title)
	}
	delete(p, "oneOf")
	p["enum"], p["enumNames"] = values, names
}

// objects returns the objects of a JSON array decoded by decodeAny.
func objects(v any) []map[string]any {
	list, _ := v.([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// decodeAny decodes JSON keeping numbers exact.
func decodeAny(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// encodeAny encodes v compactly without HTML escaping.
func encodeAny(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic(fmt.Sprintf("mcpgen: encode shaped message: %v", err)) // decoded JSON always encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Batch serves a JSON-RPC batch of 2025-03-26: every element is handled as if
// it came alone, by one: inline when it returns a reply or nothing to run
// (notifications, responses, malformed elements), else run concurrently, at
// most limit at a time. The replies return in one array, in the order of the
// elements; Batch returns nil when nothing is owed. An empty array or invalid
// JSON get the one error response invalid(code, msg), not an array, as JSON-RPC
// 2.0 says.
func Batch(raw []byte, limit int, one func(el json.RawMessage) (reply []byte, run func() []byte), invalid func(code int, msg string) []byte) []byte {
	var elems []json.RawMessage
	if !jsonwire.Valid(jsonwire.TrimSpace(raw)) || json.Unmarshal(raw, &elems) != nil {
		return invalid(-32700, "parse error: invalid JSON") // JSON-RPC parse error
	}
	if len(elems) == 0 {
		return invalid(-32600, "invalid request: empty batch") // JSON-RPC invalid request
	}
	replies := make([][]byte, len(elems))
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i, el := range elems {
		reply, run := one(el)
		if run == nil {
			replies[i] = reply
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			replies[i] = run()
		}()
	}
	wg.Wait()
	var b bytes.Buffer
	for _, r := range replies {
		if r == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('[')
		} else {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	if b.Len() == 0 {
		return nil
	}
	b.WriteByte(']')
	return b.Bytes()
}
