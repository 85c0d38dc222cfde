package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
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

// TestParseMessageRepeatedMembers: a member name repeated in the message, its
// params or params._meta is -32600, answered with the id unless the id itself
// repeats, and unanswered for a notification.
func TestParseMessageRepeatedMembers(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	tests := []struct {
		raw    string
		id     string // the id answered; "" for none
		answer bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":0,"method":""}`, "1", true},
		{`{"jsonrpc":"2.0","method":"ping","id":1,"method":"tools/list"}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, "", true},
		{`{"jsonrpc":"2.0","id":"a","id":"a","method":"ping"}`, "", true},
		{`{"id":7,"jsonrpc":"2.0","jsonrpc":"1.0","method":"ping"}`, "7", true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":1}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"m\u0065thod":"ping","method":"ping"}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"arguments":{}}}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a",` + meta + `,` + meta + `}}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1,"progressToken":2}}}`, "1", true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, "1", true},
		{`{"jsonrpc":"2.0","id":2,"result":{},"result":{}}`, "2", true},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","method":"notifications/cancelled"}`, "", false},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`, "", false},
		{`{"jsonrpc":"2.0","result":{},"result":{}}`, "", true},
		{`{"jsonrpc":"2.0","id":1,"method":"x",` + strings.Repeat(`"k":1,`, 40) + `"z":0}`, "1", true},
	}
	for _, tt := range tests {
		_, err := ParseMessage([]byte(tt.raw))
		if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "more than once") {
			t.Errorf("ParseMessage(%.100s) error = %v, want a repeated member", tt.raw, err)
			continue
		}
		r := ErrorReply(err)
		if (r.Body != nil) != tt.answer {
			t.Errorf("%.100s: reply %s, want answered=%v", tt.raw, r.Body, tt.answer)
			continue
		}
		if !tt.answer {
			continue
		}
		var reply struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal(r.Body, &reply); err != nil || reply.Error.Code != CodeInvalidRequest || string(reply.ID) != tt.id {
			t.Errorf("%.100s: reply %s, want -32600 with id %q", tt.raw, r.Body, tt.id)
		}
	}
	// Many distinct members are no repetition.
	many := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{`
	for i := range 40 {
		many += `"k` + strings.Repeat("x", i) + `":1,`
	}
	if _, err := ParseMessage([]byte(many + `"z":0}}`)); err != nil {
		t.Errorf("40 distinct params members: %v", err)
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
		if m.Kind == KindRequest && !jsonrpc.ValidID(m.ID) {
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
