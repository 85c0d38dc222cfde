package content

import (
	"encoding/json"
	"testing"
)

func TestBlockJSON(t *testing.T) {
	for _, c := range []struct {
		b    Block
		want string
	}{
		{Block{Type: TypeText, Text: ""}, `{"type":"text","text":""}`},
		{Block{Type: "", Text: "hi", Meta: map[string]any{"k": 1}}, `{"type":"text","text":"hi","_meta":{"k":1}}`},
		{Block{Type: TypeImage, Data: []byte{1, 2}, MIMEType: "image/png", Text: "ignored"}, `{"type":"image","data":"AQI=","mimeType":"image/png"}`},
		{Block{Type: TypeAudio, MIMEType: "audio/wav"}, `{"type":"audio","data":"","mimeType":"audio/wav"}`},
		{Block{Type: TypeResource}, `{"type":"resource","resource":{"uri":"","text":""}}`},
		{Block{Type: TypeResource, Resource: &Resource{URI: "x://b", Blob: []byte{}}}, `{"type":"resource","resource":{"uri":"x://b","blob":""}}`},
		{Block{Type: TypeResourceLink, URI: "x://l", Name: "", Size: 3, Title: "T"}, `{"type":"resource_link","uri":"x://l","name":"","title":"T","size":3}`},
	} {
		got, err := json.Marshal(&c.b)
		if err != nil || string(got) != c.want {
			t.Errorf("%+v: %s %v, want %s", c.b, got, err, c.want)
		}
	}
	got, _ := json.Marshal(Resource{URI: "u", MIMEType: "text/plain", Text: "t", Meta: map[string]any{"a": true}})
	if want := `{"uri":"u","mimeType":"text/plain","text":"t","_meta":{"a":true}}`; string(got) != want {
		t.Errorf("%s, want %s", got, want)
	}
}

func TestTextOf(t *testing.T) {
	for raw, want := range map[string]string{
		` {"type":"text","text":"one"}`: "one",
		`[{"type":"text","text":"a"},{"type":"image","data":""},{"type":"text","text":"b"}]`: "a\nb",
		`{"type":"image"}`: "",
		`7`:                "",
	} {
		if got := TextOf(json.RawMessage(raw)); got != want {
			t.Errorf("TextOf(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestAppendContents: contents without a URI or MIME type get the request's
// and the resource's; their own are kept.
func TestAppendContents(t *testing.T) {
	rs := []Resource{{Text: "a<b"}, {URI: "x://own", MIMEType: "text/own", Blob: []byte{1}}}
	b, err := AppendContents([]byte(`{"contents":`), "x://req", "text/plain", len(rs), func(i int) Resource { return rs[i] })
	want := `{"contents":[{"uri":"x://req","mimeType":"text/plain","text":"a\u003cb"},{"uri":"x://own","mimeType":"text/own","blob":"AQ=="}]`
	if err != nil || string(b) != want {
		t.Fatalf("got %s, %v\nwant %s", b, err, want)
	}
	if b, _ := AppendContents(nil, "u", "", 0, nil); string(b) != "[]" {
		t.Fatalf("empty: %s", b)
	}
	bad := []Resource{{Meta: map[string]any{"f": func() {}}}}
	if _, err := AppendContents(nil, "u", "", 1, func(i int) Resource { return bad[i] }); err == nil {
		t.Fatal("unencodable contents accepted")
	}
}
