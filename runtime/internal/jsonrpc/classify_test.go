package jsonrpc

import (
	"errors"
	"testing"
)

// TestClassify: the era, version and name a message's params give, and the
// problems found.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		params        string
		modern        bool
		version, name string
		err, repeated bool
	}{
		{``, false, "", "", false, false},
		{`{"name":"add"}`, false, "", "add", false, false},
		{`{"uri":"file:///a"}`, false, "", "file:///a", false, false},
		{`{"name":"n","uri":"u"}`, false, "", "n", false, false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, true, "2026-07-28", "", false, false},
		{`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, true, "", "", false, false},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`, true, "", "", false, false}, // checked by dispatch
		{`{"_meta":{"progressToken":1}}`, false, "", "", false, false},
		{`[1]`, false, "", "", true, false},
		{`{"name":"a","name":"b"}`, false, "", "", false, true},
	} {
		var p Params
		h := Classify(&p, []byte(tc.params))
		if h.Modern != tc.modern || h.ProtocolVersion != tc.version || (tc.name != "" && h.Name != tc.name) ||
			(h.Err != nil) != tc.err || (h.Repeated != nil) != tc.repeated {
			t.Errorf("%s: %+v", tc.params, h)
		}
	}
	if v, ok := String([]byte(`"2025-11-25"`)); !ok || v != VersionLegacy {
		t.Errorf("String: %q %v", v, ok)
	}
	if _, ok := String([]byte(`3`)); ok {
		t.Error("String accepted a number")
	}
}

// TestRefusalReply: -32700 for invalid JSON, -32600 otherwise, nothing for a
// notification.
func TestRefusalReply(t *testing.T) {
	var env Frame
	_, _, r := Read([]byte(`{`), &env)
	if b, code := r.Reply(); code != CodeParseError || string(b) != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error: invalid JSON"}}` {
		t.Errorf("parse error: %d %s", code, b)
	}
	r = &Refusal{Err: errors.Join(ErrInvalidRequest), ID: []byte(`4`), Answer: true}
	if b, code := r.Reply(); code != CodeInvalidRequest || string(b) != `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request"}}` {
		t.Errorf("invalid request: %d %s", code, b)
	}
	r.Answer = false
	if b, code := r.Reply(); b != nil || code != 0 {
		t.Errorf("notification: %d %s", code, b)
	}
}

// TestClientInfo: name and version must be strings; title is optional.
func TestClientInfo(t *testing.T) {
	if n, ti, v, ok := ClientInfo([]byte(` {"name":"c","title":"C","version":"1"}`)); !ok || n != "c" || ti != "C" || v != "1" {
		t.Errorf("full: %q %q %q %v", n, ti, v, ok)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"name":"c"}`, `{"name":1,"version":"1"}`, `{"version":"1"}`} {
		if _, _, _, ok := ClientInfo([]byte(bad)); ok {
			t.Errorf("%s accepted", bad)
		}
	}
}
