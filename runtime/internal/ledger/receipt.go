package ledger

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// AppendReceipt appends the JSON of an execution receipt (runtime.Receipt),
// byte for byte what json.Marshal writes for it: receipts are written on every
// successful write. argsDigest is the hex digest (the receipt says "sha256:").
func AppendReceipt(b []byte, action, tool, argsDigest, externalID, status string, at time.Time) []byte {
	b = append(b, `{"action_id":`...)
	b = appendMarshalString(b, action)
	b = append(b, `,"tool":`...)
	b = appendMarshalString(b, tool)
	b = append(b, `,"arguments_digest":"sha256:`...)
	b = append(b, argsDigest...) // hex
	b = append(b, '"')
	if externalID != "" {
		b = append(b, `,"external_id":`...)
		b = appendMarshalString(b, externalID)
	}
	b = append(b, `,"status":`...)
	b = appendMarshalString(b, status)
	b = append(b, `,"occurred_at":"`...)
	b = at.AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

// appendMarshalString appends s as json.Marshal encodes it (with HTML escaping).
func appendMarshalString(b []byte, s string) []byte {
	if strings.ContainsAny(s, "<>&") {
		enc, _ := json.Marshal(s) // a string: cannot fail
		return append(b, enc...)
	}
	return jsonwire.AppendString(b, s)
}

// KeyArgument returns the string member name of args, arguments the tool's
// input schema accepted (a valid JSON object), "" when absent or not a string:
// the call's idempotency key, as json.Unmarshal into a map would find it (the
// last of repeated members), without the map or a second validity scan.
//
// A key without escapes (the common case) is not copied: the string shares
// args's memory, so the caller must not change args while it uses the key (the
// runtime digests it before the handler runs, and a call's arguments stay as
// they are for the whole call).
func KeyArgument(args []byte, name string) string {
	raw := eachMember(jsonwire.TrimSpace(args), name)
	if len(raw) < 2 || raw[0] != '"' {
		return ""
	}
	if inner := raw[1 : len(raw)-1]; len(inner) > 0 && !jsonwire.ContainsByte(inner, '\\') {
		return unsafe.String(&inner[0], len(inner))
	}
	return stringValue(raw)
}

// stringMember is KeyArgument for any bytes: "" unless obj is a JSON object
// (tests compare both with json.Unmarshal).
func stringMember(obj []byte, name string) string {
	return stringValue(member(obj, name))
}

// IDMember returns member name of the JSON object obj as an id (a receipt's
// external id): a string as is, a number as written; "" for anything else.
func IDMember(obj []byte, name string) string {
	raw := member(obj, name)
	switch {
	case len(raw) == 0:
		return ""
	case raw[0] == '"':
		v, _ := jsonwire.String(raw)
		return v
	case jsonwire.IsNumberStart(raw[0]):
		return string(raw)
	}
	return ""
}

// stringValue decodes raw when it is a JSON string, else "".
func stringValue(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	v, _ := jsonwire.String(raw)
	return v
}

// member returns the raw value of member name of the JSON object obj (the last
// one when repeated), nil when obj is not an object or has none.
func member(obj []byte, name string) []byte {
	obj = jsonwire.TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' || !jsonwire.Valid(obj) {
		return nil
	}
	return eachMember(obj, name)
}

// eachMember is member for a valid JSON object.
func eachMember(obj []byte, name string) []byte {
	var found []byte
	jsonwire.EachMember(obj, func(key, val []byte) {
		if string(key) == name {
			found = val
		}
	})
	return found
}

// AppendShortReceipt appends the short form of a receipt, what a done record
// on an in-process store (Claim.Private) keeps of it: [external id, status,
// occurred_at in Unix nanoseconds]. The rest of a receipt is the action id, the
// tool and the arguments' digest, which a replay has (its own, equal to the
// first call's): ExpandReceipt rebuilds the receipt from them.
func AppendShortReceipt(b []byte, externalID, status string, at time.Time) []byte {
	b = append(jsonwire.AppendString(append(b, '['), externalID), ',')
	b = append(jsonwire.AppendString(b, status), ',')
	return append(strconv.AppendInt(b, at.UnixNano(), 10), ']')
}

// ExpandReceipt appends the receipt whose short form (AppendShortReceipt) is
// short, of the action id, tool and arguments' digest given: byte for byte the
// receipt AppendReceipt wrote for the first call.
func ExpandReceipt(b, short []byte, action, tool, argsDigest string) ([]byte, error) {
	var parts []json.RawMessage
	var ext, status string
	var at int64
	if err := json.Unmarshal(short, &parts); err != nil || len(parts) != 3 ||
		json.Unmarshal(parts[0], &ext) != nil || json.Unmarshal(parts[1], &status) != nil || json.Unmarshal(parts[2], &at) != nil {
		return nil, errors.New("idempotency: stored receipt is not [external id, status, time]")
	}
	return AppendReceipt(b, action, tool, argsDigest, ext, status, time.Unix(0, at).UTC()), nil
}
