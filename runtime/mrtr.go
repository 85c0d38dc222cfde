package runtime

// mrtr.go: asking the client mid-call (MRTR): the public API (Ask, Question, the
// errors, ClientSupports, RequireCapability) and the call's wiring to its round
// (internal/ask).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/ask"
	"github.com/mcpgen/mcpgen/runtime/internal/clientcaps"
	"github.com/mcpgen/mcpgen/runtime/internal/seal"
)

// How a round works in both eras, and the rule that lets one handler serve both:
// internal/ask.

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
	ErrInputRequired = ask.ErrInputRequired
	// ErrMissingCapability reports a question the client did not declare it can
	// answer; the request is answered with -32021.
	ErrMissingCapability = ask.ErrMissingCapability
	// ErrNoInput reports a question asked outside tools/call, resources/read or
	// prompts/get, or outside any request.
	ErrNoInput = ask.ErrNoInput
	// ErrInvalidAnswer reports a 2025-11-25 answer that does not match the question
	// (e.g. form content that breaks the requested schema).
	ErrInvalidAnswer = ask.ErrInvalidAnswer
	// ErrNoForm reports an Elicit of a type without a registered schema (AddForm).
	ErrNoForm = errors.New("no elicitation schema registered for the form type")
)

// roundKey is the context key of the request's input round.
type roundKey struct{}

// A round is one request's questions and answers (internal/ask); the call holds it.
type round = ask.Round

// openRound prepares a request's round: for 2026-07-28 it verifies the requestState
// and reads inputResponses from params. name is the tool, prompt or resource URI;
// args its salient params.
func (s *Server) openRound(c *call, name string, args json.RawMessage) (*round, *rpcError) {
	r := &c.round // part of the call: no allocation of its own
	var who ask.Caller
	if p := c.caller(); p != nil {
		who = ask.Caller{Subject: p.Subject, Client: p.ClientID, Known: true}
	}
	r.Reset(c.msg.Method, name, args, who)
	if !c.info.Modern {
		return r, nil
	}
	if f := r.Read(c.msg.Params, s.sealer, time.Now); f != nil {
		return nil, failed(f)
	}
	return r, nil
}

// failed is a round's protocol error as the request's JSON-RPC error.
func failed(f *ask.Fail) *rpcError {
	if f == nil {
		return nil
	}
	return &rpcError{code: f.Code, msg: f.Msg, data: f.Data}
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
	b, f, handled, err := r.Close(c.info.Modern, s.opts.MaxInputRounds, s.sealer, s.serverInfoMeta, time.Now)
	if err != nil {
		s.logger.Error("input_required result unusable", "method", c.msg.Method, "err", err)
	}
	return b, failed(f), handled
}

// A Question is one thing a handler asks the client: an elicitation, a sampling
// request or a roots listing. Build it with AskElicitation, AskElicitationURL,
// AskSampling or AskRoots and pass it to Ask.
type Question struct {
	q ask.Question // its Accept returns errMalformed (a protocol error) or an ErrInvalidAnswer error (ask again)
}

// Key returns the question's key: its name among a request's answers
// (inputResponses) and a task's inputRequests.
func (q *Question) Key() string { return q.q.Key }

// Request returns the server-to-client request that asks the question: its
// method and its params as 2026-07-28 (modern: an inputRequest's params) or
// the handshake revisions encode them. An extension that answers Ask its own
// way (CallHooks.Ask) sends it.
func (q *Question) Request(modern bool) (method string, params any) {
	return q.q.Method, q.q.Params(modern)
}

// Answer checks the client's answer to the question (the result of its
// request) and stores it in the question's destination; an answer that does
// not fit is an ErrInvalidAnswer error.
func (q *Question) Answer(result json.RawMessage) error { return q.q.Accept(result) }

// errMalformed marks an answer that is not even the right kind of result.
var errMalformed = ask.ErrMalformed

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
	for i := range qs {
		if err := r.Check(&qs[i].q, c.info.ClientCapabilities); err != nil {
			return err
		}
	}
	if h := hooksFrom(ctx); h != nil && h.Ask != nil { // callhooks.go
		return h.Ask(ctx, qs, func() error { return askModern(r, qs) })
	}
	if c.info.Modern {
		return askModern(r, qs)
	}
	if c.sess == nil {
		return ErrNoInput
	}
	ctx, cancel := context.WithTimeout(ctx, c.srv.opts.InputTimeout)
	defer cancel()
	return ask.InTurn(ctx, asked(nil, qs), func(ctx context.Context, method string, params any) (json.RawMessage, error) {
		return c.sess.Request(ctx, method, params, c.out)
	})
}

// roundFrom returns the request's round, or nil.
func roundFrom(ctx context.Context) *round {
	r, _ := ctx.Value(roundKey{}).(*round)
	return r
}

// askModern asks qs in a 2026-07-28 round (ask.Round.Ask); a few questions are
// converted without an allocation.
func askModern(r *round, qs []Question) error {
	var buf [4]ask.Question
	return r.Ask(asked(buf[:0], qs))
}

// asked appends qs, converted for internal/ask, to aq.
func asked(aq []ask.Question, qs []Question) []ask.Question {
	for i := range qs {
		aq = append(aq, qs[i].q)
	}
	return aq
}

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
	return r.Check(&ask.Question{Key: "-", Need: k}, c.info.ClientCapabilities)
}
