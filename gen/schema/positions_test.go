package schema

import (
	"fmt"
	"testing"
)

// TestPositions checks that every property, including ones behind
// pointers, slices, maps, embedded structs and recursive $defs, points at
// the line of the Go field that declares it.
func TestPositions(t *testing.T) {
	p := load(t, `package p

type In struct {
	Name  string            `+"`json:\"name\"`"+` // line 4
	Opt   *Opt              `+"`json:\"opt\"`"+`
	List  []Opt             `+"`json:\"list\"`"+`
	ByKey map[string]Opt    `+"`json:\"by_key\"`"+`
	Embedded
	Tree  *Node             `+"`json:\"tree\"`"+`
}

type Opt struct {
	Limit int `+"`json:\"limit\"`"+` // line 13
}

type Embedded struct {
	Inner bool `+"`json:\"inner\"`"+` // line 17
}

type Node struct {
	Kids []*Node `+"`json:\"kids\"`"+` // line 21
}
`)
	in := p.lookup(t, "In")
	s, _, diags := p.b.Input(in, 0)
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	pos := p.b.Positions(s, in, 0)
	tests := []struct {
		ptr  string
		line int
	}{
		{"/properties/name", 4},
		{"/properties/opt", 5},
		{"/properties/opt/anyOf/0/properties/limit", 13},
		{"/properties/list/anyOf/0/items/properties/limit", 13},
		{"/properties/list/anyOf/0/items/properties/limit/minimum", 13},
		{"/properties/by_key/anyOf/0/additionalProperties/properties/limit", 13},
		{"/properties/inner", 17},
		{"/properties/tree", 9},
		{"/$defs/Node/properties/kids", 21},
	}
	for _, tt := range tests {
		if got := pos.Lookup(tt.ptr).Line; got != tt.line {
			t.Errorf("Lookup(%q) line = %d, want %d (table %v)", tt.ptr, got, tt.line, fmt.Sprint(pos))
		}
	}
}
