package runtime

// mrtr.go: asking the client mid-call (MRTR): rounds, Ask, requestState, capability
// checks.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
)

// Asking the client mid-call works the same for the handler in both eras:
//
//   - 2026-07-28 (MRTR): a question without an answer ends the round. Ask returns
//     ErrInputRequired, the handler returns it (wrapped or not), and the runtime
//     answers the request with resultType "input_required", the unanswered questions
//     as inputRequests (keyed by the handler's keys) and a sealed requestState that
//     carries the answers gathered so far. The client retries the same request with
//     inputResponses and the state; the runtime runs the handler again from the
//     start, and every question answered so far returns its answer at once. Nothing
//     is kept in server memory between rounds.
//   - 2025-11-25: Ask sends each question to the client as a server-to-client request
//     on the session (the call's own stream on HTTP) and waits for the answer, bounded
//     by the call's context and Options.InputTimeout.
//
// The rule that makes one handler serve both: a handler must do nothing it cannot
// repeat before its last question (no writes, no messages, no charges), and must ask
// the same questions, with the same keys, for the same arguments and answers.

// StateKeyEnv names the environment variable NewServer reads requestState keys from
// when Options.StateKeys is empty: one secret, or several separated by commas (the
// first seals, all open, so keys can be rotated). Every replica behind one endpoint
// needs the same value.
const StateKeyEnv = seal.KeyEnv

// Defaults for the MRTR options (the requestState TTL's default is in internal/seal).
const (
	defaultInputTimeout   = 5 * time.Minute
	defaultMaxInputRounds = 10
)

// Errors of requestState verification. Each becomes a -32602 reply.
var (
	// ErrStateInvalid reports a requestState that was tampered with, is malformed, or
	// was sealed with a key this server does not hold.
	ErrStateInvalid = seal.ErrInvalid
	// ErrStateExpired reports a requestState presented after its expiry.
	ErrStateExpired = seal.ErrExpired
	// ErrStateMismatch reports a requestState issued for another method, tool,
	// resource, prompt or other arguments.
	ErrStateMismatch = seal.ErrMismatch
)

// Errors reported by Ask.
var (
	// ErrInputRequired reports that a 2026-07-28 round ends here: the handler must
	// return (this error, wrapped or not) and will run again when the client answers.
	ErrInputRequired = errors.New("input required from the client")
	// ErrMissingCapability reports a question the client did not declare it can
	// answer; the request is answered with -32021.
	ErrMissingCapability = errors.New("client lacks a required capability")
	// ErrNoInput reports a question asked outside tools/call, resources/read or
	// prompts/get, or outside any request.
	ErrNoInput = errors.New("this request cannot ask the client for input")
	// ErrInvalidAnswer reports a 2025-11-25 answer that does not match the question
	// (e.g. form content that breaks the requested schema).
	ErrInvalidAnswer = errors.New("invalid answer from the client")
	// ErrNoForm reports an Elicit of a type without a registered schema (AddForm).
	ErrNoForm = errors.New("no elicitation schema registered for the form type")
)

// roundKey is the context key of the request's input round.
type roundKey struct{}

// A round is what one request (tools/call, resources/read, prompts/get) knows about
// its questions: the answers available in this round and the questions left open.
//
// Most requests never ask anything, so a round costs little until it is used: the
// digest of the arguments is computed only when a state is opened or sealed, and
// the maps are made on first write (reading a nil map is fine).
type round struct {
	binding seal.State                 // method, name and digest (see bound) the state is bound to
	args    json.RawMessage            // the salient params binding.Digest covers
	number  int                        // 1 for a first request, then state's round + 1
	caller  *Principal                 // who asks: binding.Caller is its principalID (authorize.go)
	answers map[string]json.RawMessage // from the state and inputResponses
	fromSt  map[string]bool            // answers that came sealed (already validated)

	// mu guards the fields below: a handler may ask from several goroutines.
	mu    sync.Mutex
	used  map[string]json.RawMessage // validated answers the handler consumed
	asked []Question                 // questions without an answer, in ask order
	keys  map[string]bool            // keys of asked
	fail  *rpcError                  // protocol error found while asking
}

// openRound prepares a request's round: for 2026-07-28 it verifies the requestState
// and reads inputResponses from params. name is the tool, prompt or resource URI;
// args its salient params.
func (s *Server) openRound(c *call, name string, args json.RawMessage) (*round, *rpcError) {
	r := &c.round // part of the call: no allocation of its own
	*r = round{binding: seal.State{Method: c.msg.Method, Name: name}, args: args, number: 1, caller: c.caller()}
	if !c.info.Modern {
		return r, nil
	}
	// params is a JSON object here (admit rejects anything else); its members are
	// read in place, without decoding the rest again.
	var responses, state json.RawMessage
	if p := c.msg.Params; len(p) > 0 && p[0] == '{' {
		jsonwire.EachMember(p, func(key, val []byte) {
			switch string(key) {
			case "inputResponses":
				responses = val
			case "requestState":
				state = val
			}
		})
	}
	if rerr := r.readResponses(responses); rerr != nil {
		return nil, rerr
	}
	if rerr := s.readState(r, state); rerr != nil {
		return nil, rerr
	}
	return r, nil
}

