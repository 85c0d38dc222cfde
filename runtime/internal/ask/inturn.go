package ask

// inturn.go: asking in 2025-11-25: one server-to-client request per question.

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
