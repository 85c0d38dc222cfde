package httpcheck

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestReadBody(t *testing.T) {
	for _, c := range []struct {
		ct, body string
		status   int // 0: read
	}{
		{"", `{"a":1}`, 0},
		{"application/json; charset=utf-8", `{}`, 0},
		{"text/plain", `{}`, http.StatusUnsupportedMediaType},
		{"application/json", strings.Repeat("x", 11), http.StatusRequestEntityTooLarge},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
		if c.ct != "" {
			r.Header.Set("Content-Type", c.ct)
		}
		var deadline error
		got, berr := ReadBody(httptest.NewRecorder(), r, 10, time.Second, func(err error) { deadline = err })
		switch {
		case c.status == 0 && (berr != nil || string(got) != c.body):
			t.Errorf("%s %q: %q, %+v", c.ct, c.body, got, berr)
		case c.status != 0 && (berr == nil || berr.Status != c.status):
			t.Errorf("%s %q: %+v, want status %d", c.ct, c.body, berr, c.status)
		}
		if deadline == nil && c.status != http.StatusUnsupportedMediaType {
			t.Error("a recorder cannot set a read deadline, and onDeadline was not told")
		}
	}
}

// TestReadBodyLengths: a body of unknown length (chunked) is bounded as one of
// known length is, and a body shorter than its Content-Length is a 400.
func TestReadBodyLengths(t *testing.T) {
	for _, c := range []struct {
		body   string
		length int64
		status int // 0: read
	}{
		{`{"a":1}`, -1, 0},
		{strings.Repeat("x", 11), -1, http.StatusRequestEntityTooLarge},
		{`{"a":1}`, 7, 0},
		{`{"a"`, 7, http.StatusBadRequest},
		{``, 0, 0},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(c.body))
		r.ContentLength = c.length
		got, berr := ReadBody(httptest.NewRecorder(), r, 10, time.Second, func(error) {})
		switch {
		case c.status == 0 && (berr != nil || string(got) != c.body):
			t.Errorf("%q (length %d): %q, %+v", c.body, c.length, got, berr)
		case c.status != 0 && (berr == nil || berr.Status != c.status):
			t.Errorf("%q (length %d): %+v, want status %d", c.body, c.length, berr, c.status)
		}
	}
}
