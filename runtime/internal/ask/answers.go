package ask

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

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
func AcceptElicit(raw json.RawMessage, form bool, validate func(content json.RawMessage) error) (action string, content json.RawMessage, err error) {
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content,omitempty"`
	}
	if !isObject(raw) || json.Unmarshal(raw, &res) != nil {
		return "", nil, fmt.Errorf("%w: not an ElicitResult", ErrMalformed)
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
// else names what the user answered.
func Confirmed(action string, content json.RawMessage) (bool, string) {
	if action == Accept {
		var form struct {
			Confirm bool `json:"confirm"`
		}
		if json.Unmarshal(content, &form) == nil && form.Confirm {
			return true, ""
		}
		return false, "accept without confirming"
	}
	return false, action
}

// FillConfirm replaces each {field} of q with the call's value of that
// top-level argument: a string as is, anything else as JSON, absent as "".
// {{ and }} are literal braces.
func FillConfirm(q string, args json.RawMessage) string {
	values := map[string]string{}
	jsonwire.EachMember(args, func(key, val []byte) {
		if s, ok := jsonwire.String(val); ok {
			values[string(key)] = s
		} else {
			values[string(key)] = string(val)
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
