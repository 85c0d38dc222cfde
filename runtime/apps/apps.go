// Package apps serves MCP Apps views (the io.modelcontextprotocol/ui
// extension, SEP-1865): HTML documents under ui:// URIs that a host renders
// in a sandboxed iframe next to a tool's result, and the metadata that links
// a tool to its view.
//
// Generated code calls AddView for every view a package declares
// (//mcp:tool ... ui=FILE.html, //mcp:view ...; docs/apps.md) and sets each
// linked tool's Tool.Meta to ToolMeta's object. Hand-written servers do the
// same:
//
//	apps.AddView(s, &apps.View{URI: "ui://incidents/board", HTML: boardHTML,
//		PrefersBorder: apps.BorderOn})
//	s.AddTool(&mcpruntime.Tool{Name: "list_incidents", ...,
//		Meta: apps.ToolMeta("ui://incidents/board")})
//
// The runtime core never imports this package.
package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// ExtensionID identifies MCP Apps in the capabilities' extensions map.
const ExtensionID = "io.modelcontextprotocol/ui"

// MIMEType is the media type of an HTML view.
const MIMEType = "text/html;profile=mcp-app"

// Visibility values of a tool (ToolMeta): who may see and call it.
const (
	// VisibleToModel: the model sees the tool in the host's tool list.
	VisibleToModel = "model"
	// VisibleToApp: views of the same server may call the tool.
	VisibleToApp = "app"
)

// A Border is a view's prefersBorder: whether the host draws a border and
// background around it.
type Border int

// The Border values.
const (
	BorderDefault Border = iota // omitted: the host decides
	BorderOn                    // prefersBorder: true
	BorderOff                   // prefersBorder: false
)

// CSP lists the origins a view may reach beyond its own document; the host
// builds the iframe's Content-Security-Policy from them and allows nothing
// else. Empty lists are the spec's restrictive defaults.
type CSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`  // fetch, XHR, WebSocket: connect-src
	ResourceDomains []string `json:"resourceDomains,omitempty"` // scripts, styles, images, fonts, media
	FrameDomains    []string `json:"frameDomains,omitempty"`    // nested iframes: frame-src
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`  // base-uri
}

// A View is one HTML view served as a ui:// resource.
type View struct {
	// URI is the view's ui:// URI, unique on the server.
	URI string
	// Name is its programmatic name; empty means the URI.
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description says what the view shows.
	Description string
	// HTML is the document: an HTML5 document (<!doctype html>).
	HTML string
	// CSP is the origins the view needs.
	CSP CSP
	// Permissions are the browser features the view asks for: camera,
	// microphone, geolocation, clipboardWrite. Hosts may refuse them.
	Permissions []string
	// Domain is a dedicated sandbox origin for the view, in the host's format.
	Domain string
	// PrefersBorder asks the host for a border and background, or none.
	PrefersBorder Border
}

// uiMeta is the _meta.ui object of a view's contents.
type uiMeta struct {
	CSP           *CSP                       `json:"csp,omitempty"`
	Permissions   map[string]json.RawMessage `json:"permissions,omitempty"`
	Domain        string                     `json:"domain,omitempty"`
	PrefersBorder *bool                      `json:"prefersBorder,omitempty"`
}

// Meta returns the view's _meta object ({"ui": {...}}), as resources/read
// sends it on the view's contents.
func (v *View) Meta() map[string]any {
	m := uiMeta{Domain: v.Domain}
	if len(v.CSP.ConnectDomains)+len(v.CSP.ResourceDomains)+len(v.CSP.FrameDomains)+len(v.CSP.BaseURIDomains) > 0 {
		csp := v.CSP
		m.CSP = &csp
	}
	if len(v.Permissions) > 0 {
		m.Permissions = map[string]json.RawMessage{}
		for _, p := range v.Permissions {
			m.Permissions[p] = json.RawMessage(`{}`)
		}
	}
	if v.PrefersBorder != BorderDefault {
		b := v.PrefersBorder == BorderOn
		m.PrefersBorder = &b
	}
	return map[string]any{"ui": m}
}

// AddView registers v as a resource of s: resources/read returns its HTML
// with the MIME type MIMEType and the view's _meta.ui (CSP, permissions,
// domain, border). It panics when the URI is not a ui:// URI, as AddResource
// panics on a programmer error.
func AddView(s *mcpruntime.Server, v *View) {
	if !strings.HasPrefix(v.URI, "ui://") {
		panic(fmt.Sprintf("mcpgen apps: AddView: %q is not a ui:// URI", v.URI))
	}
	meta := v.Meta()
	html := v.HTML
	s.AddResource(&mcpruntime.Resource{
		URI: v.URI, Name: v.Name, Title: v.Title, Description: v.Description, MIMEType: MIMEType,
		Handler: func(context.Context, *mcpruntime.ResourceRequest) (*mcpruntime.ResourceResult, error) {
			return mcpruntime.ContentsResource(mcpruntime.ResourceContents{
				URI: v.URI, MIMEType: MIMEType, Text: html, Meta: meta}), nil
		},
	})
}

// ToolMeta returns a tool's _meta object linking it to the view at
// resourceURI ("" for none) with the given visibility (none: the default,
// model and app), for Tool.Meta.
func ToolMeta(resourceURI string, visibility ...string) json.RawMessage {
	ui := struct {
		ResourceURI string   `json:"resourceUri,omitempty"`
		Visibility  []string `json:"visibility,omitempty"`
	}{resourceURI, visibility}
	b, err := json.Marshal(map[string]any{"ui": ui})
	if err != nil {
		panic(err) // strings only
	}
	return b
}
