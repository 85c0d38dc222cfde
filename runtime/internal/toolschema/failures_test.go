package toolschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestDescribeAndRules: an invalid value's failures as the model reads them
// (pointer, rule, then the valid names) and as details (pointer and rule only).
func TestDescribeAndRules(t *testing.T) {
	l := &Lazy{Name: "t/input", Raw: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["s"]}`)}
	fails, err := l.Failures([]byte(`{"n":"x"}`))
	if err != nil || len(fails) == 0 {
		t.Fatalf("Failures = %v, %v; want failures", fails, err)
	}
	msg := DescribeInvalid("t", fails, []string{"n", "s"})
	for _, want := range []string{"invalid arguments for tool t:", "\n- /n: type: ", "\n- (root): required: ", "\nvalid arguments: n, s"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if got := DescribeInvalid("t", fails, nil); !strings.HasSuffix(got, "\nthis tool takes no arguments") {
		t.Errorf("without names: %q", got)
	}
	rules := Rules(fails)
	if len(rules) != len(fails) || rules[0]["pointer"] == "" && rules[0]["rule"] == "" {
		t.Errorf("Rules = %v for %d failures", rules, len(fails))
	}
	for _, r := range rules {
		if len(r) != 2 {
			t.Errorf("rule %v holds more than pointer and rule", r)
		}
	}
}

// TestCheckOutputFormCompact: output checks, form content checks with the
// caller's errors, and compaction of multi-line JSON.
func TestCheckOutputFormCompact(t *testing.T) {
	out := &Lazy{Name: "t/output", Raw: json.RawMessage(`{"type":"object","required":["a"]}`)}
	if err := out.CheckOutput([]byte(`{"a":1}`), true); err != nil {
		t.Errorf("valid output: %v", err)
	}
	if err := out.CheckOutput([]byte(`{}`), true); err == nil || !strings.Contains(err.Error(), "required") {
		t.Errorf("output without a: %v", err)
	}
	if err := out.CheckOutput([]byte(`{`), false); err == nil {
		t.Error("output that is not JSON accepted")
	}
	malformed, invalid := errors.New("malformed"), errors.New("invalid")
	schema := json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)
	if err := CheckForm(schema, json.RawMessage(`{"x":"y"}`), malformed, invalid); err != nil {
		t.Errorf("valid form: %v", err)
	}
	if err := CheckForm(schema, json.RawMessage(`{"x":1}`), malformed, invalid); !errors.Is(err, invalid) || !strings.Contains(err.Error(), "/x: type") {
		t.Errorf("invalid form: %v", err)
	}
	if err := CheckForm(schema, json.RawMessage(`{"x"`), malformed, invalid); !errors.Is(err, malformed) {
		t.Errorf("form that is not JSON: %v", err)
	}
	if err := CheckForm(json.RawMessage(`{"type":3}`), json.RawMessage(`{}`), malformed, invalid); err == nil || errors.Is(err, invalid) {
		t.Errorf("bad requested schema: %v", err)
	}
	if got, err := Compact(json.RawMessage("{\n \"a\": 1\n}"), true); err != nil || string(got) != `{"a":1}` {
		t.Errorf("Compact = %s, %v", got, err)
	}
	same := json.RawMessage(`{"a": 1}`)
	if got, _ := Compact(same, true); &got[0] != &same[0] {
		t.Error("one-line JSON copied")
	}
	if _, err := Compact(json.RawMessage(`{`), false); err == nil {
		t.Error("invalid one-line JSON accepted")
	}
}
