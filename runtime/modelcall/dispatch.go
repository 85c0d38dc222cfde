// Package modelcall is the model provider's side of a server's tools, for Go
// programs that call a model directly (an agent loop on OpenAI, Anthropic or
// Gemini): the registered tools as the providers' function tools (surfaces.go),
// and a Dispatcher that runs the calls the model proposes through the server's
// tools/call pipeline (dispatch.go). It uses only the runtime's public API.
package modelcall

// dispatch.go: the dispatcher for tool calls a model proposes through a
// provider API. Each call goes through Server.HandleRaw as a 2026-07-28
// tools/call, so it meets exactly the checks a call over stdio or HTTP meets
// (argument validation, scopes, consent and whatever else that path runs); the
// dispatcher only turns the model's arguments string into a request and the
// reply into what goes back to the model.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/apps"
	"github.com/mcpgen/mcpgen/runtime/internal/jsonwire"
)

// Codes of the dispatcher's own failures, besides the ErrCode* ones.
const (
	// ErrCodeUnknownTool: the model called a tool that is not registered.
	ErrCodeUnknownTool = "unknown_tool"
	// ErrCodeNeedsClient: the tool asked for input (elicitation, sampling,
	// roots) that the host cannot give (Options.Answer is nil or does
	// not declare the capability).
	ErrCodeNeedsClient = "needs_client"
)

// defaultModelConcurrency bounds the calls of one model turn run at once.
const defaultModelConcurrency = 4

// maxDispatchRounds bounds the input_required rounds the dispatcher answers.
const maxDispatchRounds = 10

// Options configure a Dispatcher. The zero value (and nil) is fine.
type Options struct {
	// MaxConcurrent bounds how many calls of one CallAll run at once; 0 means 4.
	MaxConcurrent int
	// Answer, when set, answers the questions a tool asks while it runs (the
	// user's confirmation, an elicitation form, a sampling request), one at a
	// time: it gets the question's method ("elicitation/create",
	// "sampling/createMessage", "roots/list") and params, and returns the
	// result the client would send (e.g. {"action":"accept","content":{...}}).
	// Nil means the host cannot ask: a tool that needs to gets an isError
	// result with code needs_client, and its handler goes no further.
	Answer func(ctx context.Context, q InputRequest) (json.RawMessage, error)
	// ClientCapabilities are the client capabilities declared on every call;
	// nil means {} without Answer and {"elicitation":{}} with it.
	ClientCapabilities json.RawMessage
}

// An InputRequest is one question a tool asks the host during a call.
type InputRequest struct {
	Key    string          // the handler's key for the question
	Method string          // elicitation/create, sampling/createMessage or roots/list
	Params json.RawMessage // the request's params
}

// A Dispatcher runs the tool calls a model proposes through the server's
// tools/call pipeline. It is safe for concurrent use.
type Dispatcher struct {
	s    *runtime.Server
	opts Options
	caps json.RawMessage
	ids  atomic.Int64
}

// NewDispatcher returns a dispatcher for the tools of s. opts may be nil.
func NewDispatcher(s *runtime.Server, opts *Options) *Dispatcher {
	d := &Dispatcher{s: s}
	if opts != nil {
		d.opts = *opts
	}
	if d.opts.MaxConcurrent <= 0 {
		d.opts.MaxConcurrent = defaultModelConcurrency
	}
	switch {
	case d.opts.ClientCapabilities != nil:
		d.caps = compactSchema(d.opts.ClientCapabilities)
	case d.opts.Answer != nil:
		d.caps = json.RawMessage(`{"elicitation":{}}`)
	default:
		d.caps = json.RawMessage(`{}`)
	}
	return d
}

// A Call is one tool call a model proposed.
type Call struct {
	// ID is the provider's call id; it is echoed in the result and used as the
	// JSON-RPC request id.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the arguments string as the model wrote it: possibly cut
	// off or not JSON at all.
	Arguments string
}

