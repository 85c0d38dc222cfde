package jsonwire

import (
	"bytes"
	"encoding/json"
)

// Canonical returns args re-encoded by encoding/json (object keys sorted, no
// spaces, numbers kept as written), so that two encodings of the same value
// compare equal: absent, empty and null arguments are "{}", and bytes that do
// not decode are returned as they are. Digests of arguments (requestState
// bindings, idempotency and receipts) are taken of it.
func Canonical(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		return []byte("{}")
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return b
}
