package revision

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	for req, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25", "2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25", "": "2025-11-25",
	} {
		if got := Negotiate(req); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", req, got, want)
		}
	}
	if Older("") || Older(V20251125) || !Older(V20241105) {
		t.Error("Older: wrong for empty, 2025-11-25 or 2024-11-05")
	}
}

func TestClientCaps(t *testing.T) {
	caps := json.RawMessage(`{"elicitation":{"url":{}},"roots":{}}`)
	for v, want := range map[string]string{
		V20251125: `{"elicitation":{"url":{}},"roots":{}}`,
		V20250618: `{"elicitation":{},"roots":{}}`,
		V20250326: `{"roots":{}}`,
	} {
		if got := string(ClientCaps(v, caps)); got != want {
			t.Errorf("ClientCaps(%s) = %s, want %s", v, got, want)
		}
	}
}

func TestShapeResponse(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"audio","data":"AAEC","mimeType":"audio/wav"},` +
		`{"type":"resource_link","uri":"file:///a","name":"a"}],"structuredContent":{"n":1.50}}}`)
	got := string(ShapeResponse(V20241105, "tools/call", json.RawMessage(`1`), body))
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"[audio/wav audio, 3 bytes: 2024-11-05 clients cannot receive audio]","type":"text"},{"text":"a: file:///a","type":"text"}]}}`
	if got != want {
		t.Errorf("2024-11-05 tools/call:\n got %s\nwant %s", got, want)
	}
	if got := ShapeResponse(V20241105, "tools/call", json.RawMessage(`1`), []byte(`{"jsonrpc":"2.0","id":1,"error":{}}`)); string(got) != `{"jsonrpc":"2.0","id":1,"error":{}}` {
		t.Errorf("an error response changed: %s", got)
	}
}

func TestShapeOutgoing(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":` +
		`{"type":"object","properties":{"c":{"type":"string","default":"x","oneOf":[{"const":"a","title":"A"},{"const":"b"}]}}}}}`)
	got := string(ShapeOutgoing(V20250618, msg))
	want := `{"id":3,"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m","requestedSchema":{"properties":{"c":{"enum":["a","b"],"enumNames":["A","b"],"type":"string"}},"type":"object"}}}`
	if got != want {
		t.Errorf("2025-06-18 elicitation:\n got %s\nwant %s", got, want)
	}
	progress := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"m"}}`)
	if got := string(ShapeOutgoing(V20250326, progress)); got != string(progress) {
		t.Errorf("2025-03-26 progress changed: %s", got)
	}
	if got := string(ShapeOutgoing(V20241105, progress)); got != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":1}}` {
		t.Errorf("2024-11-05 progress: %s", got)
	}
	// What no revision changes passes through as it is, without a copy; a
	// method's name inside a value costs a decode and changes nothing.
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"elicitation/create"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\"sampling/createMessage\""}}`,
	} {
		b := []byte(m)
		got := ShapeOutgoing(V20250618, b)
		if string(got) != m {
			t.Errorf("2025-06-18 %s changed: %s", m, got)
		}
		if mayShape(V20250618, b) != (strings.Contains(m, `"elicitation/create"`) || strings.Contains(m, `"sampling/createMessage"`)) {
			t.Errorf("mayShape(%s) = %v", m, mayShape(V20250618, b))
		}
	}
	if !mayShape(V20241105, progress) || mayShape(V20250326, progress) {
		t.Errorf("mayShape of a progress notification: 2024-11-05 must decode it, 2025-03-26 must not")
	}
}

func TestBatch(t *testing.T) {
	invalid := func(code int, msg string) []byte { return []byte(fmt.Sprintf(`{"error":%d}`, code)) }
	one := func(el json.RawMessage) ([]byte, func() []byte) {
		switch string(el) {
		case `"note"`:
			return nil, nil
		case `"bad"`:
			return []byte(`"refused"`), nil
		}
		return nil, func() []byte { return append([]byte(`"done `), el[1:]...) }
	}
	for raw, want := range map[string]string{
		`["a","note","bad","b"]`: `["done a","refused","done b"]`,
		`["note","note"]`:        "",
		`[]`:                     `{"error":-32600}`,
		`[`:                      `{"error":-32700}`,
	} {
		if got := string(Batch([]byte(raw), 1, one, invalid)); got != want {
			t.Errorf("Batch(%s) = %s, want %s", raw, got, want)
		}
	}
}

// TestUnshapedIsIdentity holds ShapeResponse's fast path to shapeResult: for
// every older revision and every method, a result with every kind of content
// block, annotation and _meta comes out of shapeResult unchanged exactly
// when unshaped says it need not be decoded.
func TestUnshapedIsIdentity(t *testing.T) {
	block := func(extra string) string {
		return `{"type":"text","text":"t","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":1}` + extra + `}`
	}
	contents := `[{"uri":"file:///a","mimeType":"text/plain","text":"a","_meta":{"k":1}},{"uri":"file:///b","blob":"AAEC"}]`
	blocks := `[` + block(``) + `,{"type":"image","data":"AAEC","mimeType":"image/png"},{"type":"audio","data":"AAEC","mimeType":"audio/wav"},` +
		`{"type":"resource_link","uri":"file:///a","name":"a","title":"A","description":"d","mimeType":"text/plain","size":3,"annotations":{"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":1}},` +
		`{"type":"resource","resource":{"uri":"file:///a","text":"a","_meta":{"k":1}},"_meta":{"k":2}}]`
	results := map[string]string{
		"tools/call":               `{"content":` + blocks + `,"structuredContent":{"n":1.50},"isError":false,"_meta":{"dev.mcpgen/receipt":{"action_id":"x"}}}`,
		"resources/read":           `{"contents":` + contents + `}`,
		"prompts/get":              `{"description":"d","messages":[{"role":"user","content":` + block(``) + `},{"role":"assistant","content":{"type":"audio","data":"AAEC","mimeType":"audio/wav"}}]}`,
		"tools/list":               `{"tools":[{"name":"n","title":"T","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"icons":[{"src":"https://x/i.png"}],"execution":{"taskSupport":"optional"},"_meta":{"k":1}}]}`,
		"resources/list":           `{"resources":[{"uri":"file:///a","name":"a","title":"A","icons":[{"src":"https://x/i.png"}],"_meta":{"k":1}}]}`,
		"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"a","title":"A","icons":[{"src":"https://x/i.png"}]}]}`,
		"prompts/list":             `{"prompts":[{"name":"p","title":"P","arguments":[{"name":"a","title":"A"}],"icons":[{"src":"https://x/i.png"}]}]}`,
		"initialize":               `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"completions":{},"tasks":{}},"serverInfo":{"name":"s","version":"1","title":"S","description":"d","icons":[],"websiteUrl":"https://x"}}`,
	}
	for _, v := range []string{V20241105, V20250326, V20250618} {
		for method, result := range results {
			orig, ok := decodeAny([]byte(result))
			shaped, ok2 := decodeAny([]byte(result))
			if !ok || !ok2 {
				t.Fatalf("%s: bad fixture %s", method, result)
			}
			shapeResult(v, method, shaped.(map[string]any))
			identity := string(encodeAny(orig)) == string(encodeAny(shaped))
			if unshaped(v, method) != identity {
				t.Errorf("%s %s: unshaped=%v but shapeResult leaves it unchanged=%v", v, method, unshaped(v, method), identity)
			}
			body := []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)
			if got := ShapeResponse(v, method, json.RawMessage(`1`), body); unshaped(v, method) && &got[0] != &body[0] {
				t.Errorf("%s %s: the unshaped response was copied", v, method)
			}
		}
	}
}
