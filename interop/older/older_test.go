package older

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/olderclient"
	"github.com/mcpgen/mcpgen/internal/specschema"

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
	olderclient.Main(m, filepath.Join("..", ".."), raceEnabled, &testserverBin)
}

// A client is one older Go client release asking for one revision.
type client struct {
	name       string
	rev        string
	transports []string
	run        func(ctx context.Context, transport, target string, rec *recorder) (*olderclient.Outcome, error)
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
					target = rec.proxy(t, olderclient.StartHTTP(t, testserverBin)) + "/mcp"
				case "sse":
					target = rec.proxy(t, olderclient.StartHTTP(t, testserverBin, "-sse")) + "/sse"
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
				olderclient.Check(t, c.rev, out)
				rec.validate(t, c.rev)
			})
		}
	}
}

// runGoSDK drives the official Go SDK v1.1.0.
func runGoSDK(ctx context.Context, transport, target string, _ *recorder) (*olderclient.Outcome, error) {
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
	out, err := olderclient.Converse(ctx, olderclient.GoSDK(cs))
	if err != nil {
		return nil, err
	}
	out.Negotiated = cs.InitializeResult().ProtocolVersion
	return out, nil
}

// runMCPGo drives mcp-go v0.32.0, asking for rev. Its CallToolResult has no
// structuredContent: rec.validate reads the wire.
func runMCPGo(rev string) func(ctx context.Context, transport, target string, _ *recorder) (*olderclient.Outcome, error) {
	return func(ctx context.Context, transport, target string, _ *recorder) (*olderclient.Outcome, error) {
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
		out, err := olderclient.Converse(ctx, olderclient.Session{
			Ping: c.Ping,
			ListTools: func(ctx context.Context, cursor string) (any, error) {
				var r mcpgo.ListToolsRequest
				r.Params.Cursor = mcpgo.Cursor(cursor)
				return c.ListTools(ctx, r)
			},
			CallTool: func(ctx context.Context, name string, args map[string]any) (any, error) {
				var r mcpgo.CallToolRequest
				r.Params.Name, r.Params.Arguments = name, args
				return c.CallTool(ctx, r)
			},
		})
		if err != nil {
			return nil, err
		}
		out.Negotiated = init.ProtocolVersion
		return out, nil
	}
}

// teeCommand runs the test server with its stdout also written to path.
func teeCommand(path string) *exec.Cmd {
	return exec.Command("sh", "-c", `"$0" | tee "$1"`, testserverBin, path)
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
	specschema.Strictify(doc) // closed, as the runtime's tests do (runtime/spec_test.go)
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
