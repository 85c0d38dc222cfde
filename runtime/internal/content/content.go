// Package content is the JSON of MCP content: content blocks (text, image, audio,
// embedded resource, resource link), resource contents (text or base64 blob), and
// the text read back from a sampling result's content.
package content

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Content kinds, the "type" of a content block.
const (
	TypeText         = "text"
	TypeImage        = "image"
	TypeAudio        = "audio"
	TypeResource     = "resource"
	TypeResourceLink = "resource_link"
)

// A Block is one content block as the runtime's Content holds it.
type Block struct {
	Type, Text                    string
	Data                          []byte
	MIMEType                      string
	Resource                      *Resource
	URI, Name, Title, Description string
	Size                          int64
	Meta                          map[string]any
}

// Resource is the body of an embedded resource: text, or a blob when Blob is non-nil.
type Resource struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     map[string]any
}

// wireBlock is the JSON shape shared by every content block.
type wireBlock struct {
	Type        string         `json:"type"`
	Text        *string        `json:"text,omitempty"`
	Data        *string        `json:"data,omitempty"`
	MIMEType    string         `json:"mimeType,omitempty"`
	Resource    *Resource      `json:"resource,omitempty"`
	URI         string         `json:"uri,omitempty"`
	Name        *string        `json:"name,omitempty"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Size        int64          `json:"size,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// MarshalJSON encodes b as the ContentBlock of its Type (anything unknown: text)
// with the members that kind requires.
func (b *Block) MarshalJSON() ([]byte, error) {
	w := wireBlock{Type: b.Type, Meta: b.Meta}
	switch b.Type {
	case TypeImage, TypeAudio:
		data := base64.StdEncoding.EncodeToString(b.Data)
		w.Data, w.MIMEType = &data, b.MIMEType
	case TypeResource:
		w.Resource = b.Resource
		if w.Resource == nil {
			w.Resource = &Resource{}
		}
	case TypeResourceLink:
		w.URI, w.Name, w.MIMEType = b.URI, &b.Name, b.MIMEType
		w.Title, w.Description, w.Size = b.Title, b.Description, b.Size
	default:
		w.Type, w.Text = TypeText, &b.Text
	}
	return json.Marshal(w)
}

// MarshalJSON encodes r as TextResourceContents or, when Blob is non-nil, as
// BlobResourceContents.
func (r Resource) MarshalJSON() ([]byte, error) {
	w := struct {
		URI      string         `json:"uri"`
		MIMEType string         `json:"mimeType,omitempty"`
		Text     *string        `json:"text,omitempty"`
		Blob     *string        `json:"blob,omitempty"`
		Meta     map[string]any `json:"_meta,omitempty"`
	}{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.Blob != nil {
		blob := base64.StdEncoding.EncodeToString(r.Blob)
		w.Blob = &blob
	} else {
		w.Text = &r.Text
	}
	return json.Marshal(w)
}

// TextOf returns the text of the text blocks of raw, one block or an array of
// blocks (a sampling result's content), joined by newlines.
func TextOf(raw json.RawMessage) string {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var blocks []block
	if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "{") {
		var one block
		_ = json.Unmarshal(raw, &one)
		blocks = []block{one}
	} else {
		_ = json.Unmarshal(raw, &blocks)
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == TypeText {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// AppendContents appends a ReadResourceResult's contents array to b: the n
// contents at gives, each with uri and mimeType filled from the request's uri
// and the resource's mime when it has none of its own.
func AppendContents(b []byte, uri, mime string, n int, at func(i int) Resource) ([]byte, error) {
	b = append(b, '[')
	for i := range n {
		r := at(i)
		if r.URI == "" {
			r.URI = uri
		}
		if r.MIMEType == "" {
			r.MIMEType = mime
		}
		enc, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, enc...)
	}
	return append(b, ']'), nil
}
