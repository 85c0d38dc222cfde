package seal

import (
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"
)

func TestStateSealerExpiryAndRotation(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	old := New([][]byte{[]byte("old-secret-0123456789")}, time.Minute, logger)
	rolled := New([][]byte{[]byte("new-secret-0123456789"), []byte("old-secret-0123456789")}, time.Minute, logger)
	fresh := New([][]byte{[]byte("new-secret-0123456789")}, time.Minute, logger)
	want := &State{Method: "tools/call", Name: "greet", Digest: ArgsDigest(json.RawMessage(`{"b":1, "a":2}`))}
	now := time.Now()
	token, err := old.Seal(&State{Method: "tools/call", Name: "greet", Digest: ArgsDigest(json.RawMessage(`{"a":2,"b":1}`)), Round: 1}, now)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := rolled.Open(token, want, now); err != nil || st.Round != 1 {
		t.Errorf("rotated keys: got %+v, %v; want round 1 (the old key still opens)", st, err)
	}
	if _, err := fresh.Open(token, want, now); !errors.Is(err, ErrInvalid) {
		t.Errorf("retired key: got %v, want ErrInvalid", err)
	}
	if _, err := old.Open(token, want, now.Add(2*time.Minute)); !errors.Is(err, ErrExpired) {
		t.Errorf("after the TTL: got %v, want ErrExpired", err)
	}
	other := *want
	other.Method = "prompts/get"
	if _, err := old.Open(token, &other, now); !errors.Is(err, ErrMismatch) {
		t.Errorf("other method: got %v, want ErrMismatch", err)
	}
}
