package ask

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
)

// nameQuestion asks for a name; an answer must be an object with a non-empty
// "name" string (else ErrInvalidAnswer), and anything but an object is malformed.
func nameQuestion(key string, dst *string) Question {
	return Question{Key: key, Method: "elicitation/create", Need: clientcaps.ElicitForm,
		Params: func(bool) any { return map[string]string{"message": "name?"} },
		Accept: func(raw json.RawMessage) error {
			if !isObject(raw) {
				return fmt.Errorf("%w: not an object", ErrMalformed)
			}
			var v struct{ Name string }
			if json.Unmarshal(raw, &v) != nil || v.Name == "" {
				return fmt.Errorf("%w: no name", ErrInvalidAnswer)
			}
			*dst = v.Name
			return nil
		}}
}

var formCaps = json.RawMessage(`{"elicitation":{}}`)

func newSealer() *seal.Sealer {
	return seal.New([][]byte{[]byte("0123456789abcdef0123456789abcdef")}, time.Minute, nil)
}

// inputRequired decodes an input_required result.
func inputRequired(t *testing.T, b []byte) (requests map[string]json.RawMessage, state string) {
	t.Helper()
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
		Meta          map[string]any             `json:"_meta"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("result %s: %v", b, err)
	}
	if res.ResultType != "input_required" || res.RequestState == "" || res.Meta["server"] != "x" {
		t.Fatalf("result %s", b)
	}
	return res.InputRequests, res.RequestState
}

func TestRoundTrip(t *testing.T) {
	sl, now := newSealer(), time.Now
	who := Caller{Subject: "alice", Known: true}
	args := json.RawMessage(`{"id":1}`)

	// Round 1: nothing answered; both questions go out in one result.
	var r Round
	r.Reset("tools/call", "greet", args, who)
	if f := r.Read(json.RawMessage(`{"name":"greet"}`), sl, now); f != nil {
		t.Fatal(f)
	}
	var first, second string
	qs := []Question{nameQuestion("a", &first), nameQuestion("b", &second)}
	if err := r.Ask(qs); !errors.Is(err, ErrInputRequired) {
		t.Fatalf("Ask = %v, want ErrInputRequired", err)
	}
	if !r.Pending() {
		t.Fatal("a round with open questions is not pending")
	}
	b, f, handled, err := r.Close(true, 10, sl, []byte(`{"server":"x"}`), now)
	if f != nil || !handled || err != nil {
		t.Fatalf("Close = %v %v %v", f, handled, err)
	}
	reqs, state := inputRequired(t, b)
	if len(reqs) != 2 || !strings.Contains(string(reqs["a"]), `"method":"elicitation/create"`) {
		t.Fatalf("inputRequests %s", b)
	}

	// Round 2: "a" answered; its answer is sealed in the next state.
	params, _ := json.Marshal(map[string]any{"inputResponses": map[string]any{"a": map[string]string{"Name": "Ada"}}, "requestState": state})
	r.Reset("tools/call", "greet", args, who)
	if f := r.Read(params, sl, now); f != nil {
		t.Fatal(f)
	}
	if err := r.Ask(qs); !errors.Is(err, ErrInputRequired) || first != "Ada" {
		t.Fatalf("Ask = %v, first %q", err, first)
	}
	b, _, _, _ = r.Close(true, 10, sl, []byte(`{"server":"x"}`), now)
	reqs, state = inputRequired(t, b)
	if _, ok := reqs["a"]; ok || len(reqs) != 1 {
		t.Fatalf("round 2 asks again for a: %s", b)
	}

	// Round 3: "a" comes from the state alone, "b" from inputResponses.
	first = ""
	params, _ = json.Marshal(map[string]any{"inputResponses": map[string]any{"b": map[string]string{"Name": "Bob"}}, "requestState": state})
	r.Reset("tools/call", "greet", args, who)
	if f := r.Read(params, sl, now); f != nil {
		t.Fatal(f)
	}
	if err := r.Ask(qs); err != nil || first != "Ada" || second != "Bob" {
		t.Fatalf("Ask = %v, answers %q %q", err, first, second)
	}
	if _, _, handled, _ := r.Close(true, 10, sl, nil, now); handled || r.Pending() {
		t.Fatal("an answered round still ends the request")
	}

	// The state is bound to its request and caller.
	for _, other := range []struct {
		name string
		args json.RawMessage
		who  Caller
	}{{"greet", json.RawMessage(`{"id":2}`), who}, {"other", args, who}, {"greet", args, Caller{Subject: "bob", Known: true}}, {"greet", args, Caller{}}} {
		r.Reset("tools/call", other.name, other.args, other.who)
		f := r.Read(params, sl, now)
		if f == nil || f.Code != codeInvalidParams || !strings.Contains(f.Msg, seal.ErrMismatch.Error()) {
			t.Errorf("state opened for %+v: %v", other, f)
		}
	}
}

// TestAnswersBelongToQuestions: inputResponses count only for the questions
// the sealed state asked: none without a state (a pre-answered question is
// asked), not a key the last round did not ask; a duplicate member is refused.
func TestAnswersBelongToQuestions(t *testing.T) {
	sl, now := newSealer(), time.Now
	var r Round
	var a, b string
	qs := []Question{nameQuestion("a", &a), nameQuestion("b", &b)}
	r.Reset("tools/call", "t", nil, Caller{})
	if f := r.Read(json.RawMessage(`{"inputResponses":{"a":{"Name":"Ada"},"b":{"Name":"Bob"}}}`), sl, now); f != nil {
		t.Fatal(f)
	}
	if err := r.Ask(qs[:1]); !errors.Is(err, ErrInputRequired) || a != "" {
		t.Fatalf("pre-answered without a state: Ask = %v, a %q", err, a)
	}
	out, _, _, _ := r.Close(true, 10, sl, []byte(`{"server":"x"}`), now)
	_, state := inputRequired(t, out)
	r.Reset("tools/call", "t", nil, Caller{})
	if f := r.Read(json.RawMessage(`{"inputResponses":{"a":{"Name":"Ada"},"b":{"Name":"Bob"}},"requestState":"`+state+`"}`), sl, now); f != nil {
		t.Fatal(f)
	}
	if err := r.Ask(qs); !errors.Is(err, ErrInputRequired) || a != "Ada" || b != "" {
		t.Fatalf("answer to a question not asked: Ask = %v, a %q b %q", err, a, b)
	}
	r.Reset("tools/call", "t", nil, Caller{})
	if f := r.Read(json.RawMessage(`{"inputResponses":{"a":{"Name":"Ada"},"a":{"Name":"Eve"}},"requestState":"`+state+`"}`), sl, now); f == nil || !strings.Contains(f.Msg, "duplicate") {
		t.Fatalf("duplicate answers: %v", f)
	}
}

func TestReadRefusals(t *testing.T) {
	sl := newSealer()
	for params, want := range map[string]string{
		`{"inputResponses":[1]}`:                      "inputResponses must be an object",
		`{"inputResponses":{"a":1,}}`:                 "inputResponses:",
		`{"requestState":7}`:                          "requestState must be a string",
		`{"requestState":"not a token"}`:              "requestState",
		`{"inputResponses":null,"requestState":null}`: "",
	} {
		var r Round
		r.Reset("prompts/get", "p", nil, Caller{})
		f := r.Read(json.RawMessage(params), sl, time.Now)
		switch {
		case want == "" && f != nil:
			t.Errorf("%s: %v", params, f)
		case want != "" && (f == nil || f.Code != codeInvalidParams || !strings.Contains(f.Msg, want)):
			t.Errorf("%s: %v, want %q", params, f, want)
		}
	}
}

func TestCheckAndMalformed(t *testing.T) {
	var r Round
	r.Reset("tools/call", "t", nil, Caller{})
	var name string
	q := nameQuestion("a", &name)
	if err := r.Check(&q, formCaps); err != nil {
		t.Fatalf("declared capability refused: %v", err)
	}
	q.Need = clientcaps.Sampling
	if err := r.Check(&q, formCaps); !errors.Is(err, ErrMissingCapability) {
		t.Fatalf("Check = %v", err)
	}
	f := r.Failure()
	if f == nil || f.Code != codeMissingClientCap || !strings.Contains(f.Msg, "sampling") {
		t.Fatalf("failure %+v", f)
	}
	if _, ok := f.Data.(map[string]any)["requiredCapabilities"]; !ok {
		t.Fatalf("data %v", f.Data)
	}
	if _, got, handled, _ := r.Close(true, 10, newSealer(), nil, time.Now); got != f || !handled {
		t.Fatal("Close does not answer the capability failure")
	}
	if err := r.Check(&Question{Need: clientcaps.Roots}, nil); !errors.Is(err, ErrNoInput) {
		t.Fatalf("empty key: %v", err)
	}

	// A malformed answer from inputResponses is a protocol error (to a
	// question the sealed state asked).
	sl := newSealer()
	r.Reset("tools/call", "t", nil, Caller{})
	if err := r.Ask([]Question{nameQuestion("a", &name)}); !errors.Is(err, ErrInputRequired) {
		t.Fatal(err)
	}
	b, _, _, _ := r.Close(true, 10, sl, []byte(`{"server":"x"}`), time.Now)
	_, state := inputRequired(t, b)
	r.Reset("tools/call", "t", nil, Caller{})
	if f := r.Read(json.RawMessage(`{"inputResponses":{"a":"text"},"requestState":"`+state+`"}`), sl, time.Now); f != nil {
		t.Fatal(f)
	}
	if err := r.Ask([]Question{nameQuestion("a", &name)}); !errors.Is(err, ErrInvalidAnswer) {
		t.Fatalf("Ask = %v", err)
	}
	if f := r.Failure(); f == nil || f.Code != codeInvalidParams || !strings.Contains(f.Msg, `inputResponses["a"]`) {
		t.Fatalf("failure %+v", f)
	}
	// An invalid (not malformed) answer is asked again.
	r.Reset("tools/call", "t", nil, Caller{})
	_ = r.Read(json.RawMessage(`{"inputResponses":{"a":{"Name":""}}}`), newSealer(), time.Now)
	if err := r.Ask([]Question{nameQuestion("a", &name)}); !errors.Is(err, ErrInputRequired) || r.Failure() != nil {
		t.Fatalf("Ask = %v, failure %v", err, r.Failure())
	}
}

func TestRoundLimitAndLegacy(t *testing.T) {
	sl, now := newSealer(), time.Now
	var r Round
	r.Reset("resources/read", "x://y", nil, Caller{})
	var name string
	_ = r.Ask([]Question{nameQuestion("a", &name)})
	if _, f, handled, _ := r.Close(false, 10, sl, nil, now); f != nil || handled {
		t.Fatal("a 2025-11-25 round ends its request")
	}
	if _, f, handled, _ := r.Close(true, 1, sl, nil, now); !handled || f == nil || !strings.Contains(f.Msg, "too many input rounds for resources/read (limit 1)") {
		t.Fatalf("limit: %v", f)
	}
	var child Round
	child.Inherit(&r)
	if !child.Opened() || child.Pending() {
		t.Fatal("Inherit copies the binding, not the open questions")
	}
}

func TestCallerID(t *testing.T) {
	if (Caller{}).ID() != "" || (Caller{Known: true}).ID() != "0:" || (Caller{Subject: "a", Client: "c", Known: true}).ID() != "1:ac" || (Caller{Subject: "a\x00b", Client: "c", Known: true}).ID() == (Caller{Subject: "a", Client: "b\x00c", Known: true}).ID() {
		t.Fatal("Caller.ID")
	}
}

// TestDuplicateMember finds a repeated name among few members and among many.
func TestDuplicateMember(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, `"k%d":1,`, i)
	}
	for raw, want := range map[string]string{`{"a":1,"b":2}`: "", `{"a":1,"a":2}`: "a",
		b.String() + `"k7":2}`: "k7", b.String() + `"k99":2}`: "k99", b.String() + `"z":2}`: ""} {
		if got := duplicateMember([]byte(raw)); got != want {
			t.Errorf("duplicateMember(%.40s…) = %q, want %q", raw, got, want)
		}
	}
}
