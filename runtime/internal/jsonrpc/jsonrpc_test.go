package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

func TestFrame(t *testing.T) {
	var f Frame
	jsonwire.EachMember([]byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{},"x":1,"\u0069d":8}`), f.Set)
	if string(f.JSONRPC) != `"2.0"` || string(f.Method) != `"m"` || string(f.Params) != `{}` || f.Result != nil {
		t.Errorf("members: %+v", f)
	}
	if string(f.Repeated) != "id" || !f.IDRepeated || string(f.ID) != "8" {
		t.Errorf("a repeated id (escaped): repeated %q, idRepeated %v, id %s", f.Repeated, f.IDRepeated, f.ID)
	}
}

func TestChecks(t *testing.T) {
	for id, want := range map[string]bool{`1`: true, `-3`: true, `"a"`: true, `""`: true, `-`: false, `1.5`: false,
		`null`: false, `{}`: false, ``: false, `1e3`: false} {
		if got := ValidID(json.RawMessage(id)); got != want {
			t.Errorf("ValidID(%s) = %v, want %v", id, got, want)
		}
	}
	for raw, want := range map[string]bool{`"2.0"`: true, `"2\u002e0"`: true, `2.0`: false, `"2"`: false, ``: false} {
		if got := IsVersion20([]byte(raw)); got != want {
			t.Errorf("IsVersion20(%s) = %v, want %v", raw, got, want)
		}
	}
	for raw, want := range map[string]string{`"tools/call"`: "tools/call", `"x\u0041"`: "xA", `"ping"`: "ping"} {
		if got, ok := MethodName([]byte(raw)); !ok || got != want {
			t.Errorf("MethodName(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	if _, ok := MethodName([]byte(`7`)); ok {
		t.Error("MethodName accepted a number")
	}
}

func TestEncoders(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{string(ErrorResponse(json.RawMessage(`1`), -32600, "bad \"x\"", nil)), `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"bad \"x\""}}`},
		{string(ErrorResponse(nil, -32700, "parse error", map[string]int{"a": 1})), `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error","data":{"a":1}}}`},
		{string(ResultResponse(json.RawMessage(`"q"`), []byte(`{}`))), `{"jsonrpc":"2.0","id":"q","result":{}}`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	n, err := Notification("notifications/progress", map[string]int{"progress": 1})
	if err != nil || string(n) != `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}` {
		t.Errorf("Notification: %s, %v", n, err)
	}
	if _, err := Notification("m", func() {}); err == nil {
		t.Error("Notification encoded a func")
	}
}
