package ledger

// peek.go: looking a key up without claiming it, for the check that runs
// before consent (a replay is not a new action: it is answered, and a reused
// key refused, without asking the user again).

import "context"

// Peek looks up the key of (subject, tool, key) for a call whose arguments
// digest to args, without claiming it: Replayed (Decision.Result holds the
// stored result) when the key is done with these arguments, Conflict when it
// was used with other arguments, StoreError when the store failed, and 0
// otherwise (free, or a call with these arguments still running or lapsed:
// Begin decides, after consent).
func (l *Ledger) Peek(ctx context.Context, subject, tool, key, args string) Decision {
	c := l.newClaim(ctx, digestParts(subject, tool, key), args, "")
	defer l.recycle(c)
	cur, found, err := l.get(c, nil)
	switch {
	case err != nil:
		return Decision{Outcome: StoreError, Err: err}
	case !found:
		return Decision{}
	}
	rec, err := parseRecord(cur)
	switch {
	case err != nil:
		return Decision{Outcome: StoreError, Err: err}
	case string(rec.args) != args:
		return Decision{Outcome: Conflict}
	case string(rec.state) != stateDone:
		return Decision{}
	}
	st, err := ParseStored(rec.result)
	if err != nil {
		return Decision{Outcome: StoreError, Err: err}
	}
	return Decision{Outcome: Replayed, Result: st}
}
