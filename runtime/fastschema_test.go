package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastTestSchemas are schemas of the kinds mcpgen generates.
var fastTestSchemas = map[string]string{
	"echo": echoInput,
	"notes-output": `{"type":"object","properties":{"matches":{"anyOf":[{"type":"array","items":{"type":"object",
		"properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807},
		"text":{"type":"string"}},"required":["file","line","text"],"additionalProperties":false}},{"type":"null"}]},
		"truncated":{"type":"boolean"}},"required":["matches","truncated"],"additionalProperties":false}`,
	"tree": `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"},
		"kids":{"type":["array","null"],"items":{"$ref":"#/$defs/Node"},"maxItems":3}},"required":["name"],"additionalProperties":false}}}`,
	"scalars": `{"type":"object","properties":{"color":{"enum":["red","grün",null]},"flag":{"const":true},
		"n":{"type":"number","exclusiveMinimum":0.5,"exclusiveMaximum":10},"i":{"type":"integer","minimum":-3},
		"s":{"type":"string","minLength":2,"maxLength":4},"any":true,"none":false},
		"additionalProperties":{"type":"integer"}}`,
	"required-undeclared": `{"type":"object","properties":{"a":{}},"required":["a","b"],"additionalProperties":false}`,
	"int-root":            `{"type":"integer","maximum":5}`,
}

// fastTestInstances are instances for every schema above.
var fastTestInstances = []string{
	`{}`, `{"text":"a"}`, `{"text":"ab","repeat":5}`, `{"text":"","repeat":1}`, `{"text":"a","repeat":6}`,
	`{"text":"a","x":1}`, `{"text":"a\u0062"}`, `{"text":"a","text":5}`, `{"repeat":1.0,"text":"x"}`,
	`{"matches":null,"truncated":false}`, `{"matches":[{"file":"f","line":3,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","line":9223372036854775808,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","line":-9223372036854775808,"text":"t"}],"truncated":true}`,
	`{"matches":[{"file":"f","text":"t"}],"truncated":true}`, `{"matches":{},"truncated":true}`,
	`{"name":"a","kids":[{"name":"b","kids":null},{"name":"c","kids":[]}]}`, `{"name":"A"}`,
	`{"name":"a","kids":[{"name":"b"},{"name":"b"},{"name":"b"},{"name":"b"}]}`, `{"name":"a","kids":[{"nam":"b"}]}`,
	`{"color":"grün","flag":true,"n":0.6,"i":-3,"s":"ab","any":[1],"extra":2}`, `{"color":"blue"}`,
	`{"color":null,"n":10}`, `{"n":0.5}`, `{"i":-4}`, `{"s":"abcde"}`, `{"s":"ééé"}`, `{"none":1}`,
	`{"flag":false}`, `{"extra":"x"}`, `{"a":1}`, `{"a":1,"b":2}`, `{"b":1}`, `5`, `6`, `-1e2`, `"x"`,
	`[]`, `null`, `true`, ` {"text" : "a" , "repeat" : 2 } `,
}

