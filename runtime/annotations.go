package runtime

// annotations.go: the wire form of ToolAnnotations, every hint stated when the
// author decided each one.

import "encoding/json"

// MarshalJSON writes the annotations object: the hints that are true, or all four
// when Stated is set.
func (a ToolAnnotations) MarshalJSON() ([]byte, error) {
	type plain struct {
		Title           string `json:"title,omitempty"`
		ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
		DestructiveHint bool   `json:"destructiveHint,omitempty"`
		IdempotentHint  bool   `json:"idempotentHint,omitempty"`
		OpenWorldHint   bool   `json:"openWorldHint,omitempty"`
	}
	if !a.Stated {
		return json.Marshal(plain{a.Title, a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint})
	}
	return json.Marshal(struct {
		Title           string `json:"title,omitempty"`
		ReadOnlyHint    bool   `json:"readOnlyHint"`
		DestructiveHint bool   `json:"destructiveHint"`
		IdempotentHint  bool   `json:"idempotentHint"`
		OpenWorldHint   bool   `json:"openWorldHint"`
	}{a.Title, a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint})
}
