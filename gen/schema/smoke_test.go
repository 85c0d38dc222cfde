package schema

import (
	"testing"
)

func TestSmoke(t *testing.T) {
	p := load(t, `package p

import "time"

// Level is a log level.
type Level string

const (
	Debug Level = "debug"
	Info  Level = "info"
)

// Node is a tree.
type Node struct {
	Name     string
	Children []*Node `+"`json:\"children,omitempty\"`"+`
}

// SearchInput asks for things.
type SearchInput struct {
	// Query is the text.
	Query string `+"`json:\"query\" jsonschema:\"minLength=1\"`"+`
	Limit int    `+"`json:\"limit,omitempty\" jsonschema:\"default=10,minimum=1,maximum=100\"`"+`
	Level Level
	When  *time.Time
	Data  []byte
	Tree  Node
	Counts map[int]uint8
}
`)
	for _, name := range []string{"SearchInput", "Node"} {
		s, defs, diags := p.b.Input(p.lookup(t, name), 0)
		b, err := Marshal(s)
		t.Logf("%s\n%v %v %v", b, err, defs, diags)
		s, diags = p.b.Output(p.lookup(t, name), 0)
		b, err = Marshal(s)
		t.Logf("%s\n%v %v", b, err, diags)
	}
}
