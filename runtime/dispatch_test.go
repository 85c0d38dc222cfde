package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDiscover(t *testing.T) {
	s := newTestServer(t, &Options{Instructions: "use echo", CacheTTL: 90 * time.Second}, echoTool())
	c := serveInMemory(t, s)
	var got struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Instructions      string                     `json:"instructions"`
		TTLMs             int64                      `json:"ttlMs"`
		CacheScope        string                     `json:"cacheScope"`
		Meta              map[string]Implementation  `json:"_meta"`
	}
	c.call(true, "server/discover", nil).decodeResult(t, &got)
	if want := []string{"2026-07-28", "2025-11-25"}; !slices.Equal(got.SupportedVersions, want) {
		t.Errorf("supportedVersions = %v, want %v", got.SupportedVersions, want)
	}
	if got.Capabilities["tools"] == nil || got.Capabilities["logging"] == nil {
		t.Errorf("capabilities = %v, want tools and logging", got.Capabilities)
	}
	if got.Instructions != "use echo" || got.TTLMs != 90000 || got.CacheScope != "public" {
		t.Errorf("instructions, ttlMs, cacheScope = %q, %d, %q", got.Instructions, got.TTLMs, got.CacheScope)
	}
	if info := got.Meta[metaServerInfo]; info.Name != "unit" || info.Version != "0.1" {
		t.Errorf("serverInfo = %+v, want unit 0.1", info)
	}
}

func TestModernMetaErrors(t *testing.T) {
	tests := []struct {
		name     string
		params   string
		wantCode int
		metaErr  bool
	}{
		{"empty params", `{}`, CodeInvalidParams, true},
		{"no params", ``, CodeInvalidParams, true},
		{"no protocolVersion", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`, CodeInvalidParams, true},
		{"no clientCapabilities", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, CodeInvalidParams, true},
		{"capabilities not an object", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`, CodeInvalidParams, true},
		{"version not a string", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}`, CodeInvalidParams, true},
		{"unknown version", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}`, CodeUnsupportedVersion, false},
		{"legacy version in _meta", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, CodeUnsupportedVersion, false},
		{"bad logLevel", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}`, CodeInvalidParams, true},
		{"no clientInfo is fine", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, 0, false},
	}
	s := newTestServer(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := `{"jsonrpc":"2.0","id":7,"method":"server/discover"`
			if tt.params != "" {
				raw += `,"params":` + tt.params
			}
			r := s.HandleRaw(t.Context(), []byte(raw+"}"), nil, nil)
			if r.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d (%s)", r.Code, tt.wantCode, r.Body)
			}
			if tt.wantCode == CodeInvalidParams && r.HTTPStatus() != 400 {
				t.Errorf("HTTPStatus = %d, want 400", r.HTTPStatus())
			}
			if tt.metaErr && !r.MetaError {
				t.Errorf("MetaError = false, want true")
			}
			if tt.wantCode == CodeUnsupportedVersion {
				checkUnsupported(t, r.Body)
			}
			req := sentRequest{method: "server/discover", rev: revModern}
			m := &msg{raw: r.Body}
			if err := json.Unmarshal(r.Body, m); err != nil {
				t.Fatal(err)
			}
			c := &testClient{t: t, spec: testSpec}
			if err := c.validateResponse(req, m); err != nil {
				t.Errorf("invalid response %s: %v", r.Body, err)
			}
		})
	}
}

// checkUnsupported checks the data of a -32022 error.
func checkUnsupported(t *testing.T, body []byte) {
	t.Helper()
	var resp struct {
		Error struct {
			Data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resp.Error.Data.Supported, []string{"2026-07-28", "2025-11-25"}) || resp.Error.Data.Requested == "" {
		t.Errorf("data = %+v, want supported versions and the requested one", resp.Error.Data)
	}
}

func TestModernLegacyOnlyMethods(t *testing.T) {
	s := newTestServer(t, nil)
	c := serveInMemory(t, s)
	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "unknown/method"} {
		resp := c.call(true, method, map[string]any{"level": "info", "uri": "x:/y", "protocolVersion": "2026-07-28"})
		if resp.errorCode() != CodeMethodNotFound {
			t.Errorf("%s: got %s, want -32601", method, resp.raw)
		}
	}
	r := s.HandleRaw(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`), nil, nil)
	if r.HTTPStatus() != 404 {
		t.Errorf("modern -32601 HTTPStatus = %d, want 404", r.HTTPStatus())
	}
}

func TestLegacyBeforeInitialize(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil, echoTool()))
	ping := c.call(false, "ping", nil)
	if string(ping.Result) != "{}" {
		t.Errorf("ping before initialize = %s, want exactly {}", ping.raw)
	}
	for _, method := range []string{"tools/list", "server/discover", "logging/setLevel"} {
		if resp := c.call(false, method, nil); resp.errorCode() != CodeInvalidParams {
			t.Errorf("%s without _meta before initialize: got %s, want -32602", method, resp.raw)
		}
	}
	if resp := c.call(false, "no/such/method", nil); resp.errorCode() != CodeMethodNotFound {
		t.Errorf("unknown method: got %s, want -32601", resp.raw)
	}
}

