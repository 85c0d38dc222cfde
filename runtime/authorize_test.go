package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/httpcheck"
)

// incidentSchema is the input of the incident tool: an enum severity, a title.
const incidentSchema = `{"type":"object","properties":{"severity":{"type":"string","enum":["p1","p2"]},"title":{"type":"string"},"team":{"type":"string"}},"required":["severity","title"],"additionalProperties":false}`

// incidentTool needs incident:create:{severity} and the user's consent; runs
// counts the handler's runs.
func incidentTool(runs *atomic.Int32) *Tool {
	return &Tool{Name: "create_incident", Description: "Opens an incident.",
		InputSchema: json.RawMessage(incidentSchema),
		Scopes:      []string{"incident:create:{severity}"},
		Confirm:     "Open a {severity} incident titled {title}?",
		Handler: func(ctx context.Context, req *ToolRequest) (*ToolResult, error) {
			runs.Add(1)
			return &ToolResult{Content: []Content{Text("opened")}}, nil
		}}
}

// incidentArgs are the arguments of a P1 incident.
var incidentArgs = map[string]any{"severity": "p1", "title": "DB down"}

// callIncident calls create_incident over stdio in the given era with extra params.
func callIncident(c *testClient, modern bool, caps map[string]any, extra map[string]any) *msg {
	p := map[string]any{"name": "create_incident", "arguments": incidentArgs}
	if modern {
		p["_meta"] = metaWithCaps(caps)
	}
	for k, v := range extra {
		p[k] = v
	}
	resp, _ := c.await(c.request("tools/call", p))
	return resp
}

// confirmAnswer is the client's answer to the consent question.
func confirmAnswer(yes bool) map[string]any {
	if yes {
		return map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}
	}
	return map[string]any{"action": "decline"}
}

// TestScopeConsentMatrix runs the four combinations of scope and consent in both
// eras and counts the handler's runs: only scope + consent runs it; without the
// scope the user is not even asked.
func TestScopeConsentMatrix(t *testing.T) {
	for _, modern := range []bool{true, false} {
		for _, hasScope := range []bool{true, false} {
			for _, consents := range []bool{true, false} {
				name := map[bool]string{true: "modern", false: "legacy"}[modern] +
					map[bool]string{true: "/scope", false: "/no-scope"}[hasScope] +
					map[bool]string{true: "/consent", false: "/decline"}[consents]
				t.Run(name, func(t *testing.T) {
					granted := "incident:create:p2"
					if hasScope {
						granted = "incident:create:p1"
					}
					var runs atomic.Int32
					s := newTestServer(t, &Options{StdioPrincipal: &Principal{Subject: "alice", Scopes: []string{granted}}}, incidentTool(&runs))
					c := serveInMemory(t, s)
					res := consentRound(t, c, modern, hasScope, consents)
					switch {
					case hasScope && consents:
						if res.IsError || res.Content[0].Text != "opened" {
							t.Errorf("result = %+v, want opened", res)
						}
					case !hasScope:
						if !res.IsError || res.errorCode() != ErrCodeForbidden || !strings.HasPrefix(res.Content[0].Text, "insufficient scope: this request needs incident:create:p1") {
							t.Errorf("result = %+v, want forbidden naming incident:create:p1", res)
						}
					default:
						if !res.IsError || res.errorCode() != ErrCodeNotConfirmed || !strings.HasPrefix(res.Content[0].Text, "not confirmed: ") {
							t.Errorf("result = %+v, want not_confirmed", res)
						}
					}
					want := int32(0)
					if hasScope && consents {
						want = 1
					}
					if got := runs.Load(); got != want {
						t.Errorf("handler ran %d times, want %d", got, want)
					}
				})
			}
		}
	}
}

