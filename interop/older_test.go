package interop

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specschema"
)

// Older releases of the official TypeScript SDK, one per revision each defaults to
// (ts-old/package.json pins them under aliases), against testserver and everything
// over stdio, Streamable HTTP and the 2024-11-05 HTTP+SSE transport (-sse). The
// SDK parses every result with its own schemas of that revision, so a field or a
// content block its revision does not have fails the call; the Go side also
// validates every message on the wire against the revision's closed schema.json.

// An olderTS is one older 1.x release.
type olderTS struct {
	version string // @modelcontextprotocol/sdk release
	rev     string // the revision it asks for (its LATEST_PROTOCOL_VERSION)
	// transports it has: 1.9.0 predates Streamable HTTP.
	transports []string
}

var olderTSClients = []olderTS{
	{version: "1.9.0", rev: "2024-11-05", transports: []string{"stdio", "sse"}},
	{version: "1.12.3", rev: "2025-03-26", transports: []string{"stdio", "http", "sse"}},
	{version: "1.17.5", rev: "2025-06-18", transports: []string{"stdio", "http", "sse"}},
}

// olderCall is a tools/call and what must come of it on each revision.
type olderCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Progress  bool           `json:"progress,omitempty"`

	isError  bool
	mentions string            // a text block must contain it ({rev} is replaced)
	types    map[string]string // revision -> content block types, space-separated
	// structured: revisions from 2025-06-18 get structuredContent, older ones
	// the same JSON as text only.
	structured string
}

var olderCalls = map[string][]olderCall{
	"testserver": {
		{Name: "echo", Arguments: map[string]any{"text": "hi"}, structured: `{"text":"hi"}`},
		{Name: "whoami", mentions: "version={rev}"},
		{Name: "fail", isError: true, mentions: "on purpose"},
		{Name: "rich", types: map[string]string{
			"2024-11-05": "text image text resource resource text",
			"2025-03-26": "text image audio resource resource text",
			"2025-06-18": "text image audio resource resource resource_link",
		}},
		{Name: "slow", Arguments: map[string]any{"steps": 3, "delayMs": 1}, Progress: true},
	},
	"everything": {
		{Name: "test_simple_text"},
		{Name: "test_image_content"},
		{Name: "test_audio_content", types: map[string]string{"2024-11-05": "text", "2025-03-26": "audio", "2025-06-18": "audio"}},
		{Name: "test_embedded_resource"},
		{Name: "test_multiple_content_types"},
		{Name: "test_sampling", Arguments: map[string]any{"prompt": "Say hi"}, mentions: "interop model says hi"},
	},
}

func TestOlderTypeScriptClients(t *testing.T) {
	for _, example := range []string{"testserver", "everything"} {
		for _, c := range olderTSClients {
			for _, transport := range c.transports {
				t.Run(example+"/sdk-"+c.version+"/"+transport, func(t *testing.T) {
					t.Parallel()
					plan := map[string]any{"transport": transport}
					switch transport {
					case "stdio":
						plan["command"] = serverBin(t, example)
					case "http":
						plan["url"] = startHTTP(t, example)
					case "sse":
						plan["url"] = strings.TrimSuffix(startHTTP(t, example, "-sse"), "/mcp") + "/sse"
					}
					runOlderTS(t, example, c, plan)
				})
			}
		}
	}
}

