package ask

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// The actions of an ElicitResult.
const (
	Accept  = "accept"
	Decline = "decline"
	Cancel  = "cancel"
)

// ElicitParams is the params of an elicitation/create.
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// URLParams is the params of a URL-mode elicitation: 2025-11-25 requests get a
// fresh elicitationId; 2026-07-28 ones have none (requestState correlates them).
func URLParams(message, url string, modern bool) ElicitParams {
	p := ElicitParams{Mode: "url", Message: message, URL: url}
	if !modern {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		p.ElicitationID = hex.EncodeToString(b)
	}
	return p
}

// AcceptElicit decodes an ElicitResult. An accepted form (form true) must carry
// object content, which validate checks; declined and cancelled answers carry no
// content. The error is ErrMalformed or ErrInvalidAnswer (or validate's).
//
// The result is read strictly: members by their exact names ("Action" is not
// "action"), and an object (the result or its content) that names a member twice
// is malformed, so that no decoder's choice between two answers decides.
func AcceptElicit(raw json.RawMessage, form bool, validate func(content json.RawMessage) error) (action string, content json.RawMessage, err error) {
	var res struct {
		Action  string
		Content json.RawMessage
	}
	if !isObject(raw) || !json.Valid(raw) {
		return "", nil, fmt.Errorf("%w: not an ElicitResult", ErrMalformed)
	}
	bad := duplicateMember(raw)
	jsonwire.EachMember(raw, func(key, val []byte) {
		switch string(key) {
		case "action":
			s, ok := jsonwire.String(val)
			if !ok {
				bad = "action"
			}
			res.Action = s
		case "content":
			if string(val) != "null" {
				res.Content = val
			}
		}
	})
	if bad == "" && len(res.Content) > 0 && isObject(res.Content) {
		bad = duplicateMember(res.Content)
	}
	if bad != "" {
		return "", nil, fmt.Errorf("%w: ElicitResult member %q given twice or not a string", ErrMalformed, bad)
	}
	switch res.Action {
	case Accept:
	case Decline, Cancel:
		return res.Action, nil, nil
	default:
		return "", nil, fmt.Errorf("%w: unknown action %q", ErrMalformed, res.Action)
	}
	if form {
		if len(res.Content) == 0 || !isObject(res.Content) {
			return "", nil, fmt.Errorf("%w: accepted form without content", ErrInvalidAnswer)
		}
		if err := validate(res.Content); err != nil {
			return "", nil, err
		}
	}
	return Accept, res.Content, nil
}

// ConfirmKey is the inputRequests key of Tool.Confirm's consent question.
const ConfirmKey = "mcpgen.confirm"

// ConfirmSchema is the consent form: one checkbox, ticked by default.
var ConfirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","default":true}},"required":["confirm"]}`)

// Confirmed reports whether a consent answer accepts with the box ticked, and
// else names what the user answered. Only the exact form counts: one member,
// "confirm" (not "Confirm"), whose value is true; anything else is not a yes.
func Confirmed(action string, content json.RawMessage) (bool, string) {
	if action == Accept {
		n, yes := 0, false
		if isObject(content) && json.Valid(content) {
			jsonwire.EachMember(content, func(key, val []byte) {
				n++
				yes = string(key) == "confirm" && string(val) == "true"
			})
		}
		if n == 1 && yes {
			return true, ""
		}
		return false, "accept without confirming"
	}
	return false, action
}

// FillConfirm replaces each {field} of q with the call's value of that
// top-level argument (ConfirmValue), absent as "". {{ and }} are literal braces.
func FillConfirm(q string, args json.RawMessage) string {
	values := map[string]string{}
	jsonwire.EachMember(args, func(key, val []byte) {
		if s, ok := jsonwire.String(val); ok {
			values[string(key)] = ConfirmValue(s)
		} else {
			var buf bytes.Buffer
			if json.Compact(&buf, val) == nil {
				val = buf.Bytes()
			}
			values[string(key)] = confirmJSON(string(val))
		}
	})
	var sb strings.Builder
	for i := 0; i < len(q); i++ {
		switch {
		case strings.HasPrefix(q[i:], "{{"), strings.HasPrefix(q[i:], "}}"):
			sb.WriteByte(q[i])
			i++
		case q[i] == '{':
			end := strings.IndexByte(q[i:], '}')
			if end < 0 {
				sb.WriteString(q[i:])
				return sb.String()
			}
			sb.WriteString(values[q[i+1:i+end]])
			i += end
		default:
			sb.WriteByte(q[i])
		}
	}
	return sb.String()
}

// MaxConfirmValue is the most characters of one argument the consent question
// shows; a longer value is cut there and ends with "…".
const MaxConfirmValue = 120

// ConfirmValue is an argument as the consent question shows it. The model
// chose it, so it must not be able to rewrite the question the user reads: a
// plain word (ASCII letters, digits, '_', '.', '-', at most 64) or a number
// stands as is; anything else (spaces, quotes, newlines, bidi and other
// invisible controls) is quoted as a Go string literal, its control and
// format characters escaped (\n, \u202e), and cut at MaxConfirmValue
// characters.
func ConfirmValue(v string) string {
	if plainWord(v) {
		return v
	}
	if utf8.RuneCountInString(v) > MaxConfirmValue {
		n := 0
		for i := range v {
			if n == MaxConfirmValue {
				v = v[:i] + "…"
				break
			}
			n++
		}
	}
	return strconv.Quote(v)
}

// confirmJSON is a non-string argument (compact JSON) as the question shows
// it: as is when short printable ASCII (its strings are escaped already),
// else as ConfirmValue quotes it.
func confirmJSON(v string) string {
	if len(v) > MaxConfirmValue {
		return ConfirmValue(v)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return ConfirmValue(v)
		}
	}
	return v
}

// plainWord reports whether v is 1 to 64 ASCII letters, digits, '_', '.', '-'
// (and '+' or a leading '-' of a number).
func plainWord(v string) bool {
	if v == "" || len(v) > 64 {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}
