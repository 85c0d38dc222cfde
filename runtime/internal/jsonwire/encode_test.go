package jsonwire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encodingJSON returns s as encoding/json writes it without HTML escaping, with
// \b and \f in the \u form AppendString uses (encoding/json spells them \b and \f).
func encodingJSON(t *testing.T, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var b []byte
	for i := 0; i < len(out); i++ {
		if out[i] != '\\' {
			b = append(b, out[i])
			continue
		}
		i++
		switch out[i] {
		case 'b':
			b = append(b, `\u0008`...)
		case 'f':
			b = append(b, `\u000c`...)
		default:
			b = append(b, '\\', out[i])
		}
	}
	return b
}

// checkAppendString checks AppendString(s) against encoding/json: the same bytes
// (but for the spelling of \b and \f), valid JSON, decoding to what encoding/json
// decodes, and the prefix kept.
func checkAppendString(t *testing.T, s string) {
	got := AppendString([]byte("x"), s)
	if got[0] != 'x' {
		t.Fatalf("AppendString(%q) dropped the prefix: %q", s, got)
	}
	got = got[1:]
	if want := encodingJSON(t, s); !bytes.Equal(got, want) {
		t.Fatalf("AppendString(%q) = %s, encoding/json writes %s", s, got, want)
	}
	if !json.Valid(got) || !Valid(got) {
		t.Fatalf("AppendString(%q) = %s: not valid JSON", s, got)
	}
	var back string
	if err := json.Unmarshal(got, &back); err != nil || back != decodeLikeJSON(s) {
		t.Fatalf("AppendString(%q) = %s decodes to %q, %v", s, got, back, err)
	}
}

// decodeLikeJSON is s with each invalid UTF-8 byte replaced by U+FFFD, as
// encoding/json encodes it.
func decodeLikeJSON(s string) string {
	var b strings.Builder
	for _, r := range s { // range yields U+FFFD for each invalid byte
		b.WriteRune(r)
	}
	return b.String()
}

var appendStringSeeds = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnl\nr\r", "\b\f\x00\x01\x1f\x7f", "<&>",
	"h\u00e9llo w\u00f6rld", "\u2028\u2029", "emoji \U0001F600", "bad \xff\xfe utf8", "\xed\xa0\x80 surrogate",
	"\uFFFD literal", "trunc \xe2\x82", strings.Repeat("a\"", 40),
}

func TestAppendString(t *testing.T) {
	for _, s := range appendStringSeeds {
		checkAppendString(t, s)
	}
}

// FuzzAppendString checks the string encoder behind every response against
// encoding/json on any string.
func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringSeeds {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}