// A Result is what goes back to the model for one call.
type Result struct {
	// ID and Name are the call's.
	ID, Name string
	// Content holds the result's content blocks; for a failure, one text block
	// saying what went wrong and what to do.
	Content []runtime.Content
	// StructuredContent is the tool's structured output, when it has one.
	StructuredContent json.RawMessage
	// IsError reports a failed call: the model should read Content and act.
	IsError bool
	// Error is the structured error of a failed call, when known: the
	// dispatcher's own (invalid JSON, unknown tool), the pipeline's
	// (structuredContent {"error":{...}}), or a protocol error's.
	Error *runtime.ToolError
	// Receipt is the execution receipt (_meta "dev.mcpgen/receipt"), if any.
	Receipt json.RawMessage
	// Meta is the result's _meta, if any.
	Meta json.RawMessage
}

// Text returns the result as one string for providers whose tool results are
// text: the text blocks joined by newlines, other blocks described in
// brackets; structured output alone is its JSON.
func (r *Result) Text() string {
	var parts []string
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			parts = append(parts, c.Text)
		case "resource":
			if c.Resource != nil && c.Resource.Blob == nil {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob)))
			}
		case "resource_link":
			parts = append(parts, fmt.Sprintf("[resource link %s]", c.URI))
		default:
			parts = append(parts, fmt.Sprintf("[%s %s, %d bytes]", c.Type, c.MIMEType, len(c.Data)))
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		return string(r.StructuredContent)
	}
	return strings.Join(parts, "\n")
}

// CallAll runs the calls of one model turn, at most MaxConcurrent at once, and
// returns their results in the calls' order.
func (d *Dispatcher) CallAll(ctx context.Context, calls []Call) []*Result {
	out := make([]*Result, len(calls))
	slots := make(chan struct{}, d.opts.MaxConcurrent)
	var wg sync.WaitGroup
	for i, c := range calls {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			out[i] = failed(c, &runtime.ToolError{Code: runtime.ErrCodeTimeout, Message: "the call was not run: " + ctx.Err().Error(), Retryable: true})
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			out[i] = d.Call(ctx, c)
		})
	}
	wg.Wait()
	return out
}

// Call runs one call through the tools/call pipeline. ctx is the handler's
// parent: its principal (WithPrincipal) is the caller's identity.
func (d *Dispatcher) Call(ctx context.Context, mc Call) *Result {
	args, terr := modelArguments(mc)
	if terr != nil {
		return failed(mc, terr)
	}
	if t := d.s.Tool(mc.Name); t == nil || !apps.ModelVisible(t) { // app-only tools are not the model's
		return failed(mc, d.unknownTool(mc.Name))
	}
	var responses map[string]json.RawMessage
	var state json.RawMessage
	for range maxDispatchRounds {
		reply := d.s.HandleRaw(ctx, d.request(mc, args, responses, state), nil, nil)
		res, questions, st := decodeReply(mc, reply)
		if questions == nil {
			return res
		}
		if d.opts.Answer == nil {
			return failed(mc, &runtime.ToolError{Code: ErrCodeNeedsClient, Message: fmt.Sprintf("tool %s needs an answer from the user, which this host cannot ask for", mc.Name)})
		}
		responses, state = map[string]json.RawMessage{}, st
		for _, q := range questions {
			a, err := d.opts.Answer(ctx, q)
			if err != nil {
				return failed(mc, &runtime.ToolError{Code: runtime.ErrCodeNotConfirmed, Message: fmt.Sprintf("tool %s asked the user, who did not answer: %v", mc.Name, err)})
			}
			responses[q.Key] = a
		}
	}
	return failed(mc, &runtime.ToolError{Code: runtime.ErrCodeInternal, Message: fmt.Sprintf("tool %s kept asking for input", mc.Name)})
}

// unknownTool is the error for a tool that is not registered, naming those
// that are.
func (d *Dispatcher) unknownTool(name string) *runtime.ToolError {
	var names []string
	for _, t := range d.s.Tools() {
		if apps.ModelVisible(t) {
			names = append(names, t.Name)
		}
	}
	return &runtime.ToolError{Code: ErrCodeUnknownTool, Retryable: true, Message: fmt.Sprintf(
		"unknown tool %q; the tools are: %s", name, strings.Join(names, ", "))}
}

