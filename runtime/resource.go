package runtime

// resource.go: the resource types generated code and handlers use: Resource,
// ResourceTemplate, their contents.

import (
	"context"
	"errors"
	"time"
)

// ErrResourceNotFound reports a resources/read of a URI the server does not
// have. A ResourceHandler returns it (wrapped or not) when its URI names
// nothing; the runtime answers -32002 to 2025-11-25 clients and -32602 to
// 2026-07-28 clients, both with data {"uri": ...}. An error wrapping
// fs.ErrNotExist (os.Open or fs.ReadFile of a missing file) is answered the
// same way, its text (a path) never sent. Generated template adapters return it
// when a variable does not parse as its Go type.
var ErrResourceNotFound = errors.New("resource not found")

// A Resource is one directly listed resource (resources/list) and the handler
// that reads it.
type Resource struct {
	// URI identifies the resource, e.g. "runbook://payments/current".
	URI string
	// Name is its programmatic name; empty means the URI.
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells the model what the resource holds.
	Description string
	// MIMEType is the media type of its contents, if known. Contents without a
	// MIME type of their own get this one.
	MIMEType string
	// Scopes are the OAuth scopes a request needs, all of them (authorize.go).
	Scopes []string
	// Handler reads the resource.
	Handler ResourceHandler
}

// A ResourceTemplate is a family of resources named by an RFC 6570 URI
// template such as "notes://{name}", "file:///{+path}",
// "repo://{owner}{/path*}" or "search://items{?q,limit}"
// (resources/templates/list), and the handler that reads any URI the
// template matches.
//
// Every operator (simple, + # . / ; ? &), the prefix modifier {v:n} and the
// explode modifier on path segments {/v*} are accepted; forms whose matches
// would be ambiguous (adjacent expressions a URI cannot tell apart, variable
// lists in unnamed expressions, explode of anything but path segments, two
// expressions whose values may contain "/") are refused. {v} and {+v} match a
// non-empty value; the other operators' variables may be absent. A value must
// be percent-encoded as expansion writes it (upper-case escapes, only where
// needed), so "%2e%2e" is not "..", and a match always re-expands to the same
// URI. When several templates match a URI, the one with the most literal
// characters wins, then the one with fewest expressions spanning slashes
// ({+v}, {#v}, {/v*}), then the one registered first.
type ResourceTemplate struct {
	// URITemplate is the template, e.g. "test://template/{id}/data".
	URITemplate string
	// Name is its programmatic name; empty means the template.
	Name string
	// Title is an optional human-readable name.
	Title string
	// Description tells the model what the resources hold.
	Description string
	// MIMEType is the media type of every matching resource, if they share one.
	MIMEType string
	// Values lists, by variable name, the only values a variable accepts (an
	// enum): a URI with another value is not found. They are the completion
	// suggestions of variables without a Complete entry.
	Values map[string][]string
	// Complete suggests values for template variables (completion/complete
	// with a ref/resource), by variable name; variables with neither Values
	// nor Complete get no suggestions.
	Complete map[string]Completer
	// Scopes are the OAuth scopes a request needs, all of them (authorize.go).
	Scopes []string
	// Handler reads a matching URI; ResourceRequest.Vars holds the decoded
	// variables.
	Handler ResourceHandler
}

// A ResourceHandler reads one resource. ctx is cancelled when the client
// cancels the request or the connection ends. An error wrapping
// ErrResourceNotFound or fs.ErrNotExist becomes the era's not-found error; any other error an
// internal error (-32603) carrying its text; a panic a generic internal error.
type ResourceHandler func(ctx context.Context, req *ResourceRequest) (*ResourceResult, error)

// A ResourceRequest is one resources/read.
type ResourceRequest struct {
	// URI is the requested URI.
	URI string
	// Vars are the template variables, percent-decoded; nil for a direct
	// resource. An optional variable the URI leaves out ({?q}, {/v}, ...) is
	// absent; an exploded list {/v*} is its segments joined with "/".
	Vars map[string]string
	// Lists are the segments of each exploded {/v*} variable the URI has,
	// percent-decoded (a segment may contain an encoded "/").
	Lists map[string][]string
}

// A ResourceResult is what a resources/read returns.
type ResourceResult struct {
	// Contents are the resource's contents; an empty URI means the request's,
	// an empty MIMEType the resource's.
	Contents []ResourceContents
	// CacheTTL is the 2026-07-28 ttlMs hint; 0 means the server's
	// Options.CacheTTL, a negative value 0 (always stale).
	CacheTTL time.Duration
	// Private marks contents specific to the caller's authorization
	// (cacheScope "private"); the default is "public".
	Private bool
	// Meta is the result's _meta.
	Meta map[string]any
}

// TextResource returns a result with one text content.
func TextResource(text string) *ResourceResult {
	return &ResourceResult{Contents: []ResourceContents{{Text: text}}}
}

// BlobResource returns a result with one binary content, sent base64-encoded.
func BlobResource(data []byte) *ResourceResult {
	if data == nil {
		data = []byte{}
	}
	return &ResourceResult{Contents: []ResourceContents{{Blob: data}}}
}

// ContentsResource returns a result holding the given contents.
func ContentsResource(contents ...ResourceContents) *ResourceResult {
	return &ResourceResult{Contents: contents}
}
