package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/internal/jsontest"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// This file keeps the first, reflection-based message decoder as an oracle for the
// hand-written one in jsonrpc.go and internal/jsonwire.

// oracleEnvelope is the JSON-RPC frame decoded by encoding/json.
type oracleEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// oracleParse decodes a message with encoding/json. It returns ErrParse or
// ErrInvalidRequest on failure.
func oracleParse(raw []byte) (*Message, error) {
	trimmed := jsonwire.TrimSpace(raw) // JSON whitespace only (bytes.TrimSpace also drops \v)
	if !json.Valid(trimmed) {
		return nil, ErrParse
	}
	if trimmed[0] == '[' {
		return nil, ErrInvalidRequest
	}
	if _, repeated := oracleMembers(trimmed); repeated {
		return nil, ErrInvalidRequest
	}
	var env oracleEnvelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return nil, ErrInvalidRequest
	}
	m, err := oracleFrame(&env)
	if err != nil {
		return nil, err
	}
	if members, repeated := oracleMembers(m.Params); repeated {
		return nil, ErrInvalidRequest
	} else if _, repeated := oracleMembers(members["_meta"]); repeated {
		return nil, ErrInvalidRequest
	}
	if len(m.Params) > 0 && string(m.Params) != "null" {
		m.paramsErr = json.Unmarshal(m.Params, &m.params)
	}
	return m, nil
}

// oracleMembers reads the members of raw, when it is a JSON object, with
// encoding/json's tokenizer, and reports whether a name (unescaped) repeats.
func oracleMembers(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, false
		}
		key := tok.(string)
		if _, ok := members[key]; ok {
			return members, true
		}
		members[key] = val
	}
	return members, false
}

// oracleFrame decides the kind of a decoded frame.
func oracleFrame(env *oracleEnvelope) (*Message, error) {
	switch {
	case env.JSONRPC != "2.0", env.ID != nil && !jsonrpc.ValidID(env.ID):
		return nil, ErrInvalidRequest
	case env.Method != nil && (env.Result != nil || env.Error != nil):
		return nil, ErrInvalidRequest
	case env.Method != nil:
		m := &Message{Kind: KindRequest, ID: env.ID, Method: *env.Method, Params: env.Params}
		if env.ID == nil {
			m.Kind = KindNotification
		}
		return m, nil
	case env.ID != nil && (env.Result != nil || env.Error != nil):
		return &Message{Kind: KindResponse, ID: env.ID, Result: env.Result, Error: env.Error}, nil
	}
	return nil, ErrInvalidRequest
}

// sameMessage compares what the runtime reads from two decoded messages.
func sameMessage(got, want *Message) error {
	type frame struct {
		Kind                                       Kind
		ID, Method, Params, Result, Error          string
		ParamsErr                                  bool
		Name, URI, Level, Version, Args, Caps, Inf string
		ReqID                                      string
	}
	f := func(m *Message) frame {
		p := m.params
		return frame{m.Kind, string(m.ID), m.Method, string(m.Params), string(m.Result), string(m.Error),
			m.paramsErr != nil, p.Name, p.URI, p.Level, p.ProtocolVersion, string(p.Arguments),
			string(p.Capabilities), string(p.ClientInfo), string(p.RequestID)}
	}
	if f(got) != f(want) {
		return fmt.Errorf("got %+v\nwant %+v", f(got), f(want))
	}
	if got.paramsErr != nil {
		return nil // partial decodes of wrong-typed params may differ; both are -32602
	}
	if c1, c2 := got.params.Cursor, want.params.Cursor; (c1 == nil) != (c2 == nil) || c1 != nil && *c1 != *c2 {
		return fmt.Errorf("cursor %v, want %v", c1, c2)
	}
	var m1, m2 requestMeta
	if got.params.Meta != nil {
		m1 = *got.params.Meta
	}
	if want.params.Meta != nil {
		m2 = *want.params.Meta
	}
	if fmt.Sprintf("%s", m1) != fmt.Sprintf("%s", m2) {
		return fmt.Errorf("_meta %s, want %s", m1, m2)
	}
	return nil
}

// checkAgainstOracle compares ParseMessage with the oracle on one input.
func checkAgainstOracle(t *testing.T, raw []byte) {
	t.Helper()
	if !utf8.Valid(raw) || bytes.ContainsFunc(raw, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
		return // encoding/json rewrites invalid UTF-8 and matches keys case-insensitively
	}
	want, wantErr := oracleParse(raw)
	got, err := ParseMessage(raw)
	switch {
	case wantErr != nil:
		if !errors.Is(err, wantErr) {
			t.Fatalf("%q: error %v, want %v", raw, err, wantErr)
		}
	case err != nil:
		t.Fatalf("%q: error %v, want %+v", raw, err, want)
	default:
		if d := sameMessage(got, want); d != nil {
			t.Fatalf("%q: %v", raw, d)
		}
	}
}

func TestParseMessageMatchesOracle(t *testing.T) {
	for _, seed := range jsontest.MessageSeeds {
		checkAgainstOracle(t, []byte(seed))
	}
}

func FuzzParseMessageOracle(f *testing.F) {
	for _, seed := range jsontest.MessageSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(checkAgainstOracle)
}
