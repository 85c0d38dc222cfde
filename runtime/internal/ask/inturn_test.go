package ask

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// TestInTurn: questions go out in order with their legacy params; a failing
// request or answer ends the turn, naming the key.
func TestInTurn(t *testing.T) {
	var got []string
	q := func(key string, accept error) Question {
		return Question{Key: key, Method: "m/" + key,
			Params: func(modern bool) any { return map[string]bool{"modern": modern} },
			Accept: func(raw json.RawMessage) error { got = append(got, key+"="+string(raw)); return accept }}
	}
	request := func(_ context.Context, method string, params any) (json.RawMessage, error) {
		if method == "m/down" {
			return nil, errors.New("gone")
		}
		b, _ := json.Marshal(params)
		return b, nil
	}
	if err := InTurn(context.Background(), []Question{q("a", nil), q("b", nil)}, request); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != `a={"modern":false}` || got[1] != `b={"modern":false}` {
		t.Fatalf("answers: %q", got)
	}
	got = nil
	err := InTurn(context.Background(), []Question{q("a", ErrInvalidAnswer), q("b", nil)}, request)
	if !errors.Is(err, ErrInvalidAnswer) || err.Error() != "ask a: invalid answer from the client" || len(got) != 1 {
		t.Fatalf("bad answer: %v, %q", err, got)
	}
	err = InTurn(context.Background(), []Question{q("down", nil)}, request)
	if err == nil || err.Error() != "ask down: gone" {
		t.Fatalf("failed request: %v", err)
	}
}