// bound returns the binding with its digest, computing the digest on first use.
func (r *round) bound() *seal.State {
	if r.binding.Digest == "" {
		r.binding.Digest = seal.ArgsDigest(r.args)
		r.binding.Caller = principalID(r.caller)
	}
	return &r.binding
}

// readResponses stores the request's inputResponses; null counts as absent.
func (r *round) readResponses(raw json.RawMessage) *rpcError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if !isObject(raw) {
		return errorf(CodeInvalidParams, "invalid params: inputResponses must be an object")
	}
	if err := json.Unmarshal(raw, &r.answers); err != nil {
		return errorf(CodeInvalidParams, "invalid params: inputResponses: %v", err)
	}
	return nil
}

// readState verifies an echoed requestState and merges its answers (they win over
// inputResponses: they were validated when first given).
func (s *Server) readState(r *round, raw json.RawMessage) *rpcError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	token, ok := rawString(raw)
	if !ok {
		return errorf(CodeInvalidParams, "invalid params: requestState must be a string")
	}
	st, err := s.sealer.Open(token, r.bound(), time.Now())
	if err != nil {
		return errorf(CodeInvalidParams, "%v", err)
	}
	r.number = st.Round + 1
	if r.answers == nil {
		r.answers = make(map[string]json.RawMessage, len(st.Answers))
	}
	r.fromSt = make(map[string]bool, len(st.Answers))
	for k, v := range st.Answers {
		r.answers[k], r.fromSt[k] = v, true
	}
	return nil
}

// withRound returns ctx carrying r for Ask: the call's own context finds the
// call's round without a context of its own.
func withRound(ctx context.Context, r *round) context.Context {
	if x, ok := ctx.(*callCtx); ok && &x.c.round == r {
		return ctx
	}
	return context.WithValue(ctx, roundKey{}, r)
}

// closeRound decides the request's answer after its handler returned: a protocol
// error found while asking, an input_required result when questions are open
// (2026-07-28), or nothing (handled false) to let the method encode its own result.
func (s *Server) closeRound(c *call, r *round) (result []byte, rerr *rpcError, handled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.fail != nil:
		return nil, r.fail, true
	case !c.info.Modern || len(r.asked) == 0:
		return nil, nil, false
	case r.number >= s.opts.MaxInputRounds:
		return nil, errorf(CodeInvalidParams, "too many input rounds for %s (limit %d)", r.binding.Method, s.opts.MaxInputRounds), true
	}
	b, err := s.inputRequired(c, r)
	if err != nil {
		s.logger.Error("input_required result unusable", "method", r.binding.Method, "err", err)
		return nil, errorf(CodeInternalError, "internal error: cannot encode input requests"), true
	}
	return b, nil, true
}

// inputRequired encodes the InputRequiredResult: the open questions in ask order and
// a sealed state with the answers used so far.
func (s *Server) inputRequired(c *call, r *round) ([]byte, error) {
	st := *r.bound()
	st.Round, st.Answers = r.number, r.used
	token, err := s.sealer.Seal(&st, time.Now())
	if err != nil {
		return nil, err
	}
	b := []byte(`{"resultType":"input_required","inputRequests":{`)
	for i, q := range r.asked {
		if i > 0 {
			b = append(b, ',')
		}
		p, err := json.Marshal(q.params(true))
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", q.key, err)
		}
		b = append(jsonwire.AppendString(b, q.key), `:{"method":`...)
		b = append(jsonwire.AppendString(b, q.method), `,"params":`...)
		b = append(append(b, p...), '}')
	}
	b = append(b, `},"requestState":`...)
	b = jsonwire.AppendString(b, token)
	b = append(b, `,"_meta":`...)
	return append(append(b, s.serverInfoMeta...), '}'), nil
}

// A Question is one thing a handler asks the client: an elicitation, a sampling
// request or a roots listing. Build it with AskElicitation, AskElicitationURL,
// AskSampling or AskRoots and pass it to Ask.
type Question struct {
	key    string
	method string
	need   capability
	params func(modern bool) any
	// accept decodes an answer into the question's destination. It returns
	// errMalformed (a protocol error) or an ErrInvalidAnswer error (ask again).
	accept func(raw json.RawMessage) error
}

// errMalformed marks an answer that is not even the right kind of result.
var errMalformed = errors.New("malformed answer")

