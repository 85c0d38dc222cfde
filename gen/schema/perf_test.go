package schema

import (
	"fmt"
	"strings"
	"testing"
)

// chainSrc declares n struct types where T<i> refers to T<i+1> several
// times: inlined, the schema doubles at every step.
func chainSrc(n int) string {
	var sb strings.Builder
	sb.WriteString("package p\n\n")
	for i := range n {
		next := fmt.Sprintf("T%d", i+1)
		if i == n-1 {
			next = "int"
		}
		fmt.Fprintf(&sb, "type T%d struct {\n\tA *%s\n\tB []%s\n\tC map[string]%s\n\tN int\n}\n\n", i, next, next, next)
	}
	return sb.String()
}

// TestBuildsEachTypeOnce checks that the builder does linear work on a
// type graph with heavy sharing (each named type built once per
// direction), and that a graph whose inlined schema would explode is
// refused with a diagnostic rather than written.
func TestBuildsEachTypeOnce(t *testing.T) {
	const n = 60
	p := load(t, chainSrc(n))
	_, _, diags := p.b.Input(p.lookup(t, "T0"), 0)
	if p.b.builds != n {
		t.Errorf("input: built %d named types, want %d", p.b.builds, n)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "more than 50000 subschemas") {
		t.Errorf("input: got %v, want the size diagnostic", diags)
	}
	if _, diags := p.b.Output(p.lookup(t, "T0"), 0); len(diags) != 1 {
		t.Errorf("output: got %v, want the size diagnostic", diags)
	}
	if p.b.builds != 2*n {
		t.Errorf("after output: built %d named types, want %d", p.b.builds, 2*n)
	}
	// A short chain stays well under the bound and marshals.
	s, _, diags := p.b.Input(p.lookup(t, fmt.Sprint("T", n-5)), 0)
	if len(diags) != 0 {
		t.Fatalf("short chain: %v", diags)
	}
	if _, err := Marshal(s); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkBuild measures the builder alone on a 60-type chain whose
// inlined schema would be astronomically large.
func BenchmarkBuild(b *testing.B) {
	p := load(b, chainSrc(60))
	typ := p.lookup(b, "T0")
	for b.Loop() {
		bl := New(p.fset, nil)
		bl.docs = p.b.docs
		bl.Input(typ, 0)
	}
}
