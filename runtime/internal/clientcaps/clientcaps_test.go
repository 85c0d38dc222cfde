package clientcaps

import (
	"encoding/json"
	"testing"
)

func TestDeclared(t *testing.T) {
	for _, c := range []struct {
		caps string
		want map[Capability]bool
	}{
		{`{}`, map[Capability]bool{}},
		{`{"elicitation":{}}`, map[Capability]bool{ElicitForm: true}},
		{`{"elicitation":{"url":{}}}`, map[Capability]bool{ElicitURL: true}},
		{`{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{"listChanged":true}}`, map[Capability]bool{ElicitForm: true, ElicitURL: true, Sampling: true, Roots: true}},
		{`{"elicitation":true,"sampling":[],"roots":null}`, map[Capability]bool{}},
		{`[]`, map[Capability]bool{}},
	} {
		for k := ElicitForm; k <= Roots; k++ {
			if got := k.Declared(json.RawMessage(c.caps)); got != c.want[k] {
				t.Errorf("%s declares %s: %v", c.caps, k.Name(), got)
			}
		}
	}
}

func TestNamed(t *testing.T) {
	for _, name := range []string{"elicitation", "elicitation.url", "sampling", "roots"} {
		k, ok := Named(name)
		if !ok || k.Name() != name {
			t.Errorf("Named(%q) = %v, %v", name, k, ok)
		}
	}
	if _, ok := Named(" sampling"); ok {
		t.Error(`Named(" sampling") found a capability: names are exact`)
	}
	b, _ := json.Marshal(ElicitURL.Required())
	if string(b) != `{"elicitation":{"url":{}}}` {
		t.Errorf("ElicitURL.Required() = %s", b)
	}
}