// compileFull compiles a schema with the full validator.
func compileFull(t testing.TB, raw string) *jsonschema.Schema {
	t.Helper()
	sch, err := compileSchema("test", json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// checkFastSound compares the fast path with the full validator on one instance. A
// fast "valid" is final in the runtime, so it must always agree; a fast "invalid" only
// sends the call to the full validator, and may disagree when the instance repeats a
// key (the full validator sees only the last value).
func checkFastSound(t testing.TB, name string, fast *fastSchema, full *jsonschema.Schema, inst []byte) verdict {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		return vUnknown
	}
	fullValid := full.Validate(v) == nil
	got := fast.validate(trimSpace(inst), 0)
	if got == vValid && !fullValid || got == vInvalid && fullValid && !repeatsKey(inst) {
		t.Errorf("%s: %s: fast %d, full valid=%v", name, inst, got, fullValid)
	}
	return got
}

// repeatsKey reports whether any object in the JSON value inst has a key twice.
func repeatsKey(inst []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(inst))
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				stack = append(stack, &frame{keys: map[string]bool{}, object: tok == '{', key: tok == '{'})
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if top != nil && top.object && top.key {
				if top.keys[tok] {
					return true
				}
				top.keys[tok] = true
				top.key = false
				continue
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}

func TestFastSchemaAgrees(t *testing.T) {
	decided := 0
	for name, raw := range fastTestSchemas {
		fast, err := compileFast(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		full := compileFull(t, raw)
		for _, inst := range fastTestInstances {
			if checkFastSound(t, name, fast, full, []byte(inst)) != vUnknown {
				decided++
			}
		}
	}
	if total := len(fastTestSchemas) * len(fastTestInstances); decided < total*8/10 {
		t.Errorf("fast path decided %d of %d cases, want most", decided, total)
	}
}

func TestFastSchemaDecidesCommonCases(t *testing.T) {
	fast, err := compileFast(json.RawMessage(fastTestSchemas["notes-output"]))
	if err != nil {
		t.Fatal(err)
	}
	for inst, want := range map[string]verdict{
		`{"matches":[{"file":"f","line":3,"text":"t"}],"truncated":true}`:   vValid,
		`{"matches":null,"truncated":false}`:                                vValid,
		`{"matches":[{"file":"f","line":3}],"truncated":true}`:              vInvalid,
		`{"matches":[{"file":"f","line":1.5,"text":"t"}],"truncated":true}`: vUnknown,
	} {
		if got := fast.validate([]byte(inst), 0); got != want {
			t.Errorf("%s: verdict %d, want %d", inst, got, want)
		}
	}
}

func TestFastSchemaUnsupported(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","oneOf":[{}]}`, `{"not":{}}`, `{"type":"object","patternProperties":{"a":{}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`, `{"$ref":"https://example.com/x"}`,
		`{"enum":[1,2]}`, `{"const":{"a":1}}`, `{"items":[{}]}`, `{"type":"object","properties":{"a":{"multipleOf":2}}}`,
		`{"uniqueItems":true}`, `{"type":"strange"}`, `{"pattern":"(?=a)"}`, `{"enum":["<"]}`,
	} {
		if _, err := compileFast(json.RawMessage(raw)); !errors.Is(err, errFastUnsupported) {
			t.Errorf("%s: %v, want errFastUnsupported", raw, err)
		}
	}
}

func TestFastSchemaAllocations(t *testing.T) {
	fast, err := compileFast(json.RawMessage(fastTestSchemas["notes-output"]))
	if err != nil {
		t.Fatal(err)
	}
	inst := []byte(`{"matches":[{"file":"meeting.md","line":3,"text":"the plan"},{"file":"todo.md","line":1,"text":"x"}],"truncated":false}`)
	if allocs := testing.AllocsPerRun(100, func() { fast.validate(inst, 0) }); allocs != 0 {
		t.Errorf("fast validation allocates %v times, want 0", allocs)
	}
}

func FuzzFastSchema(f *testing.F) {
	for _, inst := range fastTestInstances {
		f.Add([]byte(inst))
	}
	type pair struct {
		fast *fastSchema
		full *jsonschema.Schema
	}
	pairs := map[string]pair{}
	for name, raw := range fastTestSchemas {
		fast, err := compileFast(json.RawMessage(raw))
		if err != nil {
			f.Fatal(err)
		}
		pairs[name] = pair{fast, compileFull(f, raw)}
	}
	f.Fuzz(func(t *testing.T, inst []byte) {
		if !json.Valid(inst) {
			return
		}
		for name, p := range pairs {
			checkFastSound(t, name, p.fast, p.full, inst)
		}
	})
}

func TestFastSchemaClosedTree(t *testing.T) {
	want := map[string]bool{"echo": true, "notes-output": true, "tree": true, "scalars": false,
		"required-undeclared": false, "int-root": true}
	for name, raw := range fastTestSchemas {
		fast, err := compileFast(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := fast.closedTree(map[*fastSchema]bool{}); got != want[name] {
			t.Errorf("%s: closedTree = %v, want %v", name, got, want[name])
		}
	}
}

func TestDecodeClosedFastPath(t *testing.T) {
	var in echoIn
	req := &ToolRequest{Name: "echo", Arguments: json.RawMessage(`{"text":"a","repeat":2}`), closed: true}
	if err := req.Decode(&in); err != nil || in.Text != "a" || in.Repeat != 2 {
		t.Errorf("Decode = %+v, %v", in, err)
	}
	strict := &ToolRequest{Name: "echo", Arguments: req.Arguments}
	fast := testing.AllocsPerRun(50, func() { _ = req.Decode(&in) })
	slow := testing.AllocsPerRun(50, func() { _ = strict.Decode(&in) })
	if fast >= slow {
		t.Errorf("closed Decode allocates %v times, strict %v: want fewer", fast, slow)
	}
	if err := (&ToolRequest{Name: "echo", Arguments: json.RawMessage(`{"text":5}`), closed: true}).Decode(&in); err == nil {
		t.Errorf("closed Decode accepted a number for a string")
	}
}
