package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestParseMessageKinds(t *testing.T) {
	tests := []struct {
		raw  string
		kind Kind
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, "1"},
		{`{"jsonrpc":"2.0","id":"a b","method":"ping"}`, KindRequest, `"a b"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, ""},
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, KindResponse, "2"},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m"}}`, KindResponse, "3"},
		{` {"jsonrpc":"2.0","id":4,"method":"ping"} `, KindRequest, "4"},
	}
	for _, tt := range tests {
		m, err := ParseMessage([]byte(tt.raw))
		if err != nil || m.Kind != tt.kind || string(m.ID) != tt.id {
			t.Errorf("ParseMessage(%s) = %+v, %v; want kind %d id %s", tt.raw, m, err, tt.kind, tt.id)
		}
	}
}

func TestParseMessageErrors(t *testing.T) {
	tests := []struct {
		raw    string
		target error
		answer bool
	}{
		{`{`, ErrParse, true},
		{``, ErrParse, true},
		{`[]`, ErrInvalidRequest, true},
		{`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`, ErrInvalidRequest, true},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, ErrInvalidRequest, true},
		{`{"jsonrpc":"2.0","id":"1"}`, ErrInvalidRequest, true},
		{`{"jsonrpc":"2.0","method":"x","id":null}`, ErrInvalidRequest, true},
		{`{"jsonrpc":"2.1","method":"notifications/x"}`, ErrInvalidRequest, false},
		{`{"jsonrpc":"2.0","result":{}}`, ErrInvalidRequest, true},
	}
	for _, tt := range tests {
		_, err := ParseMessage([]byte(tt.raw))
		if !errors.Is(err, tt.target) {
			t.Errorf("ParseMessage(%s) error = %v, want %v", tt.raw, err, tt.target)
			continue
		}
		if r := ErrorReply(err); (r.Body != nil) != tt.answer {
			t.Errorf("ErrorReply for %s = %s, want answered=%v", tt.raw, r.Body, tt.answer)
		}
	}
}

func TestErrorResponseShape(t *testing.T) {
	body := ErrorResponse(json.RawMessage(`"x"`), CodeUnsupportedVersion, `bad "version"`+"\n", map[string]any{"supported": []string{"a"}, "requested": "b"})
	if err := testSpec.validate(revModern, "UnsupportedProtocolVersionError", body); err != nil {
		t.Errorf("%s: %v", body, err)
	}
	if bytes.Contains(body, []byte("\n")) {
		t.Errorf("error response holds a raw newline: %q", body)
	}
	if body := ErrorResponse(nil, CodeParseError, "p", nil); strings.Contains(string(body), `"id"`) {
		t.Errorf("unreadable id not omitted: %s", body)
	}
}

func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[1,2]`, `{`, `null`, `{"jsonrpc":"2.0","id":-0,"method":""}`,
	} {
		f.Add([]byte(seed))
	}
	s := NewServer(Implementation{Name: "fuzz", Version: "0"}, &Options{Logger: discardLogger()})
	s.AddTool(echoTool())
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := ParseMessage(raw)
		if err != nil {
			if r := ErrorReply(err); r.Body != nil && !json.Valid(r.Body) {
				t.Fatalf("invalid error reply %q", r.Body)
			}
			return
		}
		if m.Kind == KindRequest && !validID(m.ID) {
			t.Fatalf("request with invalid id %q", m.ID)
		}
		sess := s.NewSession(nil)
		r := s.Handle(t.Context(), m, sess, nil)
		if r.Body != nil && (!json.Valid(r.Body) || bytes.ContainsRune(r.Body, '\n')) {
			t.Fatalf("bad reply %q", r.Body)
		}
		if m.Kind != KindRequest && r.Body != nil {
			t.Fatalf("replied to a %d: %s", m.Kind, r.Body)
		}
	})
}

// discardLogger drops every record.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
