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

// MessageSeeds are JSON-RPC messages exercising a message decoder's corner cases
// (repeated members, escapes, nulls and wrong types where strings belong), for
// oracle tests and fuzz seeds.
var MessageSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "x\u0041" , "params" : { "cursor" : null , "name" : null } } `,
	`{"jsonrpc":"2.0","id":2,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"a"},"_meta":{"progressToken":3}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"m","params":{"_meta":null,"name":5,"uri":"u"}}`,
	`{"jsonrpc":"2.0","id":1,"method":0,"method":""}`, `{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`, `{"jsonrpc":"2.0","method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a","n\u0061me":"b"}}`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"progressToken":1,"progressToken":2}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":1,"a":2}}}`, `{"jsonrpc":"2.0","id":1,"x":1,"method":"m","x":2}`,
	`{"jsonrpc":"2.0","id":2,"method":"m","params":[1,{"a":"]"}]}`,
	`{"jsonrpc":"2.0","id":2,"method":"m","params":{"\u006eame":"n","level":"info","requestId":[1],"cursor":"c"}}`,
	`{"jsonrpc":"2.0","id":3,"result":null}`,
	`{"jsonrpc":"2.0","method":null,"id":4,"error":{"code":1}}`,
	`{"jsonrpc":"2.0","id":5,"method":"ping","result":{}}`, `{"jsonrpc":"2.0","method":"m","error":null}`,
	`{"jsonrpc":"2.0","id":-0,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":{"a":[{"b":"}\\"}]}],"z":1e5},"capabilities":true,"clientInfo":{}}}`,
	`{"jsonrpc":2,"id":1,"method":"m"}`, `{"jsonrpc":"2.0","id":1,"method":7}`, `[]`, `{`, `1`, `"s"`, `{}`,
}