// runOlderTS runs client.mjs with an older release and checks what it saw.
func runOlderTS(t *testing.T, example string, c olderTS, plan map[string]any) {
	t.Helper()
	requireNode(t)
	calls := olderCalls[example]
	plan["sdk"] = "sdk"
	plan["pkg"] = "sdk-" + c.rev
	plan["ping"] = true
	plan["calls"] = calls
	plan["timeoutMs"] = 60000
	if example == "everything" {
		p := primitiveExpectations[example]
		plan["primitives"] = map[string]any{"reads": p.Reads, "gets": p.Gets, "completions": p.Completions}
	}
	var out tsOutput
	stderr, runErr := runClientMJS(t, env.tsOldDir, plan, &out)
	defer func() {
		if t.Failed() {
			t.Logf("sdk %s; client stderr:\n%s\nwire:\n%s", out.SDKVersion, stderr, dumpWire(out.Trace))
		}
	}()
	if runErr != nil || !out.OK {
		t.Fatalf("sdk %s failed (%s): %s", c.version, exitError(runErr), out.Error)
	}
	if out.SDKVersion != c.version {
		t.Errorf("ran @modelcontextprotocol/sdk %s, want %s", out.SDKVersion, c.version)
	}
	if v := initializeVersion(out.Trace); v != c.rev {
		t.Errorf("negotiated %q, want %q", v, c.rev)
	}
	if string(out.Ping) != "{}" {
		t.Errorf("ping result %s, want {}", out.Ping)
	}
	checkWire(t, c.rev, out.Trace)
	checkOlderCalls(t, c.rev, calls, out.Calls)
	if example == "everything" {
		checkOlderPrimitives(t, out.Primitives)
	}
}

// checkOlderCalls checks each call's outcome for revision rev.
func checkOlderCalls(t *testing.T, rev string, calls []olderCall, got []callResult) {
	t.Helper()
	if len(got) != len(calls) {
		t.Fatalf("%d results for %d calls", len(got), len(calls))
	}
	for i, c := range calls {
		r := got[i]
		if r.Error != nil {
			t.Errorf("%s: error %v %s", c.Name, r.Error.Code, r.Error.Message)
			continue
		}
		var res toolResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Errorf("%s: result %s: %v", c.Name, r.Result, err)
			continue
		}
		if res.IsError != c.isError {
			t.Errorf("%s: isError %v, want %v: %s", c.Name, res.IsError, c.isError, r.Result)
		}
		var types, texts []string
		for _, b := range res.Content {
			types = append(types, b.Type)
			texts = append(texts, b.Text)
		}
		if want := c.types[rev]; want != "" && strings.Join(types, " ") != want {
			t.Errorf("%s: content types %v, want %s", c.Name, types, want)
		}
		if c.mentions != "" && !strings.Contains(strings.Join(texts, "\n"), strings.ReplaceAll(c.mentions, "{rev}", rev)) {
			t.Errorf("%s: content %q does not mention %q", c.Name, texts, c.mentions)
		}
		if c.structured != "" {
			if len(texts) != 1 || texts[0] != c.structured {
				t.Errorf("%s: text %q, want the structured output %s as text", c.Name, texts, c.structured)
			}
			if has := res.StructuredContent != nil; has != (rev >= "2025-06-18") {
				t.Errorf("%s: structuredContent present = %v on %s", c.Name, has, rev)
			}
		}
		if c.Progress && len(r.Progress) > 3 {
			t.Errorf("%s: %d progress notifications for 3 steps", c.Name, len(r.Progress))
		}
	}
}

// checkOlderPrimitives checks that every list, read, get and completion succeeded.
func checkOlderPrimitives(t *testing.T, p *primitivesSeen) {
	t.Helper()
	if p == nil {
		t.Fatal("the client listed no primitives")
	}
	for _, list := range [][]rawOutcome{p.Reads, p.Gets, p.Completions} {
		for _, o := range list {
			if len(o.Error) > 0 && string(o.Error) != "null" || o.Result == nil {
				t.Errorf("a read, get or completion failed: %s", o.Error)
			}
		}
	}
	if len(p.Resources) == 0 || len(p.Prompts) == 0 || len(p.Reads) == 0 {
		t.Errorf("too little listed or read: %d resources, %d prompts, %d reads", len(p.Resources), len(p.Prompts), len(p.Reads))
	}
}

// olderRev, defsKey and strictify: internal/specschema.
func olderRev(rev string) bool  { return specschema.Older(rev) }
func defsKey(rev string) string { return specschema.DefsKey(rev) }
func strictify(doc any)         { specschema.Strictify(doc) }
