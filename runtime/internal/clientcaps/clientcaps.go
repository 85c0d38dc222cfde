// Package clientcaps names the client capabilities a server-to-client
// question needs (elicitation in form or URL mode, sampling, roots): how a
// handler names them, whether a ClientCapabilities object declares them, and
// what a -32021 error reports as required.
package clientcaps

import "encoding/json"

// A Capability is what a question needs the client to have declared.
type Capability int

const (
	ElicitForm Capability = iota
	ElicitURL
	Sampling
	Roots
)

// Name is the Capability as the -32021 message names it.
func (k Capability) Name() string {
	return [...]string{"elicitation", "elicitation.url", "sampling", "roots"}[k]
}

// Required is data.requiredCapabilities for a -32021.
func (k Capability) Required() map[string]any {
	empty := map[string]any{}
	switch k {
	case ElicitURL:
		return map[string]any{"elicitation": map[string]any{"url": empty}}
	case Sampling:
		return map[string]any{"sampling": empty}
	case Roots:
		return map[string]any{"roots": empty}
	}
	return map[string]any{"elicitation": empty}
}

// Declared reports whether caps (a ClientCapabilities object) declares k. An empty
// elicitation object means form mode only.
func (k Capability) Declared(caps json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil {
		return false
	}
	switch k {
	case Sampling:
		return isObject(m["sampling"])
	case Roots:
		return isObject(m["roots"])
	}
	var el map[string]json.RawMessage
	if !isObject(m["elicitation"]) || json.Unmarshal(m["elicitation"], &el) != nil {
		return false
	}
	_, form := el["form"]
	_, url := el["url"]
	if k == ElicitURL {
		return url
	}
	return form || !url
}

// Named returns the capability a handler names (as Name gives it).
func Named(what string) (Capability, bool) {
	for k := ElicitForm; k <= Roots; k++ {
		if k.Name() == what {
			return k, true
		}
	}
	return 0, false
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
