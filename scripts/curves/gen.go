package main

// gen.go: the sources of the curve servers. For a catalog of n tools it writes,
// into a module beside the servers' go.mod:
//
//	catN/mg/tools.go        the n tools and echo, annotated //mcp:tool (mcpgen
//	                        then writes mcp_gen.go and cmd/server/main.go)
//	catN/mg/cmd/bigcap/     the same server with MaxSessions raised (sessions curve)
//	catN/api/tools.go       the same types and handlers, without annotations
//	catN/sdk/main.go        the official Go SDK serving api's tools (typed AddTool)
//	catN/mcpgo/main.go      mcp-go serving them (typed structured handlers)
//	catN/floor/main.go      a hand-written encoding/json server: no validation
//
// Every tool of the catalog has its own input and output type, as a catalog
// generated from an internal API would: tool_0042 takes {query, limit} and
// answers {hits, echo}. echo takes {text, items: [{id, name, note}]} and
// answers the same, for the payload curve.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// chunk is how many tools one registration function of the peers' servers
// registers: one function of 10,000 calls takes the compiler many minutes.
const chunk = 100

// toolsSource is the tools file of a catalog of n tools, in package pkg,
// with //mcp:tool directives when annotate.
func toolsSource(pkg string, n int, annotate bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s is a synthetic catalog of %d tools and echo (scripts/curves).\npackage %s\n\nimport \"context\"\n\n", pkg, n, pkg)
	b.WriteString(`// An Item is one element of an echo payload.
type Item struct {
	// ID numbers the item.
	ID int ` + "`json:\"id\"`" + `
	// Name names it.
	Name string ` + "`json:\"name\"`" + `
	// Note is free text.
	Note string ` + "`json:\"note\"`" + `
}

// EchoIO is what echo takes and answers: a string and an array of objects.
type EchoIO struct {
	// Text is any string.
	Text string ` + "`json:\"text\"`" + `
	// Items are any objects.
	Items []Item ` + "`json:\"items\"`" + `
}

// Echo answers its arguments as they came.
`)
	if annotate {
		b.WriteString("//\n//mcp:tool echo readonly idempotent\n")
	}
	b.WriteString("func Echo(_ context.Context, in EchoIO) (EchoIO, error) {\n\tif in.Items == nil {\n\t\tin.Items = []Item{}\n\t}\n\treturn in, nil\n}\n")
	for i := range n {
		id := fmt.Sprintf("%05d", i)
		fmt.Fprintf(&b, `
// Tool%[1]sIn selects records of collection %[2]d.
type Tool%[1]sIn struct {
	// Query is what to look for in collection %[2]d.
	Query string `+"`json:\"query\"%[3]s`"+`
	// Limit caps the hits (1..100).
	Limit int `+"`json:\"limit,omitempty\"%[4]s`"+`
}

// Tool%[1]sOut reports what Tool%[1]s found.
type Tool%[1]sOut struct {
	// Hits is how many records matched.
	Hits int `+"`json:\"hits\"`"+`
	// Echo repeats the query.
	Echo string `+"`json:\"echo\"`"+`
}

// Tool%[1]s looks up records of collection %[2]d of the synthetic API.
`, id, i, tag(annotate, "minLength=1"), tag(annotate, "minimum=1,maximum=100"))
		if annotate {
			fmt.Fprintf(&b, "//\n//mcp:tool tool_%s readonly idempotent\n", id)
		}
		fmt.Fprintf(&b, "func Tool%[1]s(_ context.Context, in Tool%[1]sIn) (Tool%[1]sOut, error) {\n\treturn Tool%[1]sOut{Hits: in.Limit, Echo: in.Query}, nil\n}\n", id)
	}
	return b.String()
}

// tag is mcpgen's jsonschema tag with rules, for the annotated package only:
// the official Go SDK refuses such tags (its jsonschema tag is a description),
// so the peers' copy has none and validates types and required fields only.
func tag(annotate bool, rules string) string {
	if !annotate {
		return ""
	}
	return ` jsonschema:"` + rules + `"`
}

