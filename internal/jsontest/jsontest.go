// Package jsontest holds JSON helpers shared by the repository's tests: oracles
// written with encoding/json, independent of the runtime's own scanners.
package jsontest

import (
	"bytes"
	"encoding/json"
)

// RepeatsName reports whether an object anywhere in the JSON document data repeats
// a member name (compared after unescaping, as encoding/json reads them). The
// runtime refuses such arguments before validation, while a schema validator reads
// the last occurrence. A document that is not valid JSON reports false up to the
// point where it stops parsing.
func RepeatsName(data []byte) bool {
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.keys != nil && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string)
			if top.keys[key] {
				return true
			}
			top.keys[key], top.wantKey = true, false
			continue
		}
		if top != nil && top.keys != nil {
			top.wantKey = true // this token is a member's value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}
