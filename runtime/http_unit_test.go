package runtime

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
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
		got, err := decodeHeaderValue(enc)
		if err != nil || got != s {
			t.Fatalf("decode(%q) = %q, %v; want %q", enc, got, err, s)
		}
		_, _ = decodeHeaderValue(s) // arbitrary input: an error at most
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
	got := paramHeaders(schema)
	if len(got) != 2 || got[0].name != "A" || strings.Join(got[0].path, ".") != "a" ||
		got[1].name != "B" || strings.Join(got[1].path, ".") != "o.b" {
		t.Fatalf("got %+v, want A at a and B at o.b", got)
	}
}

// TestHTTPHeaderBound checks that ListenAndServe's server bounds the header
// block (431).
func TestHTTPHeaderBound(t *testing.T) {
	s := NewServer(Implementation{Name: "httptest", Version: "1.0.0"},
		&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	opts := (&HTTPOptions{MaxHeaderBytes: 1024}).withDefaults()
	h := newHTTPHandler(s, opts)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, ln, h, opts, h.endStreams, nil) }()
	defer func() {
		cancel()
		if err := waitFor(t, served, "the server to stop"); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	req, err := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/mcp", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("X-Padding", strings.Repeat("x", 16<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("got status %d, want 431", resp.StatusCode)
	}
}