// sdkSource is the official Go SDK's server of catalog n.
func sdkSource(mod string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `// Command sdk serves catalog %d with github.com/modelcontextprotocol/go-sdk.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	api %q
)

func main() {
	stdio := flag.Bool("stdio", false, "serve on stdin/stdout")
	addr := flag.String("http", "", "serve Streamable HTTP (stateful sessions, JSON responses) at /mcp")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo answers its arguments as they came."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in api.EchoIO) (*mcp.CallToolResult, api.EchoIO, error) {
			out, err := api.Echo(ctx, in)
			return nil, out, err
		})
`, n, mod+"/api")
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\tregister%d(s)\n", c/chunk)
	}
	b.WriteString(`	switch {
	case *stdio:
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Print(err)
		}
	case *addr != "":
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		log.Fatal(http.ListenAndServe(*addr, mux))
	default:
		flag.Usage()
		os.Exit(2)
	}
}
`)
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\nfunc register%d(s *mcp.Server) {\n", c/chunk)
		for i := c; i < min(c+chunk, n); i++ {
			fmt.Fprintf(&b, `	mcp.AddTool(s, &mcp.Tool{Name: "tool_%[1]s", Description: "Tool%[1]s looks up records of collection %[2]d of the synthetic API."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in api.Tool%[1]sIn) (*mcp.CallToolResult, api.Tool%[1]sOut, error) {
			out, err := api.Tool%[1]s(ctx, in)
			return nil, out, err
		})
`, fmt.Sprintf("%05d", i), i)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// mcpgoSource is mcp-go's server of catalog n (input and output validation on,
// as in the shared harness).
func mcpgoSource(mod string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `// Command mcpgo serves catalog %d with github.com/mark3labs/mcp-go.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	api %q
)

func main() {
	stdio := flag.Bool("stdio", false, "serve on stdin/stdout")
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp")
	flag.Parse()
	s := server.NewMCPServer("mcpgo", "1.0.0", server.WithToolCapabilities(false),
		server.WithInputSchemaValidation(), server.WithOutputSchemaValidation())
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo answers its arguments as they came."),
		mcp.WithInputSchema[api.EchoIO](), mcp.WithOutputSchema[api.EchoIO]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in api.EchoIO) (api.EchoIO, error) {
			return api.Echo(ctx, in)
		}))
`, n, mod+"/api")
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\tregister%d(s)\n", c/chunk)
	}
	b.WriteString(`	switch {
	case *stdio:
		if err := server.ServeStdio(s); err != nil {
			log.Print(err)
		}
	case *addr != "":
		mux := http.NewServeMux()
		mux.Handle("/mcp", server.NewStreamableHTTPServer(s))
		log.Fatal(http.ListenAndServe(*addr, mux))
	default:
		flag.Usage()
		os.Exit(2)
	}
}
`)
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\nfunc register%d(s *server.MCPServer) {\n", c/chunk)
		for i := c; i < min(c+chunk, n); i++ {
			fmt.Fprintf(&b, `	s.AddTool(mcp.NewTool("tool_%[1]s", mcp.WithDescription("Tool%[1]s looks up records of collection %[2]d of the synthetic API."),
		mcp.WithInputSchema[api.Tool%[1]sIn](), mcp.WithOutputSchema[api.Tool%[1]sOut]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, in api.Tool%[1]sIn) (api.Tool%[1]sOut, error) {
			return api.Tool%[1]s(ctx, in)
		}))
`, fmt.Sprintf("%05d", i), i)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// floorSource is the floor of catalog n: floor.go.tmpl (a hand-written server
// with encoding/json and no validation) plus the generated tool table.
func floorSource(mod string, n int) string {
	var b strings.Builder
	b.WriteString(strings.Replace(floorTemplate, "MODULE/api", mod+"/api", 1))
	b.WriteString("\nfunc init() {\n")
	b.WriteString("\tregister(\"echo\", \"Echo answers its arguments as they came.\", echoInput, echoInput, call(api.Echo))\n")
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\tregister%d()\n", c/chunk)
	}
	b.WriteString("}\n")
	for c := 0; c < n; c += chunk {
		fmt.Fprintf(&b, "\nfunc register%d() {\n", c/chunk)
		for i := c; i < min(c+chunk, n); i++ {
			id := fmt.Sprintf("%05d", i)
			fmt.Fprintf(&b, "\tregister(\"tool_%[1]s\", \"Tool%[1]s looks up records of collection %[2]d of the synthetic API.\", toolInput(%[2]d), toolOutput, call(api.Tool%[1]s))\n", id, i)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// bigcapSource is a main serving the mcpgen package over HTTP with
// MaxSessions and MaxSessionsPerPeer set to max (the sessions curve beyond
// the default bounds).
func bigcapSource(mod string, max int) string {
	return fmt.Sprintf(`// Command bigcap serves the mcpgen catalog over HTTP with MaxSessions = %[2]d.
package main

import (
	"context"
	"flag"
	"log"

	mg %[1]q
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp")
	flag.Bool("stdio", false, "unused")
	flag.Parse()
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "mg", Version: "dev"}, nil)
	mg.RegisterMCP(s)
	if err := s.ListenAndServe(context.Background(), *addr, &mcpruntime.HTTPOptions{MaxSessions: %[2]d, MaxSessionsPerPeer: %[2]d}); err != nil {
		log.Fatal(err)
	}
}
`, mod+"/mg", max)
}

// writeCatalog writes the sources of catalog n under dir (a module named mod
// rooted at root).
func writeCatalog(root, mod string, n int) (string, error) {
	dir := filepath.Join(root, fmt.Sprintf("cat%d", n))
	m := mod + "/" + filepath.Base(dir)
	files := map[string]string{
		"mg/tools.go":           toolsSource("mg", n, true),
		"api/tools.go":          toolsSource("api", n, false),
		"sdk/main.go":           sdkSource(m, n),
		"mcpgo/main.go":         mcpgoSource(m, n),
		"floor/main.go":         floorSource(m, n),
		"mg/cmd/bigcap/main.go": bigcapSource(m, 20000),
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
