//lint:file-ignore SA1019 sampling and logging are deprecated in 2026-07-28 but still served: the tests exercise them

package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK client (github.com/modelcontextprotocol/go-sdk v1.8.0).
//
// Its Client.Connect asks for 2026-07-28 by default: it sends server/discover and
// falls back to initialize only when discover fails, so every test here pins the
// revision it wants and checks the one it got.

var revisions = []string{"2025-11-25", "2026-07-28"}

func TestGoSDKStdio(t *testing.T) {
	for _, example := range exampleNames {
		for _, rev := range revisions {
			t.Run(example+"/"+rev, func(t *testing.T) {
				t.Parallel()
				cmd := serverCmd(t, example)
				cs, wire := goSDKConnect(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, rev, true)
				conv := goSDKConverse(t, cs, example, rev)
				var seen *primitivesSeen
				if p := primitiveExpectations[example]; p != nil {
					seen = goSDKPrimitives(t, cs, p)
				}
				// Closing the session closes the server's stdin; Close waits for the
				// exit (SIGTERM after 10s): the server must exit 0 on its own.
				if err := cs.Close(); err != nil {
					t.Errorf("close session (stdin EOF): %v, want exit status 0", exitError(err))
				}
				conv.Wire = parseGoSDKLog(t, wire.String())
				checkGoSDKWire(t, rev, conv.Wire)
				checkConversation(t, example, rev, conv)
				if p := primitiveExpectations[example]; p != nil {
					checkPrimitives(t, p, seen)
				}
				if t.Failed() {
					t.Logf("wire:\n%s", dumpWire(conv.Wire))
				}
			})
		}
	}
}

func TestGoSDKHTTP(t *testing.T) {
	for _, example := range exampleNames {
		for _, rev := range revisions {
			t.Run(example+"/"+rev, func(t *testing.T) {
				t.Parallel()
				url := startHTTP(t, example)
				hl := &httpLog{base: http.DefaultTransport}
				tr := &mcp.StreamableClientTransport{
					Endpoint:   url,
					HTTPClient: &http.Client{Transport: hl}, // no Timeout: the standalone SSE stream is long-lived
					MaxRetries: -1,
				}
				defer func() {
					if t.Failed() {
						t.Logf("HTTP exchanges:\n%s", hl.buf.String())
					}
				}()
				// The wire comes from hl: see httpLog for why not mcp.LoggingTransport.
				cs, _ := goSDKConnect(t, tr, rev, false)
				conv := goSDKConverse(t, cs, example, rev)
				var seen *primitivesSeen
				if p := primitiveExpectations[example]; p != nil {
					seen = goSDKPrimitives(t, cs, p)
				}
				if err := cs.Close(); err != nil {
					t.Errorf("close session: %v", err)
				}
				conv.Wire = hl.messages()
				checkGoSDKWire(t, rev, conv.Wire)
				checkConversation(t, example, rev, conv)
				if p := primitiveExpectations[example]; p != nil {
					checkPrimitives(t, p, seen)
				}
				if t.Failed() {
					t.Logf("wire:\n%s", dumpWire(conv.Wire))
				}
			})
		}
	}
}

// Progress notifications by token, for every Go SDK client of the tests.
var (
	tokenSeq   atomic.Int64
	onProgress sync.Map // token -> progressWatch
	progressMu sync.Mutex
	progressBy = map[string][]progress{}
)

type progressWatch struct {
	cancel     bool // cancel the call on its first notification
	cancelCall context.CancelFunc
}

func handleProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token := fmt.Sprint(req.Params.ProgressToken)
	progressMu.Lock()
	progressBy[token] = append(progressBy[token], progress{req.Params.Progress, req.Params.Total, req.Params.Message})
	progressMu.Unlock()
	if w, found := onProgress.Load(token); found && w.(progressWatch).cancel {
		w.(progressWatch).cancelCall()
	}
}

