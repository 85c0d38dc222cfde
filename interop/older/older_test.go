package older

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Older Go clients against runtime/internal/testserver, over stdio, Streamable HTTP
// and the 2024-11-05 HTTP+SSE transport (-sse):
//   - the official Go SDK v1.1.0, which speaks 2025-06-18;
//   - mcp-go v0.32.0, whose latest revision is 2025-03-26, once asking for that and
//     once for 2024-11-05 (it sends whatever InitializeRequest names).
// Every message the server writes is recorded (a tee on stdio, a recording proxy on
// HTTP) and validated against the negotiated revision's closed schema.json.

var testserverBin string

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	tmp, err := os.MkdirTemp("", "mcpgen-interop-older-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(tmp)
	testserverBin = filepath.Join(tmp, "testserver")
	args := []string{"build", "-o", testserverBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "./runtime/internal/testserver")...)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("go build testserver: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// A client is one older Go client release asking for one revision.
type client struct {
	name       string
	rev        string
	transports []string
	run        func(ctx context.Context, transport, target string, rec *recorder) (*outcome, error)
}

// outcome is what a client saw, client-neutral.
type outcome struct {
	negotiated string
	tools      int
	calls      map[string]callOut
}

type callOut struct {
	types      []string
	texts      []string
	structured bool
	isError    bool
}

var clients = []client{
	{name: "go-sdk-v1.1.0", rev: "2025-06-18", transports: []string{"stdio", "http", "sse"}, run: runGoSDK},
	{name: "mcp-go-v0.32.0", rev: "2025-03-26", transports: []string{"stdio", "http", "sse"}, run: runMCPGo("2025-03-26")},
	// mcp-go's Streamable HTTP client is a 2025-03-26 transport: 2024-11-05 clients use HTTP+SSE.
	{name: "mcp-go-v0.32.0-2024-11-05", rev: "2024-11-05", transports: []string{"stdio", "sse"}, run: runMCPGo("2024-11-05")},
}

// TestOlderGoClients runs every client on every transport it has.
func TestOlderGoClients(t *testing.T) {
	for _, c := range clients {
		for _, tr := range c.transports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				t.Parallel()
				rec := &recorder{}
				target := ""
				switch tr {
				case "stdio":
					target = filepath.Join(t.TempDir(), "server-out.jsonl")
				case "http":
					target = rec.proxy(t, startHTTP(t)) + "/mcp"
				case "sse":
					target = rec.proxy(t, startHTTP(t, "-sse")) + "/sse"
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				out, err := c.run(ctx, tr, target, rec)
				if tr == "stdio" {
					rec.readFile(t, target)
				}
				defer func() {
					if t.Failed() {
						t.Logf("wire:\n%s", rec.dump())
					}
				}()
				if err != nil {
					t.Fatalf("%s over %s: %v", c.name, tr, err)
				}
				check(t, c.rev, out)
				rec.validate(t, c.rev)
			})
		}
	}
}

// check checks what the client saw on revision rev.
func check(t *testing.T, rev string, out *outcome) {
	t.Helper()
	if out.negotiated != rev {
		t.Errorf("negotiated %q, want %q", out.negotiated, rev)
	}
	if out.tools < 5 {
		t.Errorf("listed %d tools", out.tools)
	}
	if w := out.calls["whoami"]; len(w.texts) != 1 || !strings.Contains(w.texts[0], "version="+rev) {
		t.Errorf("whoami: %q, want version=%s", w.texts, rev)
	}
	e := out.calls["echo"]
	if len(e.texts) != 1 || e.texts[0] != `{"text":"hi"}` || e.structured != (rev >= "2025-06-18") {
		t.Errorf("echo: text %q, structured %v on %s", e.texts, e.structured, rev)
	}
	want := map[string]string{
		"2024-11-05": "text image text resource resource text",
		"2025-03-26": "text image audio resource resource text",
		"2025-06-18": "text image audio resource resource resource_link",
	}[rev]
	if got := strings.Join(out.calls["rich"].types, " "); got != want {
		t.Errorf("rich: %s, want %s", got, want)
	}
	if f := out.calls["fail"]; !f.isError {
		t.Errorf("fail: isError false")
	}
}

