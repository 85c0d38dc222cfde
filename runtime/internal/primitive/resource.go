package primitive

import (
	"slices"

	"github.com/mcpgen/mcpgen/internal/uritemplate"
)

// Desc is the JSON shape of a resource and of a resource template in the list
// results.
type Desc struct {
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// A Resource is a registered resource with its listing.
type Resource[H any] struct {
	URI, MIMEType string
	Scopes        []string
	Src           H // the runtime's Resource
	Wire          []byte
}

// NewResource makes the entry of the resource d.URI; an empty name is the URI.
func NewResource[H any](d Desc, scopes []string, src H) *Resource[H] {
	if d.Name == "" {
		d.Name = d.URI
	}
	return &Resource[H]{URI: d.URI, MIMEType: d.MIMEType, Scopes: scopes, Src: src, Wire: mustMarshal(d)}
}

// A Template is a registered resource template with its parsed form.
type Template[H any] struct {
	URITemplate, MIMEType string
	Vars                  []string            // the variables, in order
	Values                map[string][]string // the only values a variable accepts
	Scopes                []string
	Src                   H // the runtime's ResourceTemplate
	Wire                  []byte

	parsed *uritemplate.Template
	// literal and spanning rank the template for routing (moreSpecific).
	literal, spanning int
}

// NewTemplate parses the template d.URITemplate (an error names what mcpgen
// cannot match) and makes its entry; an empty name is the template.
func NewTemplate[H any](d Desc, values map[string][]string, scopes []string, src H) (*Template[H], error) {
	parsed, err := uritemplate.Parse(d.URITemplate)
	if err != nil {
		return nil, err
	}
	if d.Name == "" {
		d.Name = d.URITemplate
	}
	lit, span := parsed.Specificity()
	return &Template[H]{URITemplate: d.URITemplate, MIMEType: d.MIMEType, Vars: parsed.Vars, Values: values,
		Scopes: scopes, Src: src, Wire: mustMarshal(d), parsed: parsed, literal: lit, spanning: span}, nil
}

// Route finds what serves uri: a direct resource (r), else the most specific
// template that matches (t, with the values of its variables); both nil when
// nothing does.
func (s *Set[R, T, P]) Route(uri string) (r *Resource[R], t *Template[T], vals *uritemplate.Values) {
	if e, ok := s.Resources().Get(uri); ok {
		return e, nil, nil
	}
	var bestVals uritemplate.Values
	for _, e := range s.Templates().All() {
		if t != nil && !e.moreSpecific(t) {
			continue
		}
		if v, ok := e.parsed.Match(uri); ok && e.admits(v.Vars) {
			t, bestVals = e, v
		}
	}
	if t == nil {
		return nil, nil, nil
	}
	return nil, t, &bestVals
}

// moreSpecific reports whether e routes before o when both match a URI: the
// template with more literal characters wins, then the one with fewer
// expressions whose values may span slashes ({+v}, {#v}, {/v*}); on a tie the
// one registered first (o, since templates are visited in registration
// order) wins.
func (e *Template[H]) moreSpecific(o *Template[H]) bool {
	if e.literal != o.literal {
		return e.literal > o.literal
	}
	return e.spanning < o.spanning
}

// admits reports whether every variable with an enum has one of its values.
func (e *Template[H]) admits(vars map[string]string) bool {
	for name, allowed := range e.Values {
		if v, ok := vars[name]; ok && !slices.Contains(allowed, v) {
			return false
		}
	}
	return true
}