// consentRound calls create_incident and answers the consent question, if
// asked (it must be asked exactly when the scope is held).
func consentRound(t *testing.T, c *testClient, modern, hasScope, consents bool) callResult {
	t.Helper()
	if modern {
		resp := callIncident(c, true, elicitCaps, nil)
		var ir inputRequired
		resp.decodeResult(t, &ir)
		if ir.ResultType != "input_required" {
			if hasScope {
				t.Fatalf("first round = %s, want input_required", resp.raw)
			}
			res, _ := callResultOf(t, resp)
			return res
		}
		if !hasScope {
			t.Fatalf("asked for consent without the scope: %s", resp.raw)
		}
		q := ir.InputRequests[confirmKey]
		if q.Method != "elicitation/create" || !strings.Contains(string(q.Params), `"message":"Open a p1 incident titled \"DB down\"?"`) {
			t.Fatalf("consent question = %s", resp.raw)
		}
		res, m := callResultOf(t, callIncident(c, true, elicitCaps, map[string]any{
			"inputResponses": map[string]any{confirmKey: confirmAnswer(consents)}, "requestState": ir.RequestState}))
		if m.Error != nil {
			t.Fatalf("round 2: %s", m.raw)
		}
		return res
	}
	initialize(t, c, "2025-11-25")
	id := c.request("tools/call", map[string]any{"name": "create_incident", "arguments": incidentArgs})
	first := c.next()
	if first.Method == "elicitation/create" {
		if !hasScope {
			t.Fatalf("asked for consent without the scope: %s", first.raw)
		}
		if !strings.Contains(string(first.Params), `Open a p1 incident titled \"DB down\"?`) {
			t.Fatalf("consent question = %s", first.raw)
		}
		answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": first.ID, "result": confirmAnswer(consents)})
		c.send(string(answer))
		first, _ = c.await(id)
	} else if hasScope {
		t.Fatalf("got %s, want the consent question", first.raw)
	}
	res, m := callResultOf(t, first)
	if m.Error != nil {
		t.Fatalf("call: %s", m.raw)
	}
	return res
}

// TestConsentNeedsElicitation: a client without elicitation gets the spec's
// missing-capability error, and the handler does not run.
func TestConsentNeedsElicitation(t *testing.T) {
	var runs atomic.Int32
	c := serveInMemory(t, newTestServer(t, nil, incidentTool(&runs)))
	resp := callIncident(c, true, map[string]any{}, nil)
	if resp.errorCode() != CodeMissingClientCapability || !strings.Contains(string(resp.Error.Data), `"elicitation"`) {
		t.Errorf("response = %s, want -32021 naming elicitation", resp.raw)
	}
	if runs.Load() != 0 {
		t.Errorf("handler ran %d times", runs.Load())
	}
}

// TestConsentCancelAndUnticked: cancel and an accepted form with the box
// unticked are no consent either.
func TestConsentCancelAndUnticked(t *testing.T) {
	var runs atomic.Int32
	c := serveInMemory(t, newTestServer(t, nil, incidentTool(&runs)))
	ir := inputRequired{}
	callIncident(c, true, elicitCaps, nil).decodeResult(t, &ir)
	for _, answer := range []map[string]any{
		{"action": "cancel"},
		{"action": "accept", "content": map[string]any{"confirm": false}},
	} {
		res, _ := callResultOf(t, callIncident(c, true, elicitCaps, map[string]any{
			"inputResponses": map[string]any{confirmKey: answer}, "requestState": ir.RequestState}))
		if !res.IsError || res.errorCode() != ErrCodeNotConfirmed || !strings.HasPrefix(res.Content[0].Text, "not confirmed: ") {
			t.Errorf("answer %v: result = %+v, want not_confirmed", answer, res)
		}
	}
	if runs.Load() != 0 {
		t.Errorf("handler ran %d times", runs.Load())
	}
}

func TestScopeImplies(t *testing.T) {
	for _, tt := range []struct {
		granted, required string
		want              bool
	}{
		{"incident:create:p1", "incident:create:p1", true},
		{"incident:create", "incident:create:p1", true},
		{"incident", "incident:create:p1", true},
		{"incident:cre", "incident:create:p1", false},
		{"incident:create:p1", "incident:create", false},
		{"incident:create:p2", "incident:create:p1", false},
		{"", "incident", false},
	} {
		if got := ScopeImplies(tt.granted, tt.required); got != tt.want {
			t.Errorf("ScopeImplies(%q, %q) = %v, want %v", tt.granted, tt.required, got, tt.want)
		}
	}
}