// progressSeen returns the notifications for token, waiting a little for want of them:
// the client may run its notification handler after the call returned.
func progressSeen(token string, want int) []progress {
	deadline := time.Now().Add(2 * time.Second)
	for {
		progressMu.Lock()
		got := progressBy[token]
		progressMu.Unlock()
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The answers of the pretend user and model when the server asks mid-call, as in
// ts/client.mjs: 2025-11-25 sends a server-to-client request, 2026-07-28 an
// input_required result that the SDK's multi-round-trip middleware fulfils.
var formValues = map[string]any{"name": "Ada", "color": "teal", "username": "ada", "email": "ada@example.com"}

func elicit(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	raw, err := json.Marshal(req.Params.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for key, prop := range schema.Properties {
		switch {
		case len(prop.Enum) > 0:
			content[key] = prop.Enum[0]
		case prop.Type == "boolean":
			content[key] = true
		case prop.Type == "integer" || prop.Type == "number":
			content[key] = 1
		case formValues[key] != nil:
			content[key] = formValues[key]
		default:
			content[key] = "x"
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func sample(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: "assistant", Model: "interop-model", Content: &mcp.TextContent{Text: "interop model says hi"}}, nil
}

// goSDKConnect connects a Go SDK client over tr asking for revision rev; with
// logWire, it records every message in the returned buffer (mcp.LoggingTransport).
func goSDKConnect(t *testing.T, tr mcp.Transport, rev string, logWire bool) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	wire := new(syncBuffer)
	if logWire {
		tr = &mcp.LoggingTransport{Transport: tr, Writer: wire}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-interop-go", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: handleProgress,
		ElicitationHandler:          elicit,
		CreateMessageHandler:        sample,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		t.Fatalf("connect asking for %s: %v\nwire:\n%s", rev, err, wire)
	}
	return cs, wire
}

// goSDKConverse lists the tools (every page), pings on 2025-11-25, and sends the
// example's calls.
func goSDKConverse(t *testing.T, cs *mcp.ClientSession, example, rev string) *conversation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	init := cs.InitializeResult()
	conv := &conversation{ProtocolVersion: init.ProtocolVersion, Instructions: init.Instructions}
	if init.ServerInfo != nil {
		conv.ServerName = init.ServerInfo.Name
	}
	if rev == "2025-11-25" {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("ping: %v", err)
		}
	}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		conv.Tools = append(conv.Tools, raw)
	}
	for i, c := range expectations[example].calls {
		params := &mcp.CallToolParams{Name: c.Name}
		if c.Args != nil {
			params.Arguments = c.Args // a nil map would go out as "arguments": null
		}
		callCtx, cancelCall := context.WithCancel(ctx)
		token := fmt.Sprintf("%s#%d#%d", t.Name(), i, tokenSeq.Add(1)) // unique across tests and -count runs
		if c.Progress || c.CancelOnProgress {
			params.SetProgressToken(token)
			onProgress.Store(token, progressWatch{cancel: c.CancelOnProgress, cancelCall: cancelCall})
		}
		if c.LogLevel != "" {
			// 2026-07-28: the level travels in the request's _meta; 2025-11-25: logging/setLevel.
			if rev == "2026-07-28" {
				params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: c.LogLevel}
			} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(c.LogLevel)}); err != nil {
				t.Errorf("logging/setLevel %s: %v", c.LogLevel, err)
			}
		}
		res, err := cs.CallTool(callCtx, params)
		cancelCall()
		cr := callResult{Name: c.Name, Progress: progressSeen(token, len(c.progress))}
		var werr *jsonrpc.Error
		switch {
		case c.CancelOnProgress && errors.Is(err, context.Canceled):
			cr.Error = &struct {
				Code    any    `json:"code"`
				Message string `json:"message"`
			}{"cancelled", err.Error()}
		case errors.As(err, &werr):
			cr.Error = &struct {
				Code    any    `json:"code"`
				Message string `json:"message"`
			}{float64(werr.Code), werr.Message}
		case err != nil:
			t.Errorf("tools/call %s: %v (not a JSON-RPC error)", c.Name, err)
			cr.Error = &struct {
				Code    any    `json:"code"`
				Message string `json:"message"`
			}{"client", err.Error()}
		default:
			raw, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			cr.Result = raw
		}
		conv.Calls = append(conv.Calls, cr)
	}
	return conv
}

// checkGoSDKWire checks the era the Go SDK actually used on the wire, then the messages.
func checkGoSDKWire(t *testing.T, rev string, msgs []wireMsg) {
	t.Helper()
	var sentMethods []string
	for _, m := range msgs {
		var r rpc
		if m.Dir == "send" && json.Unmarshal(m.Msg, &r) == nil && r.Method != "" {
			sentMethods = append(sentMethods, r.Method)
			if rev == "2026-07-28" && r.ID != nil && !strings.Contains(string(r.Params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
				t.Errorf("2026-07-28 request without the protocol version in _meta: %s", m.Msg)
			}
		}
	}
	has := func(method string) bool {
		for _, s := range sentMethods {
			if s == method {
				return true
			}
		}
		return false
	}
	switch rev {
	case "2026-07-28":
		if !has("server/discover") || has("initialize") {
			t.Errorf("2026-07-28: the client sent %v, want server/discover and no initialize", sentMethods)
		}
	case "2025-11-25":
		if !has("initialize") || !has("notifications/initialized") || has("server/discover") {
			t.Errorf("2025-11-25: the client sent %v, want initialize, notifications/initialized and no server/discover", sentMethods)
		}
	default:
		panic(fmt.Sprintf("revision %q", rev))
	}
	checkWire(t, rev, msgs)
}
