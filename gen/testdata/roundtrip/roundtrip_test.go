package roundtrip

import (
	"encoding/json"
	"fmt"
	"testing"
)

// fatal is the panic value of a recordingTB's Fatalf.
type fatal string

// A recordingTB turns Fatalf into a panic that expectFailure recovers.
type recordingTB struct{}

func (recordingTB) Helper() {}

func (recordingTB) Fatalf(format string, args ...any) { panic(fatal(fmt.Sprintf(format, args...))) }

// expectFailure reports whether check failed, and its message.
func expectFailure(check func(TB)) (msg string, failed bool) {
	defer func() {
		if r := recover(); r != nil {
			m, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			msg, failed = string(m), true
		}
	}()
	check(recordingTB{})
	return "", false
}

type small struct {
	A int `json:"a"`
}

// The checks must catch schemas that disagree with the Go types.
func TestChecksCanFail(t *testing.T) {
	cases := []struct {
		name  string
		check func(TB)
	}{
		{"nil slice against a non-null array schema", func(tb TB) {
			Out[[]string](tb, "t", json.RawMessage(`{"type":"array","items":{"type":"string"}}`), nil, "")
		}},
		{"legacy schema rejecting the wrapped value", func(tb TB) {
			Out[int](tb, "t", json.RawMessage(`{"type":"integer"}`),
				json.RawMessage(`{"type":"object","properties":{"result":{"type":"string"}},"required":["result"]}`), "result")
		}},
		{"open input object", func(tb TB) {
			In[small](tb, "t", json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`))
		}},
		{"input schema type that does not decode", func(tb TB) {
			In[small](tb, "t", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`))
		}},
		{"input schema accepting nothing", func(tb TB) {
			In[small](tb, "t", json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer","minimum":2,"maximum":1}},"required":["a"],"additionalProperties":false}`))
		}},
	}
	for _, c := range cases {
		if _, failed := expectFailure(c.check); !failed {
			t.Errorf("%s: the check passed, want a failure", c.name)
		}
	}
}

func TestChecksPass(t *testing.T) {
	msg, failed := expectFailure(func(tb TB) {
		Out[[]string](tb, "t", json.RawMessage(`{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}`),
			json.RawMessage(`{"type":"object","properties":{"result":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]}},"required":["result"],"additionalProperties":false}`), "result")
		In[small](tb, "t", json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`))
	})
	if failed {
		t.Errorf("correct schemas failed: %s", msg)
	}
}
