// Package apps serves MCP Apps views (the io.modelcontextprotocol/ui
// extension, SEP-1865): HTML documents under ui:// URIs that a host renders
// in a sandboxed iframe next to a tool's result, and the metadata that links
// a tool to its view.
//
// Generated code calls Register, then AddView for every view a package
// declares (//mcp:tool ... ui=FILE.html, //mcp:view ...; docs/apps.md), and
// sets each linked tool's Tool.Meta to ToolMeta's object. Hand-written servers
// do the same:
//
//	apps.Register(s)
//	apps.AddView(s, &apps.View{URI: "ui://incidents/board", HTML: boardHTML,
//		PrefersBorder: apps.BorderOn})
//	s.AddTool(&mcpruntime.Tool{Name: "list_incidents", ...,
//		Meta: apps.ToolMeta("ui://incidents/board")})
//
// Register adds the extension (runtime.Extension) that negotiates MCP Apps:
// the server advertises io.modelcontextprotocol/ui under
// capabilities.extensions (server/discover; initialize for 2025-11-25), and
// reads the client's declaration of it (per request in 2026-07-28, from
// initialize before). A client that declared it with the HTML view type
// (Supported) sees tools/list unchanged; any other client, and any client
// of a revision before 2025-06-18 (whose Tool object has no _meta), is
// served plain tools: each tool without its _meta.ui, and no app-only tool
// (visibility ["app"]), which stays callable. The runtime core never imports
// this package.
package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

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

// A ToolUI is a tool's _meta.ui: its view and who may call it.
type ToolUI struct {
	// ResourceURI is the ui:// URI of the tool's view; "" for none.
	ResourceURI string `json:"resourceUri,omitempty"`
	// Visibility is VisibleToModel, VisibleToApp or both; empty means both.
	Visibility []string `json:"visibility,omitempty"`
}

// ToolMeta returns a tool's _meta object linking it to the view at
// resourceURI ("" for none) with the given visibility (none: the default,
// model and app), for Tool.Meta.
func ToolMeta(resourceURI string, visibility ...string) map[string]any {
	return map[string]any{"ui": ToolUI{ResourceURI: resourceURI, Visibility: visibility}}
}

// settings is what the server advertises: the view types it serves.
var settings = json.RawMessage(`{"mimeTypes":["` + MIMEType + `"]}`)

// Register adds the MCP Apps extension to s, once (later calls do nothing).
// It panics when s refuses it, as AddTool panics on a programmer error.
func Register(s *mcpruntime.Server) {
	for _, x := range s.Extensions() {
		if x.ID == ExtensionID {
			return
		}
	}
	var plain sync.Map // *mcpruntime.Tool -> *mcpruntime.Tool: each tool's plain form, made once
	s.MustUse(&mcpruntime.Extension{
		ID:       ExtensionID,
		Settings: settings,
		ToolsList: &mcpruntime.ToolsView{
			Variant: func(info *mcpruntime.RequestInfo) uint8 {
				if supported(info) {
					return 0
				}
				return 1
			},
			Show: func(_ uint8, t *mcpruntime.Tool) *mcpruntime.Tool { return plainTool(&plain, t) },
		},
	})
}

// ModelVisible reports whether a model may see and call t: its _meta.ui
// visibility includes VisibleToModel, or it has none (the default). Hosts
// that offer the server's tools to a model directly (runtime/modelcall) leave
// the others out, as the spec asks of MCP Apps hosts.
func ModelVisible(t *mcpruntime.Tool) bool {
	ui, ok := toolUI(t)
	return !ok || len(ui.Visibility) == 0 || slices.Contains(ui.Visibility, VisibleToModel)
}

// Supported reports whether the client of the request in ctx declared MCP
// Apps with the HTML view type (capabilities.extensions
// ["io.modelcontextprotocol/ui"].mimeTypes holds MIMEType) in a revision
// whose Tool object carries _meta. A handler may use it to shape its text
// for hosts that show no view.
func Supported(ctx context.Context) bool { return supported(mcpruntime.RequestFrom(ctx)) }

// firstToolMeta is the first revision whose Tool object has _meta: older
// ones cannot carry a tool's _meta.ui (the runtime shapes tools/list to the
// revision), so their clients are served plain tools.
const firstToolMeta = "2025-06-18"

// supported is Supported for a request's info.
func supported(info *mcpruntime.RequestInfo) bool {
	if info == nil || (!info.Modern && info.ProtocolVersion < firstToolMeta) {
		return false
	}
	raw, ok := mcpruntime.ClientExtensionOf(info, ExtensionID)
	if !ok {
		return false
	}
	var ext struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	return json.Unmarshal(raw, &ext) == nil && slices.Contains(ext.MIMETypes, MIMEType)
}

// plainTool is t as a client without MCP Apps sees it: nil for an app-only
// tool (hidden), else t without _meta.ui (a copy kept in cache, so that the
// same tool always gets the same pointer), or t itself when it has none.
func plainTool(cache *sync.Map, t *mcpruntime.Tool) *mcpruntime.Tool {
	ui, ok := toolUI(t)
	if !ok {
		return t
	}
	if len(ui.Visibility) > 0 && !slices.Contains(ui.Visibility, VisibleToModel) {
		return nil
	}
	if p, ok := cache.Load(t); ok {
		return p.(*mcpruntime.Tool)
	}
	cp := *t
	cp.Meta = nil
	for k, v := range t.Meta {
		if k != "ui" {
			if cp.Meta == nil {
				cp.Meta = map[string]any{}
			}
			cp.Meta[k] = v
		}
	}
	p, _ := cache.LoadOrStore(t, &cp)
	return p.(*mcpruntime.Tool)
}

// toolUI reads t's _meta.ui, whatever Go value holds it.
func toolUI(t *mcpruntime.Tool) (ToolUI, bool) {
	v, ok := t.Meta["ui"]
	if !ok {
		return ToolUI{}, false
	}
	if ui, ok := v.(ToolUI); ok {
		return ui, true
	}
	var ui ToolUI
	b, err := json.Marshal(v)
	if err != nil || json.Unmarshal(b, &ui) != nil {
		return ToolUI{}, true // a _meta.ui of another shape: still MCP Apps metadata
	}
	return ui, true
}
