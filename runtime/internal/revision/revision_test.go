package revision

import (
	"encoding/json"
	"fmt"
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
