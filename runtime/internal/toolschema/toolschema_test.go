package toolschema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCheckInputAndNames(t *testing.T) {
	for raw, ok := range map[string]bool{
		`{"type":"object"}`: true, `{"type":"string"}`: false, `[]`: false, `{`: false, `{"type":["object"]}`: false,
	} {
		if err := CheckInput(json.RawMessage(raw)); (err == nil) != ok {
			t.Errorf("CheckInput(%s) = %v", raw, err)
		}
	}
	names, err := PropertyNames(json.RawMessage(`{"type":"object","properties":{"z":{},"a":{"properties":{"q":{}}},"m":{}}}`))
	if err != nil || !slices.Equal(names, []string{"z", "a", "m"}) {
		t.Errorf("PropertyNames: %q, %v; want document order z a m", names, err)
	}
}

// TestModeAndFailures: a schema beyond the built-in validator is refused
// without runtime/fullschema, naming the import; a built-in one validates with
// reasons and tells whether its objects are closed.
func TestModeAndFailures(t *testing.T) {
	if _, err := Mode(json.RawMessage(`{"type":"object","dependentSchemas":{"a":{}}}`)); err == nil || !strings.Contains(err.Error(), fullSchemaImport) {
		t.Errorf("Mode of a schema beyond the built-in validator: %v", err)
	}
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"additionalProperties":false}`)
	full, err := Mode(raw)
	if err != nil || full {
		t.Fatalf("Mode: %v, %v", full, err)
	}
	l := &Lazy{Name: "t/input", Raw: raw}
	if fails, err := l.Failures([]byte(`{"n":2}`)); fails != nil || err != nil {
		t.Errorf("valid: %v, %v", fails, err)
	}
	if !l.Closed() {
		t.Error("a closed object schema is not reported closed")
	}
	fails, err := l.Failures([]byte(`{"n":0}`))
	if err != nil || len(fails) != 1 || fails[0].Pointer != "/n" || fails[0].Keyword != "minimum" {
		t.Errorf("invalid: %+v, %v", fails, err)
	}
}
