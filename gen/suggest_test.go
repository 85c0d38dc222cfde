package gen

import (
	"strings"
	"testing"
)

func TestUnknownDirectiveSuggests(t *testing.T) {
	for word, want := range map[string]string{
		"tools":       "tool",
		"Tool":        "tool",
		"toll":        "tool",
		"resources":   "resource",
		"resouce":     "resource",
		"promt":       "prompt",
		"prompts":     "prompt",
		"completion":  "complete",
		"constructer": "constructor",
		"schemas":     "schema",
		"zzz":         "",
		"handler":     "",
	} {
		msg := unknownDirective(word)
		if want == "" {
			if strings.Contains(msg, "did you mean") {
				t.Errorf("%s: %q suggests something, want no suggestion", word, msg)
			}
		} else if !strings.Contains(msg, "did you mean //mcp:"+want+"?") {
			t.Errorf("%s: %q, want a suggestion of //mcp:%s", word, msg, want)
		}
		if !strings.Contains(msg, "//mcp:tool, //mcp:resource, //mcp:prompt, //mcp:complete, //mcp:constructor, //mcp:schema") {
			t.Errorf("%s: %q does not list every directive", word, msg)
		}
	}
}
