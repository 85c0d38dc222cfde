package runtime

// content.go: the content blocks of tool results and prompt messages (Text, Image,
// Audio, EmbeddedResource, ResourceLink) and their JSON.

import (
	"encoding/base64"
	"encoding/json"
)

// Content kinds, the "type" of a content block.
const (
	contentText         = "text"
	contentImage        = "image"
	contentAudio        = "audio"
	contentResource     = "resource"
	contentResourceLink = "resource_link"
)

// A Content is one block of a tool result: text, image, audio, an embedded resource
// or a link to a resource. Build it with Text, Image, Audio, EmbeddedResource or
// ResourceLink; the zero value is not a valid block.
type Content struct {
	// Type is "text", "image", "audio", "resource" or "resource_link".
	Type string
	// Text is the text of a text block.
	Text string
	// Data holds the raw bytes of an image or audio block; they travel base64-encoded.
	Data []byte
	// MIMEType is the media type of image and audio blocks and of resource links.
	MIMEType string
	// Resource is the embedded resource of a "resource" block.
	Resource *ResourceContents
	// URI, Name, Title, Description and Size describe a resource link.
	URI, Name, Title, Description string
	Size                          int64
	// Meta is the block's _meta, if any.
	Meta map[string]any

	raw json.RawMessage // an encoded block replayed from the idempotency ledger
}

// ResourceContents is the body of an embedded resource: text, or a blob when Blob is
// non-nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

// Text returns a text content block.
func Text(s string) Content { return Content{Type: contentText, Text: s} }

// Image returns an image content block holding data of the given media type.
func Image(data []byte, mimeType string) Content {
	return Content{Type: contentImage, Data: data, MIMEType: mimeType}
}

// Audio returns an audio content block holding data of the given media type.
func Audio(data []byte, mimeType string) Content {
	return Content{Type: contentAudio, Data: data, MIMEType: mimeType}
}

// EmbeddedResource returns a content block that embeds r.
func EmbeddedResource(r ResourceContents) Content {
	return Content{Type: contentResource, Resource: &r}
}

// ResourceLink returns a content block that points at the resource uri, called name,
// of the given media type ("" when unknown). Title, Description and Size may be set
// on the result.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: contentResourceLink, URI: uri, Name: name, MIMEType: mimeType}
}

// wireContent is the JSON shape shared by every content block; the constructors make
// sure the required fields of each kind are set.
type wireContent struct {
	Type        string            `json:"type"`
	Text        *string           `json:"text,omitempty"`
	Data        *string           `json:"data,omitempty"`
	MIMEType    string            `json:"mimeType,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        *string           `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        int64             `json:"size,omitempty"`
	Meta        map[string]any    `json:"_meta,omitempty"`
}

// MarshalJSON encodes c as the ContentBlock of its Type.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.raw != nil {
		return c.raw, nil
	}
	w := wireContent{Type: c.Type, Meta: c.Meta}
	switch c.Type {
	case contentImage, contentAudio:
		data := base64.StdEncoding.EncodeToString(c.Data)
		w.Data, w.MIMEType = &data, c.MIMEType
	case contentResource:
		w.Resource = c.Resource
		if w.Resource == nil {
			w.Resource = &ResourceContents{}
		}
	case contentResourceLink:
		w.URI, w.Name, w.MIMEType = c.URI, &c.Name, c.MIMEType
		w.Title, w.Description, w.Size = c.Title, c.Description, c.Size
	default:
		w.Type, w.Text = contentText, &c.Text
	}
	return json.Marshal(w)
}

// wireResource is the JSON shape of TextResourceContents and BlobResourceContents.
type wireResource struct {
	URI      string         `json:"uri"`
	MIMEType string         `json:"mimeType,omitempty"`
	Text     *string        `json:"text,omitempty"`
	Blob     *string        `json:"blob,omitempty"`
	Meta     map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON encodes r as text or, when Blob is non-nil, as base64 blob contents.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	w := wireResource{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.Blob != nil {
		blob := base64.StdEncoding.EncodeToString(r.Blob)
		w.Blob = &blob
	} else {
		w.Text = &r.Text
	}
	return json.Marshal(w)
}