// initialize performs the 2025-11-25 handshake asking for version.
func initialize(t *testing.T, c *testClient, version string) *msg {
	t.Helper()
	resp := c.call(false, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"elicitation": map[string]any{}},
		"clientInfo":      map[string]any{"name": "legacy-client", "version": "2.0"},
	})
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}

func TestInitializeNegotiation(t *testing.T) {
	// A served handshake revision is answered as asked (TestNegotiation has them all);
	// anything else gets 2025-11-25.
	for asked, want := range map[string]string{"2025-11-25": "2025-11-25", "2026-07-28": "2025-11-25", "2024-11-05": "2024-11-05", "2099-01-01": "2025-11-25"} {
		t.Run(asked, func(t *testing.T) {
			c := serveInMemory(t, newTestServer(t, &Options{Instructions: "hi"}, echoTool()))
			if olderRev(want) {
				c.rev = want
			}
			var got struct {
				ProtocolVersion string         `json:"protocolVersion"`
				ServerInfo      Implementation `json:"serverInfo"`
				Capabilities    map[string]any `json:"capabilities"`
				Instructions    string         `json:"instructions"`
			}
			initialize(t, c, asked).decodeResult(t, &got)
			if got.ProtocolVersion != want || got.ServerInfo.Name != "unit" || got.Instructions != "hi" {
				t.Errorf("initialize result = %+v, want %s from unit", got, want)
			}
			if got.Capabilities["tools"] == nil {
				t.Errorf("capabilities = %v, want tools", got.Capabilities)
			}
			var list struct{ Tools []struct{ Name string } }
			c.call(false, "tools/list", nil).decodeResult(t, &list)
			if len(list.Tools) != 1 {
				t.Errorf("legacy tools/list after initialize: %d tools, want 1", len(list.Tools))
			}
			// Modern requests are still served statelessly on the same connection.
			c.call(true, "tools/list", nil).decodeResult(t, &list)
		})
	}
}

func TestInitializeMissingVersion(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil))
	if resp := c.call(false, "initialize", map[string]any{"capabilities": map[string]any{}}); resp.errorCode() != CodeInvalidParams {
		t.Errorf("initialize without protocolVersion: got %s, want -32602", resp.raw)
	}
}

func TestSetLevel(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil))
	initialize(t, c, "2025-11-25")
	if resp := c.call(false, "logging/setLevel", map[string]any{"level": "loud"}); resp.errorCode() != CodeInvalidParams {
		t.Errorf("bad level: got %s, want -32602", resp.raw)
	}
	if resp := c.call(false, "logging/setLevel", map[string]any{"level": "warning"}); string(resp.Result) != "{}" {
		t.Errorf("setLevel: got %s, want exactly {}", resp.raw)
	}
	if resp := c.call(false, "ping", nil); string(resp.Result) != "{}" {
		t.Errorf("ping after initialize: got %s, want exactly {}", resp.raw)
	}
}

func TestNotificationsNeverAnswered(t *testing.T) {
	c := serveInMemory(t, newTestServer(t, nil))
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"notifications/unknown"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":"bogus"}`,
		`{"jsonrpc":"1.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	} {
		c.send(line)
	}
	c.expectQuiet(200 * time.Millisecond)
}

func TestReplyHTTPStatus(t *testing.T) {
	tests := []struct {
		r    Reply
		want int
	}{
		{Reply{}, 200},
		{Reply{Code: CodeParseError}, 400},
		{Reply{Code: CodeInvalidRequest}, 400},
		{Reply{Code: CodeInvalidParams, MetaError: true, Era: EraModern}, 400},
		{Reply{Code: CodeInvalidParams, Era: EraModern}, 200},
		{Reply{Code: CodeMethodNotFound, Era: EraModern}, 404},
		{Reply{Code: CodeMethodNotFound, Era: EraLegacy}, 200},
		{Reply{Code: CodeUnsupportedVersion, Era: EraModern}, 400},
		{Reply{Code: CodeMissingClientCapability, Era: EraModern}, 400},
		{Reply{Code: CodeHeaderMismatch, Era: EraModern}, 400},
		{Reply{Code: CodeInternalError, Era: EraModern}, 200},
	}
	for _, tt := range tests {
		if got := tt.r.HTTPStatus(); got != tt.want {
			t.Errorf("%+v.HTTPStatus() = %d, want %d", tt.r, got, tt.want)
		}
	}
}

func TestModernClassification(t *testing.T) {
	tests := map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`: true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`:        true,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"progressToken":1}}}`:                                      false,
		`{"jsonrpc":"2.0","id":1,"method":"x"}`: false,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"name":5,"_meta":{"io.modelcontextprotocol/protocolVersion":"a"}}}`: true,
		`not json`: false,
	}
	for raw, want := range tests {
		if got := Modern(json.RawMessage(raw)); got != want {
			t.Errorf("Modern(%s) = %v, want %v", raw, got, want)
		}
	}
	m, err := ParseMessage([]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`))
	if err != nil || m.ProtocolVersion != "2026-07-28" || m.Name != "echo" || !strings.Contains(string(m.ID), "a") {
		t.Errorf("ParseMessage = %+v, %v; want version, name and id", m, err)
	}
}
