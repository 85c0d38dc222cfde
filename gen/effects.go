package gen

import (
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/gen/model"
	"github.com/mcpgen/mcpgen/gen/schema"
)

// effects records the fields of t's input and result structs tagged
// `mcp:"idempotency_key"` and `mcp:"external_id"` (the schema builder checked their
// types): the runtime reads them at the top level of the arguments and of the
// structured result.
func (a *analyzer) effects(t *model.Tool, in, out types.Type, inPos, outPos token.Pos, label string) {
	if in != nil {
		name, pos, n := topLevelTagged(in, schema.TagIdempotencyKey)
		switch {
		case n > 1:
			a.errorf(inPos, "%s: more than one field is tagged `mcp:\"idempotency_key\"`", label)
		case n == 1 && t.ReadOnly:
			a.errorf(pos, "%s: a readonly tool takes no idempotency key: drop `mcp:\"idempotency_key\"` or the readonly hint", label)
		case n == 1:
			t.IdempotencyKey = name
		}
	}
	if out != nil && t.OutKind == model.OutStructured {
		name, _, n := topLevelTagged(out, schema.TagExternalID)
		switch {
		case n > 1:
			a.errorf(outPos, "%s: more than one field is tagged `mcp:\"external_id\"`", label)
		case n == 1:
			t.ExternalID = name
		}
	}
}

// topLevelTagged returns the JSON name and position of the field of struct type t
// (or a pointer to one) whose mcp tag has option opt, and how many fields have it.
func topLevelTagged(t types.Type, opt string) (string, token.Pos, int) {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return "", token.NoPos, 0
	}
	var name string
	var pos token.Pos
	n := 0
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		if !slices.Contains(strings.Split(tag.Get("mcp"), ","), opt) {
			continue
		}
		n++
		name, pos = f.Name(), f.Pos()
		if j, _, _ := strings.Cut(tag.Get("json"), ","); j != "" && j != "-" {
			name = j
		}
	}
	return name, pos, n
}
