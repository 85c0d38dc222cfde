package jsonrpc

// read.go: reading one message's frame and deciding its kind, with the error
// owed for a message that is not one.

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

var (
	// ErrParse reports a message that is not valid JSON.
	ErrParse = errors.New("parse error")
	// ErrInvalidRequest reports a JSON value that is not a valid JSON-RPC message.
	ErrInvalidRequest = errors.New("invalid request")
)

// A Refusal is a message Read rejected, with what is needed to answer it.
type Refusal struct {
	Err    error           // wraps ErrParse or ErrInvalidRequest
	ID     json.RawMessage // readable id, or nil
	Answer bool            // false for malformed notifications, which are never answered
}

func (e *Refusal) Error() string { return e.Err.Error() }
func (e *Refusal) Unwrap() error { return e.Err }

// The kinds of message Read tells apart.
const (
	KindRequest = iota + 1
	KindNotification
	KindResponse
)

// Read reads the frame of one message (raw with JSON white space trimmed) into
// env and decides its kind: a request or notification (method set), or a
// response. A batch, a non-object, repeated members and broken frames are
// refused.
func Read(trimmed []byte, env *Frame) (kind int, method string, refusal *Refusal) {
	if !jsonwire.Valid(trimmed) {
		return 0, "", &Refusal{Err: fmt.Errorf("%w: invalid JSON", ErrParse), Answer: true}
	}
	switch trimmed[0] {
	case '[':
		return 0, "", &Refusal{Err: fmt.Errorf("%w: batches are not supported", ErrInvalidRequest), Answer: true}
	case '{':
	default:
		return 0, "", &Refusal{Err: fmt.Errorf("%w: not a JSON object", ErrInvalidRequest), Answer: true}
	}
	jsonwire.EachMember(trimmed, env.Set)
	if env.Repeated != nil {
		// Parsers that keep the first or the last of them would read different
		// messages. It is answered (without an id when the id itself is
		// repeated) unless it is a notification whichever member counts.
		r := &Refusal{Err: RepeatedMember(env.Repeated, ""), Answer: env.ID != nil || env.Method == nil}
		if !env.IDRepeated && ValidID(env.ID) {
			r.ID = env.ID
		}
		return 0, "", r
	}
	return env.kind()
}

// kind checks the frame and decides the message's kind.
func (env *Frame) kind() (int, string, *Refusal) {
	method, hasMethod := MethodName(env.Method)
	idOK := env.ID == nil || ValidID(env.ID)
	isNotification := hasMethod && env.ID == nil
	bad := func(why string) *Refusal {
		e := &Refusal{Err: fmt.Errorf("%w: %s", ErrInvalidRequest, why), Answer: !isNotification}
		if idOK {
			e.ID = env.ID
		}
		return e
	}
	switch {
	case !IsVersion20(env.JSONRPC):
		return 0, "", bad(`jsonrpc must be "2.0"`)
	case !idOK:
		return 0, "", bad("id must be a string or an integer")
	case env.Method != nil && !hasMethod && string(env.Method) != "null":
		return 0, "", bad("method must be a string")
	case hasMethod && (env.Result != nil || env.Error != nil):
		return 0, "", bad("a message cannot be both a request and a response")
	case hasMethod && isNotification:
		return KindNotification, method, nil
	case hasMethod:
		return KindRequest, method, nil
	case env.ID != nil && (env.Result != nil || env.Error != nil):
		return KindResponse, "", nil
	}
	return 0, "", bad("no method")
}

// RepeatedMember is the error for a member name repeated in an object (in
// names the object, "" for the message itself).
func RepeatedMember(key []byte, in string) error {
	const max = 64
	k := string(key)
	if len(k) > max {
		k = k[:max] + "…"
	}
	if in != "" {
		in = " in " + in
	}
	return fmt.Errorf("%w: member %q appears more than once%s", ErrInvalidRequest, k, in)
}
