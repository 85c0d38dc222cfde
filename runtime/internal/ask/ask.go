// Package ask is one request's round of questions to the client (MRTR): the
// answers a round starts with (inputResponses and a sealed requestState), matching
// the handler's questions to them, the questions left open, and the
// input_required result that ends a 2026-07-28 round.
//
// Asking works the same for the handler in both eras:
//
//   - 2026-07-28 (MRTR): a question without an answer ends the round. Ask returns
//     ErrInputRequired, the handler returns it (wrapped or not), and the request is
//     answered with resultType "input_required", the unanswered questions as
//     inputRequests (keyed by the handler's keys) and a sealed requestState that
//     carries the answers gathered so far. The client retries the same request with
//     inputResponses and the state; the handler runs again from the start, and every
//     question answered so far returns its answer at once. Nothing is kept in server
//     memory between rounds.
//   - 2025-11-25: each question goes to the client as a server-to-client request on
//     the session and the handler waits for the answer (the runtime's part).
//
// The rule that makes one handler serve both: a handler must do nothing it cannot
// repeat before its last question (no writes, no messages, no charges), and must ask
// the same questions, with the same keys, for the same arguments and answers.
package ask

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
)

// The JSON-RPC error codes a round answers a request with.
const (
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeMissingClientCap = -32021
)

// Errors of asking (the runtime exports them under the same names).
var (
	ErrInputRequired     = errors.New("input required from the client")
	ErrMissingCapability = errors.New("client lacks a required capability")
	ErrNoInput           = errors.New("this request cannot ask the client for input")
	ErrInvalidAnswer     = errors.New("invalid answer from the client")
	// ErrMalformed marks an answer that is not even the right kind of result: a
	// protocol error, where ErrInvalidAnswer means "ask again".
	ErrMalformed = errors.New("malformed answer")
)

// A Question is one thing a handler asks the client.
type Question struct {
	Key    string
	Method string // elicitation/create, sampling/createMessage, roots/list
	Need   clientcaps.Capability
	Params func(modern bool) any
	// Accept decodes an answer into the question's destination. It returns an
	// ErrMalformed error (a protocol error) or an ErrInvalidAnswer one (ask again).
	Accept func(raw json.RawMessage) error
}

// A Fail is the JSON-RPC error a round answers its request with.
type Fail struct {
	Code int
	Msg  string
	Data any
}

