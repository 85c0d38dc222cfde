package httpcheck

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// FuzzDecodeHeaderValue checks that any header-safe value survives the
// Base64 sentinel encoding, and that decoding never panics.
func FuzzDecodeHeaderValue(f *testing.F) {
	for _, s := range []string{"", "us-west1", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
		got, err := DecodeHeaderValue(enc)
		if err != nil || got != s {
			t.Fatalf("decode(%q) = %q, %v; want %q", enc, got, err, s)
		}
		_, _ = DecodeHeaderValue(s) // arbitrary input: an error at most
	})
}

// TestHeaderMatchesJSON checks the comparison of Mcp-Param-* values with
// argument values.
func TestHeaderMatchesJSON(t *testing.T) {
	tests := []struct {
		header, value string
		want          bool
	}{
		{"us-west1", `"us-west1"`, true},
		{"us-west1", `"us-east1"`, false},
		{"42", `42`, true},
		{"42.0", `42`, true},
		{"42", `42.5`, false},
		{"x", `42`, false},
		{"true", `true`, true},
		{"True", `true`, false},
		{"{}", `{}`, false},
	}
	for _, tt := range tests {
		if got := headerMatchesJSON(tt.header, []byte(tt.value)); got != tt.want {
			t.Errorf("headerMatchesJSON(%q, %s) = %v, want %v", tt.header, tt.value, got, tt.want)
		}
	}
}

// TestParamHeaders checks that x-mcp-header annotations are found, nested
// ones included.
func TestParamHeaders(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{
		"a":{"type":"string","x-mcp-header":"A"},
		"o":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}},
		"c":{"type":"string"}}}`)
	got := ParamHeaders(schema)
	if len(got) != 2 || got[0].name != "A" || strings.Join(got[0].path, ".") != "a" ||
		got[1].name != "B" || strings.Join(got[1].path, ".") != "o.b" {
		t.Fatalf("got %+v, want A at a and B at o.b", got)
	}
}

// TestTaskRoutingHeader: tasks/get, tasks/update and tasks/cancel carry
// Mcp-Name = params.taskId (the tasks extension's routing header).
func TestTaskRoutingHeader(t *testing.T) {
	params := json.RawMessage(`{"taskId":"abc","_meta":{}}`)
	hdr := func(name string) http.Header {
		h := http.Header{}
		h.Set(HeaderProtocolVersion, "2026-07-28")
		if name != "" {
			h.Set(HeaderName, name)
		}
		return h
	}
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		ok := hdr("abc")
		ok.Set(HeaderMethod, m)
		if err := CheckStandard(ok, m, params, "2026-07-28"); err != nil {
			t.Errorf("%s with the matching Mcp-Name: %v", m, err)
		}
		for _, name := range []string{"other", ""} {
			bad := hdr(name)
			bad.Set(HeaderMethod, m)
			if err := CheckStandard(bad, m, params, "2026-07-28"); err == nil {
				t.Errorf("%s with Mcp-Name %q: accepted", m, name)
			}
		}
	}
}
