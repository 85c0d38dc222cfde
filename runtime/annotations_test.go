package runtime

import (
	"encoding/json"
	"testing"
)

// TestToolAnnotationsStated checks that a tool whose author stated every hint
// sends all four, false ones included, and that one without Stated keeps
// sending only the true hints (a false one would claim what nobody decided).
func TestToolAnnotationsStated(t *testing.T) {
	for _, tt := range []struct {
		a    ToolAnnotations
		want string
	}{
		{ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, Stated: true},
			`{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`},
		{ToolAnnotations{Title: "T", DestructiveHint: true, OpenWorldHint: true, Stated: true},
			`{"title":"T","readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`},
		{ToolAnnotations{ReadOnlyHint: true}, `{"readOnlyHint":true}`},
		{ToolAnnotations{}, `{}`},
	} {
		got, err := json.Marshal(&tt.a)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%+v: got %s, want %s", tt.a, got, tt.want)
		}
	}
}