func failf(code int, format string, args ...any) *Fail {
	return &Fail{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// A Caller is who asks: its identity binds the sealed state.
type Caller struct {
	Subject, Client string
	Known           bool // false: no principal, the empty identity
}

// ID is the caller's identity in sealed state: PrincipalID, "" for none.
func (c Caller) ID() string {
	if !c.Known {
		return ""
	}
	return PrincipalID(c.Subject, c.Client)
}

// PrincipalID is the identity of a principal wherever one is bound (sealed
// requestState, sessions, tasks, listen streams): the subject's length in
// decimal, ':', the subject, then the client. It is unambiguous whatever the
// strings hold (a subject may contain any character, NUL included, so a
// separator alone would let ("a\x00b", "c") meet ("a", "b\x00c")).
func PrincipalID(subject, client string) string {
	var buf [64]byte
	b := strconv.AppendInt(buf[:0], int64(len(subject)), 10)
	b = append(append(append(b, ':'), subject...), client...)
	return string(b)
}

// A Round is what one request (tools/call, resources/read, prompts/get) knows about
// its questions: the answers available in this round and the questions left open.
//
// Most requests never ask anything, so a round costs little until it is used: the
// digest of the arguments is computed only when a state is opened or sealed, and
// the maps are made on first write (reading a nil map is fine).
type Round struct {
	binding seal.State                 // method, name and digest (see bound) the state is bound to
	args    json.RawMessage            // the salient params binding.Digest covers
	number  int                        // 1 for a first request, then state's round + 1
	caller  Caller                     // binding.Caller is its ID
	answers map[string]json.RawMessage // from the state and inputResponses
	fromSt  map[string]bool            // answers that came sealed (already validated)

	// mu guards the fields below: a handler may ask from several goroutines.
	mu    sync.Mutex
	used  map[string]json.RawMessage // validated answers the handler consumed
	asked []Question                 // questions without an answer, in ask order
	keys  map[string]bool            // keys of asked
	fail  *Fail                      // protocol error found while asking
}

// Reset starts r as the first round of a request for method and name (the tool,
// prompt or resource URI) with its salient args.
func (r *Round) Reset(method, name string, args json.RawMessage, caller Caller) {
	*r = Round{binding: seal.State{Method: method, Name: name}, args: args, number: 1, caller: caller}
}

// Opened reports whether Reset started r.
func (r *Round) Opened() bool { return r.number > 0 }

// Inherit gives r the binding and the answers of from (a task handler's round,
// made from its request's).
func (r *Round) Inherit(from *Round) {
	r.binding, r.args, r.number, r.caller = from.binding, from.args, from.number, from.caller
	r.answers, r.fromSt = from.answers, from.fromSt
}

// Read takes a 2026-07-28 request's answers from params (a JSON object, read in
// place): inputResponses, and the answers of a requestState it verifies with sl
// at now() (called only for a state).
func (r *Round) Read(params json.RawMessage, sl *seal.Sealer, now func() time.Time) *Fail {
	var responses, state json.RawMessage
	if len(params) > 0 && params[0] == '{' {
		jsonwire.EachMember(params, func(key, val []byte) {
			switch string(key) {
			case "inputResponses":
				responses = val
			case "requestState":
				state = val
			}
		})
	}
	answers, f := readResponses(responses)
	if f != nil {
		return f
	}
	asked, f := r.readState(state, sl, now)
	if f != nil {
		return f
	}
	// An answer counts only for a question the sealed state says this server
	// asked: a client cannot pre-answer a question (the consent question above
	// all) in a first request, nor add answers the last round did not ask for.
	// Others are ignored, as the specification says of unexpected responses.
	for k, v := range answers {
		if !slices.Contains(asked, k) || r.fromSt[k] {
			continue
		}
		if r.answers == nil {
			r.answers = make(map[string]json.RawMessage, len(answers))
		}
		r.answers[k] = v
	}
	return nil
}

// bound returns the binding with its digest, computing the digest on first use.
func (r *Round) bound() *seal.State {
	if r.binding.Digest == "" {
		r.binding.Digest = seal.ArgsDigest(r.args)
		r.binding.Caller = r.caller.ID()
	}
	return &r.binding
}

// readResponses decodes the request's inputResponses; null counts as absent. A
// member name given twice is refused: which of the two answers would count
// must not depend on the decoder.
func readResponses(raw json.RawMessage) (map[string]json.RawMessage, *Fail) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if !isObject(raw) {
		return nil, failf(codeInvalidParams, "invalid params: inputResponses must be an object")
	}
	var answers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &answers); err != nil {
		return nil, failf(codeInvalidParams, "invalid params: inputResponses: %v", err)
	}
	if dup := duplicateMember(raw); dup != "" {
		return nil, failf(codeInvalidParams, "invalid params: inputResponses: duplicate member %q", dup)
	}
	return answers, nil
}

// readState verifies an echoed requestState and takes its answers (they win over
// inputResponses: they were validated when first given); it returns the keys
// of the questions the state's round asked.
func (r *Round) readState(raw json.RawMessage, sl *seal.Sealer, now func() time.Time) ([]string, *Fail) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	token, ok := jsonwire.String(raw)
	if !ok {
		return nil, failf(codeInvalidParams, "invalid params: requestState must be a string")
	}
	st, err := sl.Open(token, r.bound(), now())
	if err != nil {
		return nil, failf(codeInvalidParams, "%v", err)
	}
	r.number = st.Round + 1
	r.answers = make(map[string]json.RawMessage, len(st.Answers)+len(st.Asked))
	r.fromSt = make(map[string]bool, len(st.Answers))
	for k, v := range st.Answers {
		r.answers[k], r.fromSt[k] = v, true
	}
	return st.Asked, nil
}

// duplicateMember returns a member name the JSON object raw holds twice
// (exactly; "" when none).
func duplicateMember(raw []byte) string {
	var few [8]string
	seen := few[:0]
	var many map[string]bool // past a few names: no quadratic scan of a large object
	dup := ""
	jsonwire.EachMember(raw, func(key, _ []byte) {
		switch {
		case dup != "":
		case many != nil:
			if many[string(key)] {
				dup = string(key)
			}
			many[string(key)] = true
		case slices.Contains(seen, string(key)):
			dup = string(key)
		case len(seen) < len(few):
			seen = append(seen, string(key))
		default:
			many = make(map[string]bool, 2*len(few))
			for _, k := range seen {
				many[k] = true
			}
			many[string(key)] = true
		}
	})
	return dup
}

