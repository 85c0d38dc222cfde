package runtime

// content.go: the content blocks of tool results and prompt messages (Text, Image,
// Audio, EmbeddedResource, ResourceLink); internal/content encodes them.

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/content"
)

// contentText is the "type" of a text block.
const contentText = content.TypeText

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
	return Content{Type: content.TypeImage, Data: data, MIMEType: mimeType}
}

// Audio returns an audio content block holding data of the given media type.
func Audio(data []byte, mimeType string) Content {
	return Content{Type: content.TypeAudio, Data: data, MIMEType: mimeType}
}

// EmbeddedResource returns a content block that embeds r.
func EmbeddedResource(r ResourceContents) Content {
	return Content{Type: content.TypeResource, Resource: &r}
}

// ResourceLink returns a content block that points at the resource uri, called name,
// of the given media type ("" when unknown). Title, Description and Size may be set
// on the result.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{Type: content.TypeResourceLink, URI: uri, Name: name, MIMEType: mimeType}
}

// MarshalJSON encodes c as the ContentBlock of its Type (internal/content).
func (c Content) MarshalJSON() ([]byte, error) {
	if c.raw != nil {
		return c.raw, nil
	}
	b := content.Block{Type: c.Type, Text: c.Text, Data: c.Data, MIMEType: c.MIMEType,
		Resource: (*content.Resource)(c.Resource), URI: c.URI, Name: c.Name, Title: c.Title,
		Description: c.Description, Size: c.Size, Meta: c.Meta}
	return b.MarshalJSON()
}

// MarshalJSON encodes r as text or, when Blob is non-nil, as base64 blob contents.
func (r ResourceContents) MarshalJSON() ([]byte, error) { return content.Resource(r).MarshalJSON() }