// TestScopeHierarchyAndOption: a broader scope passes the check; Options.ScopeImplies
// replaces the rule (here: exact match only).
func TestScopeHierarchyAndOption(t *testing.T) {
	tool := func(runs *atomic.Int32) *Tool {
		tl := incidentTool(runs)
		tl.Confirm = ""
		return tl
	}
	for _, exact := range []bool{false, true} {
		var runs atomic.Int32
		opts := &Options{StdioPrincipal: &Principal{Subject: "a", Scopes: []string{"incident:create"}}}
		if exact {
			opts.ScopeImplies = func(g, r string) bool { return g == r }
		}
		c := serveInMemory(t, newTestServer(t, opts, tool(&runs)))
		res, _ := callResultOf(t, callIncident(c, true, elicitCaps, nil))
		if res.IsError != exact {
			t.Errorf("exact=%v: result %+v", exact, res)
		}
	}
}

// TestRequestStateBoundToCaller: a requestState sealed for one caller is refused
// when another caller presents it, even with the same keys, tool and arguments.
func TestRequestStateBoundToCaller(t *testing.T) {
	keys := [][]byte{[]byte("0123456789abcdef0123")}
	server := func(subject string, runs *atomic.Int32) *testClient {
		return serveInMemory(t, newTestServer(t, &Options{StateKeys: keys,
			StdioPrincipal: &Principal{Subject: subject, Scopes: []string{"incident"}}}, incidentTool(runs)))
	}
	var runs atomic.Int32
	alice := server("alice", &runs)
	var ir inputRequired
	callIncident(alice, true, elicitCaps, nil).decodeResult(t, &ir)
	retry := map[string]any{"inputResponses": map[string]any{confirmKey: confirmAnswer(true)}, "requestState": ir.RequestState}
	if resp := callIncident(server("mallory", &runs), true, elicitCaps, retry); resp.errorCode() != CodeInvalidParams ||
		!strings.Contains(resp.Error.Message, ErrStateMismatch.Error()) {
		t.Errorf("replay by another caller = %s, want -32602 %v", resp.raw, ErrStateMismatch)
	}
	if runs.Load() != 0 {
		t.Fatalf("handler ran for the other caller")
	}
	if res, _ := callResultOf(t, callIncident(server("alice", &runs), true, elicitCaps, retry)); res.IsError || runs.Load() != 1 {
		t.Errorf("same caller, other replica: %+v, runs %d; want opened once", res, runs.Load())
	}
}

// TestRequireScope: a handler's own check returns a forbidden ToolError naming
// the scopes.
func TestRequireScope(t *testing.T) {
	tool := simpleTool("approve", func(ctx context.Context) (*ToolResult, error) {
		if err := RequireScope(ctx, "payments:approve", "payments:read"); err != nil {
			return nil, err
		}
		return &ToolResult{Content: []Content{Text("approved")}}, nil
	})
	for _, scopes := range [][]string{{"payments:read"}, {"payments"}} {
		c := serveInMemory(t, newTestServer(t, &Options{StdioPrincipal: &Principal{Subject: "a", Scopes: scopes}}, tool))
		res := c.call(true, "tools/call", map[string]any{"name": "approve"})
		var r callResult
		res.decodeResult(t, &r)
		want := "approved"
		if scopes[0] != "payments" {
			want = "insufficient scope: this request needs payments:approve payments:read"
			if r.errorCode() != ErrCodeForbidden {
				t.Errorf("scopes %v: error code %q, want forbidden", scopes, r.errorCode())
			}
		}
		if r.Content[0].Text != want {
			t.Errorf("scopes %v: %q, want %q", scopes, r.Content[0].Text, want)
		}
	}
}