// request encodes the tools/call request of one round.
func (d *Dispatcher) request(mc Call, args json.RawMessage, responses map[string]json.RawMessage, state json.RawMessage) []byte {
	b := make([]byte, 0, 192+len(args)+len(mc.Name))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if mc.ID != "" {
		b = jsonwire.AppendString(b, mc.ID)
	} else {
		b = strconv.AppendInt(b, d.ids.Add(1), 10)
	}
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = jsonwire.AppendString(b, mc.Name)
	b = append(append(b, `,"arguments":`...), args...)
	if responses != nil {
		b = append(append(b, `,"inputResponses":`...), marshal(responses)...)
		b = append(append(b, `,"requestState":`...), state...)
	}
	b = append(b, `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":`...)
	b = append(b, d.caps...)
	return append(b, "}}}"...)
}

// modelArguments turns the model's arguments string into a JSON object, or
// explains to the model why it cannot.
func modelArguments(mc Call) (json.RawMessage, *runtime.ToolError) {
	s := strings.TrimSpace(mc.Arguments)
	if s == "" {
		return json.RawMessage("{}"), nil
	}
	var v any
	err := json.Unmarshal([]byte(s), &v)
	var syn *json.SyntaxError
	switch {
	case err != nil && strings.HasSuffix(err.Error(), "unexpected end of JSON input"):
		return nil, invalidArgs(fmt.Sprintf("the arguments of tool %s are cut off: the JSON text ends after %d bytes, before the object is closed. Call the tool again with the complete JSON object.", mc.Name, len(s)))
	case errors.As(err, &syn):
		return nil, invalidArgs(fmt.Sprintf("the arguments of tool %s are not valid JSON: %v (at byte %d). Call the tool again with a JSON object.", mc.Name, syn, syn.Offset))
	case err != nil:
		return nil, invalidArgs(fmt.Sprintf("the arguments of tool %s are not valid JSON: %v", mc.Name, err))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, invalidArgs(fmt.Sprintf("the arguments of tool %s must be a JSON object, not %s", mc.Name, jsonKind(v)))
	}
	return json.RawMessage(s), nil
}