// runGoSDK drives the official Go SDK v1.1.0.
func runGoSDK(ctx context.Context, transport, target string, _ *recorder) (*outcome, error) {
	var tr gosdk.Transport
	switch transport {
	case "stdio":
		tr = &gosdk.CommandTransport{Command: teeCommand(target)}
	case "http":
		tr = &gosdk.StreamableClientTransport{Endpoint: target}
	case "sse":
		tr = &gosdk.SSEClientTransport{Endpoint: target}
	}
	c := gosdk.NewClient(&gosdk.Implementation{Name: "older-go-sdk", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	out := &outcome{negotiated: cs.InitializeResult().ProtocolVersion, calls: map[string]callOut{}}
	if err := cs.Ping(ctx, nil); err != nil {
		return nil, fmt.Errorf("ping: %w", err)
	}
	for cursor := ""; ; {
		page, err := cs.ListTools(ctx, &gosdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out.tools += len(page.Tools)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, call := range calls {
		res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: call.name, Arguments: call.args})
		if err != nil {
			return nil, fmt.Errorf("tools/call %s: %w", call.name, err)
		}
		co := callOut{structured: res.StructuredContent != nil, isError: res.IsError}
		for _, b := range res.Content {
			raw, _ := json.Marshal(b)
			var blk struct{ Type, Text string }
			_ = json.Unmarshal(raw, &blk)
			co.types, co.texts = append(co.types, blk.Type), appendText(co.texts, blk.Type, blk.Text)
		}
		out.calls[call.name] = co
	}
	return out, nil
}

// runMCPGo drives mcp-go v0.32.0, asking for rev.
func runMCPGo(rev string) func(ctx context.Context, transport, target string, _ *recorder) (*outcome, error) {
	return func(ctx context.Context, transport, target string, _ *recorder) (*outcome, error) {
		var c *mcpgoclient.Client
		var err error
		switch transport {
		case "stdio":
			c, err = mcpgoclient.NewStdioMCPClient("sh", nil, "-c", `"$0" | tee "$1"`, testserverBin, target)
		case "http":
			c, err = mcpgoclient.NewStreamableHttpClient(target)
		case "sse":
			c, err = mcpgoclient.NewSSEMCPClient(target, mcpgotransport.WithHeaders(map[string]string{}))
		}
		if err != nil {
			return nil, err
		}
		defer c.Close()
		if transport != "stdio" {
			if err := c.Start(ctx); err != nil {
				return nil, fmt.Errorf("start: %w", err)
			}
		}
		var req mcpgo.InitializeRequest
		req.Params.ProtocolVersion = rev
		req.Params.ClientInfo = mcpgo.Implementation{Name: "older-mcp-go", Version: "1"}
		init, err := c.Initialize(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("initialize: %w", err)
		}
		out := &outcome{negotiated: init.ProtocolVersion, calls: map[string]callOut{}}
		if err := c.Ping(ctx); err != nil {
			return nil, fmt.Errorf("ping: %w", err)
		}
		tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		out.tools = len(tools.Tools)
		for tools.NextCursor != "" {
			var next mcpgo.ListToolsRequest
			next.Params.Cursor = tools.NextCursor
			if tools, err = c.ListTools(ctx, next); err != nil {
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			out.tools += len(tools.Tools)
		}
		for _, call := range calls {
			var r mcpgo.CallToolRequest
			r.Params.Name = call.name
			r.Params.Arguments = call.args
			res, err := c.CallTool(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("tools/call %s: %w", call.name, err)
			}
			co := callOut{isError: res.IsError}
			for _, b := range res.Content {
				raw, _ := json.Marshal(b)
				var blk struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}
				_ = json.Unmarshal(raw, &blk)
				co.types, co.texts = append(co.types, blk.Type), appendText(co.texts, blk.Type, blk.Text)
			}
			out.calls[call.name] = co
		}
		// mcp-go v0.32.0's CallToolResult has no structuredContent: read the wire.
		return out, nil
	}
}

// appendText collects the text of text blocks.
func appendText(texts []string, typ, text string) []string {
	if typ == "text" {
		return append(texts, text)
	}
	return texts
}

var calls = []struct {
	name string
	args map[string]any
}{
	{"whoami", nil},
	{"echo", map[string]any{"text": "hi"}},
	{"rich", nil},
	{"fail", nil},
}

// teeCommand runs the test server with its stdout also written to path.
func teeCommand(path string) *exec.Cmd {
	return exec.Command("sh", "-c", `"$0" | tee "$1"`, testserverBin, path)
}

// startHTTP starts the test server on a free loopback port and returns its base
// URL; it gets SIGTERM when the test ends and must exit 0.
func startHTTP(t *testing.T, extra ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(testserverBin, append([]string{"-http", addr}, extra...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("server after SIGTERM: %v\n%s", err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("server still running 15s after SIGTERM")
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not listening: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A recorder keeps every JSON-RPC message of one conversation.
type recorder struct {
	mu   sync.Mutex
	sent [][]byte // client to server
	recv [][]byte // server to client
}

func (r *recorder) add(dir string, msg []byte) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var list []json.RawMessage
	if msg[0] == '[' && json.Unmarshal(msg, &list) == nil { // a batch
		for _, m := range list {
			r.add(dir, m)
		}
		return
	}
	if dir == "send" {
		r.sent = append(r.sent, bytes.Clone(msg))
	} else {
		r.recv = append(r.recv, bytes.Clone(msg))
	}
}

// proxy starts a recording reverse proxy to base and returns its URL.
func (r *recorder) proxy(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	p := httputil.NewSingleHostReverseProxy(u)
	p.FlushInterval = -1
	p.ModifyResponse = func(resp *http.Response) error {
		ct := resp.Header.Get("Content-Type")
		switch {
		case strings.HasPrefix(ct, "text/event-stream"):
			pr, pw := io.Pipe()
			body := resp.Body
			go func() {
				sc := bufio.NewReader(io.TeeReader(body, pw))
				for {
					line, err := sc.ReadString('\n')
					if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok && strings.HasPrefix(data, "{") || ok && strings.HasPrefix(data, "[") {
						r.add("recv", []byte(data))
					}
					if err != nil {
						pw.CloseWithError(err)
						body.Close()
						return
					}
				}
			}()
			resp.Body = pr
		case resp.StatusCode >= 400:
			// A transport-level refusal (e.g. 404 for the standalone stream's
			// reconnect after DELETE ended the session), not a session message.
		case strings.HasPrefix(ct, "application/json"):
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(b))
			r.add("recv", b)
		}
		return nil
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			req.Body = io.NopCloser(bytes.NewReader(b))
			r.add("send", b)
		}
		p.ServeHTTP(w, req)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// readFile records the lines the server wrote on stdio.
func (r *recorder) readFile(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the server's recorded output: %v", err)
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		r.add("recv", line)
	}
}

func (r *recorder) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, m := range r.sent {
		fmt.Fprintf(&b, "-> %s\n", m)
	}
	for _, m := range r.recv {
		fmt.Fprintf(&b, "<- %s\n", m)
	}
	return b.String()
}

// resultDefs names each method's result type.
var resultDefs = map[string]string{
	"initialize": "InitializeResult", "ping": "EmptyResult", "tools/list": "ListToolsResult",
	"tools/call": "CallToolResult",
}

// validate checks every server message against rev's closed schema; on stdio the
// requests are not recorded, so results are matched by their shape: every
// message must at least be a JSONRPCMessage, and results of recorded requests
// must be of their request's type.
func (r *recorder) validate(t *testing.T, rev string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.recv) == 0 {
		t.Fatal("no server message was recorded")
	}
	methods := map[string]string{}
	for _, m := range r.sent {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m, &req) == nil && req.ID != nil && req.Method != "" {
			methods[string(req.ID)] = req.Method
		}
	}
	envelope := schema(t, rev, "JSONRPCMessage")
	sawCall := false
	for _, m := range r.recv {
		if err := validateJSON(envelope, m); err != nil {
			t.Errorf("not a %s JSONRPCMessage: %v\n%s", rev, err, m)
		}
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(m, &resp) != nil || resp.Result == nil {
			continue
		}
		def := resultDefs[methods[string(resp.ID)]]
		if def == "" && len(r.sent) == 0 && bytes.Contains(resp.Result, []byte(`"content"`)) {
			def = "CallToolResult" // stdio: no requests recorded
		}
		if def == "" {
			continue
		}
		sawCall = sawCall || def == "CallToolResult"
		if err := validateJSON(schema(t, rev, def), resp.Result); err != nil {
			t.Errorf("result is not a %s %s: %v\n%s", rev, def, err, m)
		}
	}
	if !sawCall {
		t.Error("no tools/call result was recorded")
	}
}

var schemas struct {
	sync.Mutex
	byKey map[string]*jsonschema.Schema
}

// schema compiles #/definitions/def of the revision's schema.json, closed.
func schema(t *testing.T, rev, def string) *jsonschema.Schema {
	t.Helper()
	schemas.Lock()
	defer schemas.Unlock()
	if s := schemas.byKey[rev+def]; s != nil {
		return s
	}
	dir := os.Getenv("MCPGEN_SPEC_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "spec")
	}
	f, err := os.Open(filepath.Join(dir, rev, "schema", "schema.json"))
	if err != nil {
		t.Fatalf("the spec schema is needed to check the wire: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	strictify(doc)
	c := jsonschema.NewCompiler()
	u := "https://spec.invalid/" + rev + "/schema.json"
	if err := c.AddResource(u, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(u + "#/definitions/" + def)
	if err != nil {
		t.Fatal(err)
	}
	if schemas.byKey == nil {
		schemas.byKey = map[string]*jsonschema.Schema{}
	}
	schemas.byKey[rev+def] = s
	return s
}

func validateJSON(s *jsonschema.Schema, raw []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// strictify closes a draft-07 schema's types as the runtime's tests do
// (runtime/spec_test.go), so that a field a later revision added fails.
func strictify(doc any) {
	root, _ := doc.(map[string]any)
	defs, _ := root["definitions"].(map[string]any)
	for _, d := range defs {
		def, _ := d.(map[string]any)
		props, _ := def["properties"].(map[string]any)
		if props == nil {
			continue
		}
		if _, open := def["additionalProperties"]; !open {
			def["additionalProperties"] = false
			if _, ok := props["method"]; ok {
				props["jsonrpc"], props["id"] = map[string]any{}, map[string]any{}
			}
		}
		params, _ := props["params"].(map[string]any)
		if pp, _ := params["properties"].(map[string]any); pp != nil {
			if _, open := params["additionalProperties"]; !open {
				params["additionalProperties"] = false
			}
		}
	}
}
