package model

import (
	"encoding/json"
	"go/token"
)

// A Form is a struct type a package passes to mcpruntime.Elicit. RegisterMCP
// registers Schema for it with mcpruntime.AddForm.
type Form struct {
	// PkgPath and TypeName name the struct type.
	PkgPath, TypeName string
	// Var is the name of the generated variable holding Schema.
	Var string
	// Schema is the elicitation requestedSchema (indented JSON): a flat object of
	// primitive and enum properties.
	Schema json.RawMessage
	// Pos is the first mcpruntime.Elicit call with this type.
	Pos token.Position
}
