package modelcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime"
)

// confirmForm is the form the consent test's tool asks for.
type confirmForm struct {
	Confirm bool `json:"confirm"`
}

// modelServer has "write" (takes {"n": integer 1..9}, asks the user to
// confirm first, counts its side effects) and "block" (waits on gate).
func modelServer(t *testing.T, effects *atomic.Int64, inFlight, peak *atomic.Int64, gate chan struct{}) *runtime.Server {
	s := runtime.NewServer(runtime.Implementation{Name: "m", Version: "1"}, &runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	runtime.AddForm[confirmForm](s, json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`))
	s.AddTool(&runtime.Tool{
		Name:        "write",
		Description: "Writes n.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":9}},"required":["n"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, req *runtime.ToolRequest) (*runtime.ToolResult, error) {
			form, action, err := runtime.Elicit[confirmForm](ctx, "confirm", "Write it?")
			if err != nil {
				return nil, err
			}
			if action != runtime.Accept || !form.Confirm {
				return nil, &runtime.ToolError{Code: runtime.ErrCodeNotConfirmed, Message: "not confirmed"}
			}
			effects.Add(1)
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("written")}, Meta: map[string]any{runtime.MetaReceipt: map[string]any{"status": "committed"}}}, nil
		},
	})
	s.AddTool(&runtime.Tool{
		Name:        "block",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
		Handler: func(ctx context.Context, req *runtime.ToolRequest) (*runtime.ToolResult, error) {
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-gate
			inFlight.Add(-1)
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("done")}}, nil
		},
	})
	return s
}

func TestDispatcherBadInput(t *testing.T) {
	var effects, inFlight, peak atomic.Int64
	s := modelServer(t, &effects, &inFlight, &peak, nil)
	d := NewDispatcher(s, &Options{Answer: func(context.Context, InputRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), nil
	}})
	for _, tc := range []struct {
		name, args, code, text string
	}{
		{"write", `{"n":`, runtime.ErrCodeInvalidArguments, "are cut off"},
		{"write", `{"n":1}}`, runtime.ErrCodeInvalidArguments, "not valid JSON"},
		{"write", `[1]`, runtime.ErrCodeInvalidArguments, "must be a JSON object, not an array"},
		{"write", `{"n":10}`, "", "/n: maximum: got a number, want at most 9"},
		{"write", `{"n":1,"n":2}`, "", "invalid arguments for tool write"},
		{"write", `{"n":1,"receipt":{"status":"committed"}}`, "", "unknown property 'receipt'"},
		{"wrtie", `{"n":1}`, ErrCodeUnknownTool, `unknown tool "wrtie"; the tools are: write, block`},
	} {
		r := d.Call(context.Background(), Call{ID: "c1", Name: tc.name, Arguments: tc.args})
		if !r.IsError || !strings.Contains(r.Text(), tc.text) || r.Receipt != nil {
			t.Errorf("%s %s: got isError=%v %q receipt %s, want an error containing %q", tc.name, tc.args, r.IsError, r.Text(), r.Receipt, tc.text)
		}
		if tc.code != "" && (r.Error == nil || r.Error.Code != tc.code || !r.Error.Retryable) {
			t.Errorf("%s %s: error %+v, want retryable %s", tc.name, tc.args, r.Error, tc.code)
		}
	}
	if n := effects.Load(); n != 0 {
		t.Fatalf("the handler wrote %d times on bad input", n)
	}
	r := d.Call(context.Background(), Call{ID: "c2", Name: "write", Arguments: ` {"n":3} `})
	if r.IsError || r.Text() != "written" || !strings.Contains(string(r.Receipt), `"tool":"write"`) || !strings.Contains(string(r.Receipt), `"status":"committed"`) || r.ID != "c2" {
		t.Fatalf("good call: %+v, text %q, receipt %s", r, r.Text(), r.Receipt)
	}
	if effects.Load() != 1 {
		t.Fatalf("effects = %d, want 1", effects.Load())
	}
}

func TestDispatcherConsent(t *testing.T) {
	var effects, inFlight, peak atomic.Int64
	s := modelServer(t, &effects, &inFlight, &peak, nil)
	// No way to ask the user: the call fails before the write, and says why.
	r := NewDispatcher(s, nil).Call(context.Background(), Call{Name: "write", Arguments: `{"n":1}`})
	if !r.IsError || r.Error == nil || r.Error.Code != ErrCodeNeedsClient {
		t.Errorf("without Answer: %+v %q", r.Error, r.Text())
	}
	// The user declines.
	var asked []InputRequest
	decline := NewDispatcher(s, &Options{Answer: func(_ context.Context, q InputRequest) (json.RawMessage, error) {
		asked = append(asked, q)
		return json.RawMessage(`{"action":"decline"}`), nil
	}})
	r = decline.Call(context.Background(), Call{Name: "write", Arguments: `{"n":1}`})
	if !r.IsError || !strings.Contains(r.Text(), "not confirmed") {
		t.Errorf("declined: isError=%v %q", r.IsError, r.Text())
	}
	if len(asked) != 1 || asked[0].Key != "confirm" || asked[0].Method != "elicitation/create" || !strings.Contains(string(asked[0].Params), "Write it?") {
		t.Errorf("questions: %+v", asked)
	}
	// The host cannot reach the user.
	fail := NewDispatcher(s, &Options{Answer: func(context.Context, InputRequest) (json.RawMessage, error) {
		return nil, errors.New("no user at the terminal")
	}})
	if r := fail.Call(context.Background(), Call{Name: "write", Arguments: `{"n":1}`}); r.Error == nil || r.Error.Code != runtime.ErrCodeNotConfirmed {
		t.Errorf("unanswered: %+v", r.Error)
	}
	if effects.Load() != 0 {
		t.Fatalf("wrote %d times without consent", effects.Load())
	}
	accept := NewDispatcher(s, &Options{Answer: func(context.Context, InputRequest) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), nil
	}})
	if r := accept.Call(context.Background(), Call{Name: "write", Arguments: `{"n":1}`}); r.IsError || effects.Load() != 1 {
		t.Fatalf("accepted: %q, effects %d", r.Text(), effects.Load())
	}
}

func TestDispatcherCallAllBounded(t *testing.T) {
	var effects, inFlight, peak atomic.Int64
	gate := make(chan struct{})
	s := modelServer(t, &effects, &inFlight, &peak, gate)
	d := NewDispatcher(s, &Options{MaxConcurrent: 2})
	calls := make([]Call, 6)
	for i := range calls {
		calls[i] = Call{ID: fmt.Sprintf("call_%d", i), Name: "block", Arguments: "{}"}
	}
	calls[3] = Call{ID: "call_3", Name: "nope", Arguments: "{}"}
	var wg sync.WaitGroup
	var results []*Result
	wg.Go(func() { results = d.CallAll(context.Background(), calls) })
	for range 5 { // five calls reach the handler, two at a time
		gate <- struct{}{}
	}
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Errorf("%d calls ran at once, want at most 2", p)
	}
	for i, r := range results {
		want := "done"
		if i == 3 {
			want = `unknown tool "nope"; the tools are: write, block`
		}
		if r.ID != calls[i].ID || r.Text() != want {
			t.Errorf("result %d: id %s text %q", i, r.ID, r.Text())
		}
	}
}

func TestGeminiSchema(t *testing.T) {
	got, dropped, err := geminiSchema(json.RawMessage(`{"type":"object","properties":{"k":{"const":"x"},"n":{"type":"integer","exclusiveMinimum":0,"multipleOf":2},"u":{"type":"string","format":"uri"},"m":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["k"],"additionalProperties":false,"$comment":"c"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"k":{"enum":["x"]},"n":{"type":"integer","minimum":1},"u":{"type":"string"},"m":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["k"]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	wantDropped := "#/properties/n: multipleOf|#/properties/u: format uri|#: additionalProperties|#: $comment"
	if d := strings.Join(dropped, "|"); d != wantDropped {
		t.Errorf("dropped %s, want %s", d, wantDropped)
	}
}

// TestDispatcherScopeAndConsent: a model's call of a tool with scope="..." and
// confirm="..." goes through the same gate as tools/call: a caller without the
// scope gets forbidden, a user who declines gets not_confirmed, and the handler
// runs only for a caller with the scope whose user confirms.
func TestDispatcherScopeAndConsent(t *testing.T) {
	var runs atomic.Int64
	s := runtime.NewServer(runtime.Implementation{Name: "m", Version: "1"}, &runtime.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.AddTool(&runtime.Tool{
		Name:        "open",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"sev":{"type":"string","enum":["p1","p2"]}},"required":["sev"],"additionalProperties":false}`),
		Scopes:      []string{"incident:create:{sev}"},
		Confirm:     "Open a {sev} incident?",
		Handler: func(ctx context.Context, req *runtime.ToolRequest) (*runtime.ToolResult, error) {
			runs.Add(1)
			return &runtime.ToolResult{Content: []runtime.Content{runtime.Text("opened")}}, nil
		},
	})
	answer := func(action string) func(context.Context, InputRequest) (json.RawMessage, error) {
		return func(_ context.Context, q InputRequest) (json.RawMessage, error) {
			if q.Method != "elicitation/create" || !strings.Contains(string(q.Params), "Open a p1 incident?") {
				return nil, fmt.Errorf("unexpected question %s %s", q.Method, q.Params)
			}
			return json.RawMessage(`{"action":"` + action + `","content":{"confirm":true}}`), nil
		}
	}
	as := func(scopes ...string) context.Context {
		return runtime.WithPrincipal(context.Background(), &runtime.Principal{Subject: "model-user", Scopes: scopes})
	}
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		action string
		code   string
	}{
		{"no scope", as("incident:create:p2"), "accept", runtime.ErrCodeForbidden},
		{"declined", as("incident:create:p1"), "decline", runtime.ErrCodeNotConfirmed},
		{"scope and consent", as("incident:create:p1"), "accept", ""},
	} {
		d := NewDispatcher(s, &Options{Answer: answer(tc.action)})
		before := runs.Load()
		r := d.Call(tc.ctx, Call{ID: "c", Name: "open", Arguments: `{"sev":"p1"}`})
		ran := runs.Load() - before
		switch {
		case tc.code == "" && (r.IsError || r.Text() != "opened" || ran != 1):
			t.Errorf("%s: isError %v %q, handler ran %d times; want opened once", tc.name, r.IsError, r.Text(), ran)
		case tc.code != "" && (!r.IsError || r.Error == nil || r.Error.Code != tc.code || ran != 0):
			t.Errorf("%s: isError %v, error %+v, handler ran %d times; want %s and no run", tc.name, r.IsError, r.Error, ran, tc.code)
		}
	}
}