// Ask asks the client every question and stores each answer in its destination. In
// 2026-07-28 it returns ErrInputRequired if any question is still unanswered (the
// handler must then return); questions asked together go out in one round. In
// 2025-11-25 it sends the questions one by one and waits for each answer. It fails
// with ErrMissingCapability when the client did not declare what a question needs
// (the request then gets -32021), and with ErrNoInput outside tools/call,
// resources/read and prompts/get.
func Ask(ctx context.Context, qs ...Question) error {
	c, r := callFrom(ctx), roundFrom(ctx)
	if c == nil || r == nil {
		return ErrNoInput
	}
	for _, q := range qs {
		if err := r.check(c, q); err != nil {
			return err
		}
	}
	if tr := taskFrom(ctx); tr != nil {
		return tr.askAny(ctx, qs) // tasks.go
	}
	if c.info.Modern {
		return r.askModern(qs)
	}
	return c.askLegacy(ctx, qs)
}

// roundFrom returns the request's round, or nil.
func roundFrom(ctx context.Context) *round {
	r, _ := ctx.Value(roundKey{}).(*round)
	return r
}

// check fails the request with -32021 when the client cannot answer q.
func (r *round) check(c *call, q Question) error {
	if q.key == "" {
		return fmt.Errorf("%w: empty question key", ErrNoInput)
	}
	if c.info.ClientCapabilities != nil && q.need.Declared(c.info.ClientCapabilities) {
		return nil
	}
	e := errorf(CodeMissingClientCapability, "Server requires the %s capability for this request", q.need.Name())
	e.data = map[string]any{"requiredCapabilities": q.need.Required()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail == nil {
		r.fail = e
	}
	return fmt.Errorf("%w: %s", ErrMissingCapability, q.need.Name())
}

// askModern answers the questions from this round's answers, records the others as
// open, and reports ErrInputRequired when any is.
func (r *round) askModern(qs []Question) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	open := 0
	for _, q := range qs {
		raw, ok := r.answers[q.key]
		if ok {
			err := q.accept(raw)
			if err == nil {
				if r.used == nil {
					r.used = map[string]json.RawMessage{}
				}
				r.used[q.key] = raw
				continue
			}
			if errors.Is(err, errMalformed) && !r.fromSt[q.key] {
				if r.fail == nil {
					r.fail = errorf(CodeInvalidParams, "invalid inputResponses[%q]: %v", q.key, err)
				}
				return fmt.Errorf("%w: %v", ErrInvalidAnswer, err)
			}
		}
		open++
		if !r.keys[q.key] {
			if r.keys == nil {
				r.keys = map[string]bool{}
			}
			r.keys[q.key] = true
			r.asked = append(r.asked, q)
		}
	}
	if open > 0 {
		return ErrInputRequired
	}
	return nil
}

// askLegacy sends each question as a server-to-client request on the session and
// decodes its answer.
func (c *call) askLegacy(ctx context.Context, qs []Question) error {
	if c.sess == nil {
		return ErrNoInput
	}
	ctx, cancel := context.WithTimeout(ctx, c.srv.opts.InputTimeout)
	defer cancel()
	for _, q := range qs {
		raw, err := c.sess.Request(ctx, q.method, q.params(false), c.out)
		if err != nil {
			return fmt.Errorf("ask %s: %w", q.key, err)
		}
		if err := q.accept(raw); err != nil {
			return fmt.Errorf("ask %s: %w", q.key, err)
		}
	}
	return nil
}

// A capability is what a question needs the client to have declared
// (internal/clientcaps).
type capability = clientcaps.Capability

const (
	capElicitForm = clientcaps.ElicitForm
	capElicitURL  = clientcaps.ElicitURL
	capSampling   = clientcaps.Sampling
	capRoots      = clientcaps.Roots
)

// ClientSupports reports whether the client of the request ctx belongs to declared
// what a question needs: "elicitation" (form mode), "elicitation.url", "sampling" or
// "roots" (exactly these names). Handlers use it to fall back instead of failing
// with -32021.
func ClientSupports(ctx context.Context, what string) bool {
	c := callFrom(ctx)
	k, ok := clientcaps.Named(what)
	if c == nil || c.info.ClientCapabilities == nil || !ok {
		return false
	}
	return k.Declared(c.info.ClientCapabilities)
}

// RequireCapability fails the request with -32021 (data.requiredCapabilities) unless
// the client declared what ("elicitation", "elicitation.url", "sampling", "roots",
// exactly as for ClientSupports). It is for handlers that need a capability without
// asking anything yet.
func RequireCapability(ctx context.Context, what string) error {
	c, r := callFrom(ctx), roundFrom(ctx)
	if c == nil || r == nil {
		return ErrNoInput
	}
	k, ok := clientcaps.Named(what)
	if !ok {
		return fmt.Errorf("%w: unknown capability %q", ErrNoInput, what)
	}
	return r.check(c, Question{key: "-", need: k})
}