// invalidArgs is an invalid_arguments error (retryable: the model can fix it).
func invalidArgs(msg string) *runtime.ToolError {
	return &runtime.ToolError{Code: runtime.ErrCodeInvalidArguments, Message: msg, Retryable: true}
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// failed is the result of a call that failed with e before or outside the
// pipeline's result: one text block with the message.
func failed(mc Call, e *runtime.ToolError) *Result {
	return &Result{ID: mc.ID, Name: mc.Name, Content: []runtime.Content{runtime.Text(e.Message)}, IsError: true, Error: e}
}

// wireResult is a tools/call result as the pipeline encodes it.
type wireResult struct {
	ResultType        string                     `json:"resultType"`
	Content           []resultBlock              `json:"content"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
	Meta              map[string]json.RawMessage `json:"_meta"`
	InputRequests     map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState json.RawMessage `json:"requestState"`
}

// resultBlock is one content block of a result, as decoded.
type resultBlock struct {
	Type        string         `json:"type"`
	Text        string         `json:"text"`
	Data        string         `json:"data"`
	MIMEType    string         `json:"mimeType"`
	URI         string         `json:"uri"`
	Name        string         `json:"name"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Size        int64          `json:"size"`
	Meta        map[string]any `json:"_meta"`
	Resource    *struct {
		URI      string         `json:"uri"`
		MIMEType string         `json:"mimeType"`
		Text     string         `json:"text"`
		Blob     string         `json:"blob"`
		Meta     map[string]any `json:"_meta"`
	} `json:"resource"`
}

// content converts a wire block back into a runtime.Content.
func (w resultBlock) content() runtime.Content {
	c := runtime.Content{Type: w.Type, Text: w.Text, MIMEType: w.MIMEType, URI: w.URI, Name: w.Name,
		Title: w.Title, Description: w.Description, Size: w.Size, Meta: w.Meta}
	if w.Data != "" {
		c.Data, _ = base64.StdEncoding.DecodeString(w.Data)
	}
	if r := w.Resource; r != nil {
		c.Resource = &runtime.ResourceContents{URI: r.URI, MIMEType: r.MIMEType, Text: r.Text, Meta: r.Meta}
		if r.Blob != "" {
			c.Resource.Blob, _ = base64.StdEncoding.DecodeString(r.Blob)
		}
	}
	return c
}

// decodeReply turns the pipeline's reply into the model's result, or into the
// questions of an input_required round and the state to echo.
func decodeReply(mc Call, reply runtime.Reply) (*Result, []InputRequest, json.RawMessage) {
	if reply.Body == nil {
		return failed(mc, &runtime.ToolError{Code: runtime.ErrCodeTimeout, Message: fmt.Sprintf("tool %s was cancelled", mc.Name), Retryable: true}), nil, nil
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply.Body, &resp); err != nil {
		return failed(mc, &runtime.ToolError{Code: runtime.ErrCodeInternal, Message: fmt.Sprintf("internal error in tool %s", mc.Name)}), nil, nil
	}
	if e := resp.Error; e != nil {
		return failed(mc, protocolError(e.Code, e.Message, e.Data)), nil, nil
	}
	var w wireResult
	if err := json.Unmarshal(resp.Result, &w); err != nil {
		return failed(mc, &runtime.ToolError{Code: runtime.ErrCodeInternal, Message: fmt.Sprintf("internal error in tool %s", mc.Name)}), nil, nil
	}
	if w.ResultType == "input_required" {
		var qs []InputRequest
		for k, q := range w.InputRequests {
			qs = append(qs, InputRequest{Key: k, Method: q.Method, Params: q.Params})
		}
		slices.SortFunc(qs, func(a, b InputRequest) int { return strings.Compare(a.Key, b.Key) })
		if qs == nil {
			qs = []InputRequest{}
		}
		return nil, qs, w.RequestState
	}
	res := &Result{ID: mc.ID, Name: mc.Name, StructuredContent: w.StructuredContent, IsError: w.IsError}
	for _, c := range w.Content {
		res.Content = append(res.Content, c.content())
	}
	if w.IsError && w.StructuredContent != nil {
		var se struct {
			Error *runtime.ToolError `json:"error"`
		}
		if json.Unmarshal(w.StructuredContent, &se) == nil && se.Error != nil && se.Error.Code != "" {
			res.Error = se.Error
		}
	}
	if len(w.Meta) > 0 {
		res.Receipt = w.Meta[runtime.MetaReceipt]
		res.Meta = marshal(w.Meta)
	}
	return res, nil, nil
}

// protocolError maps a JSON-RPC error of the pipeline to a structured error the
// model can act on. An error whose data carries a runtime.ToolError-shaped "error"
// (or is one) keeps it.
func protocolError(code int, msg string, data json.RawMessage) *runtime.ToolError {
	var te runtime.ToolError
	if json.Unmarshal(data, &te) == nil && te.Code != "" && te.Message != "" {
		return &te
	}
	switch code {
	case runtime.CodeInvalidParams:
		return &runtime.ToolError{Code: runtime.ErrCodeInvalidArguments, Message: msg, Retryable: true}
	case runtime.CodeMissingClientCapability:
		return &runtime.ToolError{Code: ErrCodeNeedsClient, Message: msg + ": this host cannot answer the question the tool asks"}
	case runtime.CodeInternalError:
		return &runtime.ToolError{Code: runtime.ErrCodeInternal, Message: msg}
	}
	return &runtime.ToolError{Code: "error_" + strconv.Itoa(-code), Message: msg}
}

// marshal encodes values whose encoding cannot fail (maps of raw JSON).
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mcpgen modelcall: encode %T: %v", v, err))
	}
	return b
}
