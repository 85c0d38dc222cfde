package model

import "go/token"

// AppsPath is the package generated code imports (as AppsAlias) to register
// MCP Apps views.
const AppsPath = RuntimePath + "/apps"

// AppsAlias is the local name of AppsPath in generated code.
const AppsAlias = "mcpapps"

// A View is an MCP Apps view: an HTML file of the package served as a ui://
// resource (//mcp:tool ... ui=FILE.html, //mcp:view ...).
type View struct {
	URI         string // ui://..., unique among the package's resources
	Name        string // programmatic name: the file's base name without extension unless name=
	Title       string `json:",omitempty"`
	Description string
	File        string // path of the HTML file relative to the package directory (go:embed)
	Var         string // the string variable holding the embedded file
	// CSP origins, in declaration order.
	Connect, Resource, Frame, BaseURI []string `json:",omitempty"`
	// Permissions are camera, microphone, geolocation, clipboardWrite.
	Permissions []string `json:",omitempty"`
	Domain      string   `json:",omitempty"`
	// Border is "", "true" or "false" (prefersBorder).
	Border string `json:",omitempty"`
	Pos    token.Position
}
