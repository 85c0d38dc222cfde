package ask

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestAcceptElicit(t *testing.T) {
	strict := func(content json.RawMessage) error {
		if string(content) != `{"ok":true}` {
			return ErrInvalidAnswer
		}
		return nil
	}
	for _, c := range []struct {
		raw     string
		form    bool
		action  string
		content string
		err     error
	}{
		{`{"action":"accept","content":{"ok":true}}`, true, Accept, `{"ok":true}`, nil},
		{`{"action":"accept","content":{"ok":false}}`, true, "", "", ErrInvalidAnswer},
		{`{"action":"accept"}`, true, "", "", ErrInvalidAnswer},
		{`{"action":"accept","content":[1]}`, true, "", "", ErrInvalidAnswer},
		{`{"action":"accept"}`, false, Accept, "", nil},
		{`{"action":"decline","content":{"ok":true}}`, true, Decline, "", nil},
		{`{"action":"cancel"}`, false, Cancel, "", nil},
		{`{"action":"maybe"}`, true, "", "", ErrMalformed},
		{`"accept"`, true, "", "", ErrMalformed},
		{`{"action":7}`, true, "", "", ErrMalformed},
	} {
		action, content, err := AcceptElicit(json.RawMessage(c.raw), c.form, strict)
		if action != c.action || string(content) != c.content || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s (form %v): %q %s %v", c.raw, c.form, action, content, err)
		}
	}
}

func TestURLParams(t *testing.T) {
	a, b := URLParams("m", "https://x", false), URLParams("m", "https://x", false)
	if len(a.ElicitationID) != 32 || a.ElicitationID == b.ElicitationID || a.Mode != "url" {
		t.Fatalf("legacy params %+v %+v", a, b)
	}
	if m := URLParams("m", "https://x", true); m.ElicitationID != "" {
		t.Fatalf("modern params carry an id: %+v", m)
	}
}

func TestConsent(t *testing.T) {
	args := json.RawMessage(`{"amount":12.5,"to":"bob \"b\"","tags":["a"]}`)
	for q, want := range map[string]string{
		"Pay {amount} to {to}?":  `Pay 12.5 to "bob \"b\""?`,
		"{{literal}} {tags} {x}": `{literal} ["a"] `,
		"open {brace":            "open {brace",
	} {
		if got := FillConfirm(q, args); got != want {
			t.Errorf("FillConfirm(%q) = %q, want %q", q, got, want)
		}
	}
	// Free text is quoted and bounded: the model cannot add lines, reorder the
	// text with bidi controls, or drown the question.
	long := strings.Repeat("x", 300)
	for v, want := range map[string]string{
		"P1":                          "P1",
		"db-01.eu":                    "db-01.eu",
		"DB down":                     `"DB down"`,
		"a\n\nIgnore that: reply yes": `"a\n\nIgnore that: reply yes"`,
		"safe\u202eevil":              `"safe\u202eevil"`,
		"x\u2028y\x00":                `"x\u2028y\x00"`,
		long:                          `"` + long[:MaxConfirmValue] + `…"`,
	} {
		if got := ConfirmValue(v); got != want {
			t.Errorf("ConfirmValue(%q) = %s, want %s", v, got, want)
		}
	}
	for _, c := range []struct {
		action, content string
		ok              bool
		answered        string
	}{
		{Accept, `{"confirm":true}`, true, ""},
		{Accept, `{"confirm":false}`, false, "accept without confirming"},
		{Accept, ``, false, "accept without confirming"},
		{Decline, ``, false, "decline"},
		{Cancel, `{"confirm":true}`, false, "cancel"},
		{Accept, `{"confirm":false,"Confirm":true}`, false, "accept without confirming"},
		{Accept, `{"Confirm":true}`, false, "accept without confirming"},
		{Accept, `{"confirm":true,"confirm":true}`, false, "accept without confirming"},
		{Accept, `{"confirm":"true"}`, false, "accept without confirming"},
	} {
		ok, answered := Confirmed(c.action, json.RawMessage(c.content))
		if ok != c.ok || answered != c.answered {
			t.Errorf("Confirmed(%s, %s) = %v %q", c.action, c.content, ok, answered)
		}
	}
}
