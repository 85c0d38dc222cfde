package ask

// inturn.go: asking in 2025-11-25: one server-to-client request per question;
// a question as a task asks it (InTask).

import (
	"context"
	"encoding/json"
	"fmt"
)

// InTurn asks each question in turn with request (a server-to-client request
// that waits for the client's answer) and hands each answer to its question;
// the first failure ends it, naming the question's key.
func InTurn(ctx context.Context, qs []Question, request func(ctx context.Context, method string, params any) (json.RawMessage, error)) error {
	for i := range qs {
		q := &qs[i]
		raw, err := request(ctx, q.Method, q.Params(false))
		if err == nil {
			err = q.Accept(raw)
		}
		if err != nil {
			return fmt.Errorf("ask %s: %w", q.Key, err)
		}
	}
	return nil
}

// An InTask is a question asked inside a task, as internal/tasks asks it (its
// Question interface): its key, its inputRequest, its 2025-11-25 request and
// the answer's check.
type InTask struct{ Q *Question }

// Key returns the question's key.
func (a InTask) Key() string { return a.Q.Key }

// Request returns the question's inputRequest: {"method":…,"params":…}.
func (a InTask) Request() (json.RawMessage, error) {
	return json.Marshal(map[string]any{"method": a.Q.Method, "params": a.Q.Params(true)})
}

// Legacy returns the 2025-11-25 server-to-client request that asks it.
func (a InTask) Legacy() (string, any) { return a.Q.Method, a.Q.Params(false) }

// Accept checks an answer and stores it in the question's destination.
func (a InTask) Accept(raw json.RawMessage) error { return a.Q.Accept(raw) }
