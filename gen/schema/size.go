package schema

import (
	"math"

	"github.com/invopop/jsonschema"
)

// maxNodes bounds the number of schema objects a root may expand to.
// Inlining repeats a type's schema at each use, so types that share
// subtypes many times over (T with two *U fields, U with two *V fields,
// ...) grow exponentially; past the bound the schema is refused instead of
// written.
const maxNodes = 50_000

// schemaNodes counts the schema objects of s once inlined, visiting each
// shared subschema once (memo), saturating at math.MaxInt.
func schemaNodes(s *jsonschema.Schema, memo map[*jsonschema.Schema]int) int {
	if s == nil {
		return 0
	}
	if n, ok := memo[s]; ok {
		return n
	}
	n := 1
	add := func(c *jsonschema.Schema) { n = satAdd(n, schemaNodes(c, memo)) }
	for _, c := range s.AnyOf {
		add(c)
	}
	for _, c := range s.AllOf {
		add(c)
	}
	for _, c := range s.OneOf {
		add(c)
	}
	add(s.Items)
	add(s.AdditionalProperties)
	add(s.PropertyNames)
	add(s.Not)
	if s.Properties != nil {
		for _, c := range s.Properties.FromOldest() {
			add(c)
		}
	}
	for _, c := range s.Definitions {
		add(c)
	}
	memo[s] = n
	return n
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
