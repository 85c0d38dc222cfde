// Package sdktags is a tool package written in the official Go SDK's tag
// style (the whole jsonschema tag is the description), for
// TestGoSDKTagDescriptions: mcpgen -tags=gosdk must give each field the
// description the SDK gives it, and make the same properties required.
package sdktags

import "context"

// Forecast selects a forecast.
type Forecast struct {
	City string `json:"city" jsonschema:"the city to forecast, e.g. Paris"`
	// Days is shadowed by its tag, as in the SDK.
	Days   int      `json:"days,omitempty" jsonschema:"how many days ahead: 1, 2 or 3"`
	Where  *Place   `json:"where,omitempty" jsonschema:"where to look; null for anywhere"`
	Near   *Place   `json:"near" jsonschema:"a pointer without omitempty"`
	Stops  []Place  `json:"stops" jsonschema:"places on the way"`
	Tags   []string `json:"tags,omitempty" jsonschema:"labels \"quoted\" and\nover two lines"`
	Plain  string   `json:"plain"`
	Nested struct {
		Deep bool `json:"deep" jsonschema:"deep inside an anonymous struct"`
	} `json:"nested" jsonschema:"an anonymous struct"`
}

// Place is a point.
type Place struct {
	Lat float64 `json:"lat" jsonschema:"latitude in degrees"`
	Lon float64 `json:"lon" jsonschema:"longitude,in degrees"`
}

// Run echoes the forecast request.
//
//mcp:tool
func Run(ctx context.Context, in Forecast) (Forecast, error) { return in, nil }
