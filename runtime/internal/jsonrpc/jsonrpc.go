// Package jsonrpc reads and writes JSON-RPC 2.0 frames: the members of a message,
// the checks of its version, id and method, and the encoding of responses and
// notifications. What a message means to MCP is the runtime's.
package jsonrpc

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// A Frame is the JSON-RPC frame of any message: raw members, nil when absent.
type Frame struct {
	JSONRPC, ID, Method, Params, Result, Error []byte

	keys       jsonwire.KeySet
	Repeated   []byte // the first member name that appears twice, or nil
	IDRepeated bool   // the id itself appears twice: it cannot be echoed
}

// Set stores one member of the frame (a jsonwire.EachMember callback).
func (e *Frame) Set(key, val []byte) {
	if e.keys.Add(key) {
		if e.Repeated == nil {
			e.Repeated = key
		}
		e.IDRepeated = e.IDRepeated || string(key) == "id"
	}
	switch string(key) {
	case "jsonrpc":
		e.JSONRPC = val
	case "id":
		e.ID = val
	case "method":
		e.Method = val
	case "params":
		e.Params = val
	case "result":
		e.Result = val
	case "error":
		e.Error = val
	}
}

// IsVersion20 reports whether the raw jsonrpc member is the string "2.0".
func IsVersion20(raw []byte) bool {
	if string(raw) == `"2.0"` {
		return true
	}
	v, _ := jsonwire.String(raw)
	return v == "2.0"
}

// MethodName decodes a raw method name, reporting whether it is a string. The names
// the runtime knows come back without allocating.
func MethodName(raw []byte) (string, bool) {
	if len(raw) > 2 && raw[0] == '"' {
		switch string(raw[1 : len(raw)-1]) {
		case "tools/call":
			return "tools/call", true
		case "tools/list":
			return "tools/list", true
		case "notifications/progress":
			return "notifications/progress", true
		case "notifications/cancelled":
			return "notifications/cancelled", true
		case "ping":
			return "ping", true
		}
	}
	return jsonwire.String(raw)
}

// ValidID reports whether id is a JSON string or integer (never null, fractional or an
// object).
func ValidID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		return true
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ErrorResponse encodes a JSON-RPC error response. A nil id is omitted (the request's
// id could not be read); data is omitted when nil.
func ErrorResponse(id json.RawMessage, code int, message string, data any) []byte {
	b := make([]byte, 0, 96+len(message))
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = jsonwire.AppendString(b, message)
	if data != nil {
		if enc, err := json.Marshal(data); err == nil {
			b = append(b, `,"data":`...)
			b = append(b, enc...)
		}
	}
	return append(b, "}}"...)
}

// ResultResponse encodes a JSON-RPC result response around an encoded result.
func ResultResponse(id json.RawMessage, result []byte) []byte {
	b := make([]byte, 0, len(result)+len(id)+36)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// CompleteResult returns the 2026-07-28 form of the result object obj:
// "resultType":"complete" and "_meta":meta (the server's identity) added
// unless obj has them already (typed, hasMeta); obj itself when it has both.
func CompleteResult(obj, meta []byte, typed, hasMeta bool) []byte {
	if typed && hasMeta {
		return obj
	}
	b := make([]byte, 0, len(obj)+len(meta)+40)
	b = append(b, obj[:len(obj)-1]...)
	sep := len(jsonwire.TrimSpace(obj[1:len(obj)-1])) > 0
	if !typed {
		if sep {
			b = append(b, ',')
		}
		b, sep = append(b, `"resultType":"complete"`...), true
	}
	if !hasMeta {
		if sep {
			b = append(b, ',')
		}
		b = append(append(b, `"_meta":`...), meta...)
	}
	return append(b, '}')
}

// LogLevel returns the severity of an MCP log level (0 for "debug" up to 7
// for "emergency"), or -1 if it is unknown.
func LogLevel(level string) int {
	levels := [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	return slices.Index(levels[:], level)
}

// ProgressParams is the params of notifications/progress.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// LogParams is the params of notifications/message.
type LogParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Notification encodes a JSON-RPC notification.
func Notification(method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	b := make([]byte, 0, len(p)+len(method)+40)
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	b = jsonwire.AppendString(b, method)
	b = append(b, `,"params":`...)
	b = append(b, p...)
	return append(b, '}'), nil
}