// TestStdioDefaultPrincipalHoldsEveryScope: without Options.StdioPrincipal, a
// stdio caller may call every tool.
func TestStdioDefaultPrincipalHoldsEveryScope(t *testing.T) {
	var runs atomic.Int32
	tl := incidentTool(&runs)
	tl.Confirm = ""
	c := serveInMemory(t, newTestServer(t, nil, tl))
	if res, _ := callResultOf(t, callIncident(c, true, elicitCaps, nil)); res.IsError || runs.Load() != 1 {
		t.Errorf("result %+v, runs %d", res, runs.Load())
	}
}

// authed is a stand-in for runtime/auth's middleware: it puts a principal named
// by the X-Test-Subject header (scopes from X-Test-Scopes) and a challenge in the
// request context.
func authed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if sub := r.Header.Get("X-Test-Subject"); sub != "" {
			ctx = WithPrincipal(ctx, &Principal{Subject: sub, Scopes: strings.Fields(r.Header.Get("X-Test-Scopes"))})
		}
		ctx = WithScopeChallenge(ctx, func(req []string) string {
			return `Bearer error="insufficient_scope", scope="` + strings.Join(req, " ") + `"`
		})
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// TestHTTPInsufficientScope: over HTTP with a challenge, a refused call is a 403
// whose WWW-Authenticate names every scope the call needs (from its arguments).
func TestHTTPInsufficientScope(t *testing.T) {
	var runs atomic.Int32
	tl := incidentTool(&runs)
	tl.Scopes = append(tl.Scopes, "incident:read")
	s := newTestServer(t, nil, tl)
	ts := httptest.NewServer(authed(s.HTTPHandler(nil)))
	defer ts.Close()
	c := newHTTPClient(t, ts)
	params := map[string]any{"_meta": modernMetaFor(nil), "name": "create_incident", "arguments": map[string]any{"severity": "p2", "title": "x"}}
	hdr := modernHeaders("tools/call", "create_incident")
	hdr.Set("X-Test-Subject", "bob")
	hdr.Set("X-Test-Scopes", "incident:read")
	resp := c.post(context.Background(), hdr, rpcRequest(1, "tools/call", params))
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d %s, want 403", resp.StatusCode, body)
	}
	if code, _ := rpcErrorOf(t, body); code != CodeForbidden {
		t.Errorf("code %d, want %d", code, CodeForbidden)
	}
	if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer error="insufficient_scope", scope="incident:create:p2 incident:read"` {
		t.Errorf("WWW-Authenticate = %q", got)
	}
	if runs.Load() != 0 {
		t.Errorf("handler ran")
	}
}

// TestHTTPSessionBoundToCaller: a 2025-11-25 session id presented with another
// subject's credentials is refused with 403; its owner goes on.
func TestHTTPSessionBoundToCaller(t *testing.T) {
	s := newTestServer(t, nil, echoTool())
	ts := httptest.NewServer(authed(s.HTTPHandler(nil)))
	defer ts.Close()
	c := newHTTPClient(t, ts)
	resp := c.post(context.Background(), http.Header{"X-Test-Subject": {"alice"}}, rpcRequest(1, "initialize", map[string]any{
		"protocolVersion": versionLegacy, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "http-test", "version": "1"},
	}))
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: status %d, no session", resp.StatusCode)
	}
	for _, tt := range []struct {
		subject string
		status  int
	}{{"mallory", http.StatusForbidden}, {"", http.StatusForbidden}, {"alice", http.StatusOK}} {
		hdr := legacyHeaders()
		hdr.Set(httpcheck.HeaderSessionID, id)
		if tt.subject != "" {
			hdr.Set("X-Test-Subject", tt.subject)
		}
		resp := c.post(context.Background(), hdr, rpcRequest(2, "tools/list", nil))
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("subject %q: status %d, want %d", tt.subject, resp.StatusCode, tt.status)
		}
	}
}

// TestHideUnauthorizedList: with the option, tools/list shows only what the
// caller may use, and says cacheScope "private"; without it, every tool and
// "public".
func TestHideUnauthorizedList(t *testing.T) {
	var runs atomic.Int32
	other := echoTool()
	other.Scopes = []string{"admin"}
	for _, hide := range []bool{false, true} {
		s := newTestServer(t, &Options{HideUnauthorized: hide,
			StdioPrincipal: &Principal{Subject: "a", Scopes: []string{"incident:create:p2"}}}, incidentTool(&runs), other, addTool())
		c := serveInMemory(t, s)
		resp := c.call(true, "tools/list", map[string]any{})
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			CacheScope string `json:"cacheScope"`
		}
		resp.decodeResult(t, &res)
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		want, scope := []string{"create_incident", "echo", "add"}, "public"
		if hide {
			want, scope = []string{"create_incident", "add"}, "private"
		}
		if !slices.Equal(names, want) || res.CacheScope != scope {
			t.Errorf("hide=%v: tools %v cacheScope %q, want %v %q", hide, names, res.CacheScope, want, scope)
		}
	}
}

func TestScopesSupported(t *testing.T) {
	var runs atomic.Int32
	other := echoTool()
	other.Scopes = []string{"admin", "team:{text}"}
	s := newTestServer(t, nil, incidentTool(&runs), other)
	if got, want := s.ScopesSupported(), []string{"admin", "incident:create:p1", "incident:create:p2"}; !slices.Equal(got, want) {
		t.Errorf("ScopesSupported = %v, want %v", got, want)
	}
}

// TestScopeFromFreeString: a free string argument becomes part of the scope; one
// that cannot (a space) is refused before the handler.
func TestScopeFromFreeString(t *testing.T) {
	var runs atomic.Int32
	tl := incidentTool(&runs)
	tl.Confirm = ""
	tl.InputSchema = json.RawMessage(strings.Replace(incidentSchema, `"required":["severity","title"]`, `"required":["severity","title","team"]`, 1))
	tl.Scopes = []string{"team:{team}:write"}
	c := serveInMemory(t, newTestServer(t, &Options{StdioPrincipal: &Principal{Subject: "a", Scopes: []string{"team:db:write"}}}, tl))
	for team, ok := range map[string]bool{"db": true, "web": false, "db write": false} {
		resp, _ := c.await(c.request("tools/call", map[string]any{"_meta": modernMeta(), "name": "create_incident",
			"arguments": map[string]any{"severity": "p1", "title": "t", "team": team}}))
		res, _ := callResultOf(t, resp)
		if res.IsError == ok {
			t.Errorf("team %q: %+v", team, res)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("runs = %d, want 1", runs.Load())
	}
}

// TestScopeLowerModifier: {field|lower} puts the value in lower case, at call time
// and in ScopesSupported.
func TestScopeLowerModifier(t *testing.T) {
	var runs atomic.Int32
	tl := incidentTool(&runs)
	tl.Confirm = ""
	tl.InputSchema = json.RawMessage(strings.Replace(incidentSchema, `"enum":["p1","p2"]`, `"enum":["P1","P2"]`, 1))
	tl.Scopes = []string{"incident:create:{severity|lower}"}
	s := newTestServer(t, &Options{StdioPrincipal: &Principal{Subject: "a", Scopes: []string{"incident:create:p1"}}}, tl)
	if got, want := s.ScopesSupported(), []string{"incident:create:p1", "incident:create:p2"}; !slices.Equal(got, want) {
		t.Errorf("ScopesSupported = %v, want %v", got, want)
	}
	c := serveInMemory(t, s)
	for sev, ok := range map[string]bool{"P1": true, "P2": false} {
		resp, _ := c.await(c.request("tools/call", map[string]any{"_meta": modernMeta(), "name": "create_incident",
			"arguments": map[string]any{"severity": sev, "title": "t"}}))
		res, _ := callResultOf(t, resp)
		if res.IsError == ok || !ok && !strings.Contains(res.Content[0].Text, "incident:create:p2") {
			t.Errorf("severity %s: %+v", sev, res)
		}
	}
}

// errorCode is the code of the structured error an isError result carries in
// structuredContent ("" when none).
func (r callResult) errorCode() string {
	var v struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.StructuredContent, &v)
	return v.Error.Code
}
