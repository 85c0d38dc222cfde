// Package mcpgotags is a tool package written in mcp-go's tag style, for
// TestMCPGoTagDescriptions: mcpgen -tags=mcpgo must give each field the
// description and enum mcp-go gives it.
package mcpgotags

import "context"

// Weather is a tool input in mcp-go's tag style (v0.58.0 and later):
// jsonschema_description, and text with enum= values in the jsonschema tag.
type Weather struct {
	Location string   `json:"location" jsonschema_description:"City or location"`
	Units    string   `json:"units,omitempty" jsonschema_description:"celsius or fahrenheit" jsonschema:"enum=celsius,enum=fahrenheit"`
	Order    string   `json:"order,omitempty" jsonschema:"the sort order,enum=asc,enum=desc"`
	Note     string   `json:"note,omitempty" jsonschema:"free text, any length"`
	Both     string   `json:"both,omitempty" jsonschema_description:"the tag wins" jsonschema:"the text loses"`
	Stations []string `json:"stations,omitempty" jsonschema:"station codes"`
	Plain    int      `json:"plain"`
}

// Report echoes the weather request.
//
//mcp:tool
func Report(ctx context.Context, in Weather) (Weather, error) { return in, nil }