// Check fails the round with -32021 when a client that declared caps cannot
// answer q, returning an ErrMissingCapability error; nil when it can.
func (r *Round) Check(q *Question, caps json.RawMessage) error {
	if q.Key == "" {
		return fmt.Errorf("%w: empty question key", ErrNoInput)
	}
	if caps != nil && q.Need.Declared(caps) {
		return nil
	}
	f := failf(codeMissingClientCap, "Server requires the %s capability for this request", q.Need.Name())
	f.Data = map[string]any{"requiredCapabilities": q.Need.Required()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail == nil {
		r.fail = f
	}
	return fmt.Errorf("%w: %s", ErrMissingCapability, q.Need.Name())
}

// Ask answers the questions from this round's answers, records the others as
// open, and reports ErrInputRequired when any is (2026-07-28).
func (r *Round) Ask(qs []Question) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	open := 0
	for _, q := range qs {
		raw, ok := r.answers[q.Key]
		if ok {
			err := q.Accept(raw)
			if err == nil {
				if r.used == nil {
					r.used = map[string]json.RawMessage{}
				}
				r.used[q.Key] = raw
				continue
			}
			if errors.Is(err, ErrMalformed) && !r.fromSt[q.Key] {
				if r.fail == nil {
					r.fail = failf(codeInvalidParams, "invalid inputResponses[%q]: %v", q.Key, err)
				}
				return fmt.Errorf("%w: %v", ErrInvalidAnswer, err)
			}
		}
		open++
		if !r.keys[q.Key] {
			if r.keys == nil {
				r.keys = map[string]bool{}
			}
			r.keys[q.Key] = true
			r.asked = append(r.asked, q)
		}
	}
	if open > 0 {
		return ErrInputRequired
	}
	return nil
}

// Pending reports whether the round ends the request by itself: a protocol error
// found while asking, or open questions.
func (r *Round) Pending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail != nil || len(r.asked) > 0
}

// Failure returns the protocol error found while asking, or nil.
func (r *Round) Failure() *Fail {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail
}

// Close decides the request's answer after its handler returned: a protocol error
// found while asking, an input_required result when questions are open (2026-07-28,
// ending with _meta meta, its state sealed at now()), or nothing (handled false) to
// let the method encode its own result. err, with an internal error, is what to log.
func (r *Round) Close(modern bool, maxRounds int, sl *seal.Sealer, meta []byte, now func() time.Time) (result []byte, f *Fail, handled bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.fail != nil:
		return nil, r.fail, true, nil
	case !modern || len(r.asked) == 0:
		return nil, nil, false, nil
	case r.number >= maxRounds:
		return nil, failf(codeInvalidParams, "too many input rounds for %s (limit %d)", r.binding.Method, maxRounds), true, nil
	}
	b, err := r.inputRequired(sl, meta, now())
	if err != nil {
		return nil, failf(codeInternalError, "internal error: cannot encode input requests"), true, err
	}
	return b, nil, true, nil
}

// inputRequired encodes the InputRequiredResult: the open questions in ask order and
// a sealed state with the answers used so far.
func (r *Round) inputRequired(sl *seal.Sealer, meta []byte, now time.Time) ([]byte, error) {
	st := *r.bound()
	st.Round, st.Answers = r.number, r.used
	st.Asked = make([]string, len(r.asked))
	for i, q := range r.asked {
		st.Asked[i] = q.Key
	}
	token, err := sl.Seal(&st, now)
	if err != nil {
		return nil, err
	}
	b := []byte(`{"resultType":"input_required","inputRequests":{`)
	for i, q := range r.asked {
		if i > 0 {
			b = append(b, ',')
		}
		p, err := json.Marshal(q.Params(true))
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", q.Key, err)
		}
		b = append(jsonwire.AppendString(b, q.Key), `:{"method":`...)
		b = append(jsonwire.AppendString(b, q.Method), `,"params":`...)
		b = append(append(b, p...), '}')
	}
	b = append(b, `},"requestState":`...)
	b = jsonwire.AppendString(b, token)
	b = append(b, `,"_meta":`...)
	return append(append(b, meta...), '}'), nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = jsonwire.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
