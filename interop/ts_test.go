package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The official TypeScript clients, run by node on ts/client.mjs:
// @modelcontextprotocol/client 2.4.0 (both eras: pinned to 2026-07-28, negotiated
// with mode "auto", and its default "legacy" initialize) and @modelcontextprotocol/sdk
// 1.x (2025-11-25 only).

// A tsClient is one way of running client.mjs.
type tsClient struct {
	name string // subtest name
	sdk  string // "client" or "sdk"
	mode string // for sdk "client": "legacy", "auto" or a revision to pin
	rev  string // the revision it must end up speaking
	era  string // the era the 2.x client must report: "modern" or "legacy"
}

var tsClients = []tsClient{
	{name: "client-2.4.0/pin-2026-07-28", sdk: "client", mode: "2026-07-28", rev: "2026-07-28", era: "modern"},
	{name: "client-2.4.0/auto", sdk: "client", mode: "auto", rev: "2026-07-28", era: "modern"},
	{name: "client-2.4.0/legacy", sdk: "client", mode: "legacy", rev: "2025-11-25", era: "legacy"},
	{name: "sdk-1.x", sdk: "sdk", rev: "2025-11-25"},
}

// tsOutput is what client.mjs prints.
type tsOutput struct {
	OK              bool                   `json:"ok"`
	SDK             string                 `json:"sdk"`
	SDKVersion      string                 `json:"sdkVersion"`
	ProtocolVersion string                 `json:"protocolVersion"`
	Era             string                 `json:"era"`
	ServerInfo      *struct{ Name string } `json:"serverInfo"`
	Capabilities    json.RawMessage        `json:"capabilities"`
	Instructions    string                 `json:"instructions"`
	Ping            json.RawMessage        `json:"ping"`
	Tools           []json.RawMessage      `json:"tools"`
	Calls           []callResult           `json:"calls"`
	Primitives      *primitivesSeen        `json:"primitives"`
	ListChanged     *struct {
		Heard  bool            `json:"heard"`
		Listed bool            `json:"listed"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"listChanged"`
	Custom []struct { // custom methods' outcomes (ext_test.go)
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"custom"`
	Trace []wireMsg       `json:"trace"`
	Error json.RawMessage `json:"error"`
}

func TestTypeScriptStdio(t *testing.T) {
	for _, example := range exampleNames {
		for _, tc := range tsClients {
			t.Run(example+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				bin := serverBin(t, example)
				runTS(t, example, tc, map[string]any{"transport": "stdio", "command": bin})
			})
		}
	}
}

func TestTypeScriptHTTP(t *testing.T) {
	for _, example := range exampleNames {
		for _, tc := range tsClients {
			t.Run(example+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				url := startHTTP(t, example)
				runTS(t, example, tc, map[string]any{"transport": "http", "url": url})
			})
		}
	}
}

// runTS runs client.mjs with the plan for tc and checks what it saw.
func runTS(t *testing.T, example string, tc tsClient, plan map[string]any) {
	t.Helper()
	requireNode(t)
	plan["sdk"] = tc.sdk
	plan["mode"] = tc.mode
	plan["ping"] = tc.rev == "2025-11-25" // the 2.x client refuses ping on 2026-07-28
	plan["calls"] = expectations[example].calls
	plan["timeoutMs"] = 60000
	if p := primitiveExpectations[example]; p != nil {
		plan["primitives"] = p
	}
	plan["listChanged"] = example == "everything"
	var out tsOutput
	stderr, runErr := runClientMJS(t, env.tsDir, plan, &out)
	defer func() {
		if t.Failed() {
			t.Logf("%s %s; client stderr (includes the server's on stdio):\n%s\nwire:\n%s", out.SDK, out.SDKVersion, stderr, dumpWire(out.Trace))
		}
	}()
	if strings.Contains(string(stderr), "WARNING: DATA RACE") {
		t.Errorf("the server (its stderr goes to the client's) reports a data race")
	}
	if runErr != nil || !out.OK {
		t.Fatalf("%s client failed (%s): %s", tc.name, exitError(runErr), out.Error)
	}
	if tc.sdk == "client" && out.Era != tc.era {
		t.Errorf("client reports era %q, want %q", out.Era, tc.era)
	}
	if tc.rev == "2025-11-25" && string(out.Ping) != "{}" {
		t.Errorf("ping result %s, want {}", out.Ping)
	}
	conv := &conversation{ProtocolVersion: out.ProtocolVersion, Instructions: out.Instructions, Tools: out.Tools, Calls: out.Calls, Wire: out.Trace, dropsLateNotifications: true}
	if out.ServerInfo != nil {
		conv.ServerName = out.ServerInfo.Name
	}
	if conv.ProtocolVersion == "" && tc.sdk == "sdk" {
		// SDK 1.x exposes the negotiated version only on HTTP transports; read it from the wire.
		conv.ProtocolVersion = initializeVersion(out.Trace)
	}
	checkWire(t, tc.rev, out.Trace)
	checkConversation(t, example, tc.rev, conv)
	if p := primitiveExpectations[example]; p != nil {
		checkPrimitives(t, p, out.Primitives)
	}
	if example == "everything" {
		lc := out.ListChanged
		switch {
		case lc == nil:
			t.Errorf("the client reported nothing about the tool-list change")
		case !lc.Heard:
			t.Errorf("no notifications/tools/list_changed within 10s of test_trigger_tool_change")
		case !lc.Listed:
			t.Errorf("test_transient_tool is not listed after the change")
		case lc.Error != nil || !strings.Contains(string(lc.Result), "transient tool called"):
			t.Errorf("tools/call test_transient_tool: %s %s", lc.Result, lc.Error)
		}
	}
}

// runClientMJS runs dir's client.mjs with plan and decodes what it printed
// into out, failing the test when that is not JSON; it returns the client's
// stderr and how it ended.
func runClientMJS(t *testing.T, dir string, plan map[string]any, out any) (stderr []byte, runErr error) {
	t.Helper()
	planJSON, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.node, filepath.Join(dir, "client.mjs"), string(planJSON))
	var stdout, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errb
	runErr = cmd.Run()
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node client.mjs: %v; output is not JSON: %v\nstdout:\n%s\nstderr:\n%s", exitError(runErr), err, stdout.Bytes(), errb.Bytes())
	}
	return errb.Bytes(), runErr
}

// initializeVersion returns the protocolVersion of the initialize result on the wire.
func initializeVersion(msgs []wireMsg) string {
	for _, m := range msgs {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      any    `json:"serverInfo"`
			} `json:"result"`
		}
		if m.Dir == "recv" && json.Unmarshal(m.Msg, &r) == nil && r.Result.ServerInfo != nil {
			return r.Result.ProtocolVersion
		}
	}
	return ""
}
