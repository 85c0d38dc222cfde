package main

// floorTemplate is the curves' floor server: the practical cost floor of an
// MCP server in Go with encoding/json, for any catalog (after the shared
// harness's floorserver, which serves only its two tools). It decodes the
// envelope and the arguments into structs (unknown argument names refused),
// validates nothing else, and pages tools/list by 100 as mcpgen does.
// 2026-07-28 requests (with _meta) and the 2025-11-25 handshake both work;
// over HTTP, initialize mints an Mcp-Session-Id kept in a map with no bound.
const floorTemplate = `// Command floor serves a synthetic catalog with encoding/json and no validation.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strconv"
	"sync"

	api "MODULE/api"
)

const pageSize = 100

type tool struct {
	Name         string          ` + "`json:\"name\"`" + `
	Description  string          ` + "`json:\"description\"`" + `
	InputSchema  json.RawMessage ` + "`json:\"inputSchema\"`" + `
	OutputSchema json.RawMessage ` + "`json:\"outputSchema\"`" + `
}

var (
	tools    []tool
	handlers = map[string]func(json.RawMessage) (any, error){}
	meta     = map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "floor", "version": "1.0.0"}}
)

func register(name, desc string, in, out json.RawMessage, h func(json.RawMessage) (any, error)) {
	tools = append(tools, tool{name, desc, in, out})
	handlers[name] = h
}

func call[T, U any](f func(context.Context, T) (U, error)) func(json.RawMessage) (any, error) {
	return func(args json.RawMessage) (any, error) {
		var in T
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		d := json.NewDecoder(bytes.NewReader(args))
		d.DisallowUnknownFields()
		if err := d.Decode(&in); err != nil {
			return nil, err
		}
		return f(context.Background(), in)
	}
}

var echoInput = json.RawMessage(` + "`" + `{"type":"object","properties":{"text":{"type":"string","description":"Text is any string."},"items":{"type":"array","description":"Items are any objects.","items":{"type":"object","properties":{"id":{"type":"integer","description":"ID numbers the item."},"name":{"type":"string","description":"Name names it."},"note":{"type":"string","description":"Note is free text."}},"required":["id","name","note"],"additionalProperties":false}}},"required":["text","items"],"additionalProperties":false}` + "`" + `)

var toolOutput = json.RawMessage(` + "`" + `{"type":"object","properties":{"hits":{"type":"integer","description":"Hits is how many records matched."},"echo":{"type":"string","description":"Echo repeats the query."}},"required":["hits","echo"],"additionalProperties":false}` + "`" + `)

func toolInput(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(` + "`" + `{"type":"object","properties":{"query":{"type":"string","description":"Query is what to look for in collection %d.","minLength":1},"limit":{"type":"integer","description":"Limit caps the hits (1..100).","minimum":1,"maximum":100}},"required":["query"],"additionalProperties":false}` + "`" + `, i))
}

type request struct {
	ID     json.RawMessage ` + "`json:\"id\"`" + `
	Method string          ` + "`json:\"method\"`" + `
	Params struct {
		Meta      json.RawMessage ` + "`json:\"_meta\"`" + `
		Name      string          ` + "`json:\"name\"`" + `
		Cursor    string          ` + "`json:\"cursor\"`" + `
		Arguments json.RawMessage ` + "`json:\"arguments\"`" + `
	} ` + "`json:\"params\"`" + `
}

type rpcError struct {
	Code    int    ` + "`json:\"code\"`" + `
	Message string ` + "`json:\"message\"`" + `
}

type response struct {
	JSONRPC string          ` + "`json:\"jsonrpc\"`" + `
	ID      json.RawMessage ` + "`json:\"id\"`" + `
	Result  any             ` + "`json:\"result,omitempty\"`" + `
	Error   *rpcError       ` + "`json:\"error,omitempty\"`" + `
}

type text struct {
	Type string ` + "`json:\"type\"`" + `
	Text string ` + "`json:\"text\"`" + `
}

type callResult struct {
	ResultType        string          ` + "`json:\"resultType,omitempty\"`" + `
	Content           []text          ` + "`json:\"content\"`" + `
	StructuredContent json.RawMessage ` + "`json:\"structuredContent,omitempty\"`" + `
	IsError           bool            ` + "`json:\"isError\"`" + `
	Meta              any             ` + "`json:\"_meta,omitempty\"`" + `
}

type listResult struct {
	ResultType string ` + "`json:\"resultType,omitempty\"`" + `
	Tools      []tool ` + "`json:\"tools\"`" + `
	NextCursor string ` + "`json:\"nextCursor,omitempty\"`" + `
	Meta       any    ` + "`json:\"_meta,omitempty\"`" + `
}

func dispatch(r *request) (any, *rpcError) {
	modern := len(r.Params.Meta) > 0 && r.Method != "initialize"
	switch r.Method {
	case "initialize":
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]string{"name": "floor", "version": "1.0.0"}}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		start := 0
		if r.Params.Cursor != "" {
			n, err := strconv.Atoi(r.Params.Cursor)
			if err != nil || n < 0 || n > len(tools) {
				return nil, &rpcError{-32602, "bad cursor"}
			}
			start = n
		}
		end := min(start+pageSize, len(tools))
		res := &listResult{Tools: tools[start:end]}
		if end < len(tools) {
			res.NextCursor = strconv.Itoa(end)
		}
		if modern {
			res.ResultType, res.Meta = "complete", meta
		}
		return res, nil
	case "tools/call":
		h := handlers[r.Params.Name]
		if h == nil {
			return nil, &rpcError{-32602, "unknown tool " + r.Params.Name}
		}
		res := &callResult{}
		if modern {
			res.ResultType, res.Meta = "complete", meta
		}
		out, err := h(r.Params.Arguments)
		if err != nil {
			res.IsError, res.Content = true, []text{{"text", err.Error()}}
			return res, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, &rpcError{-32603, err.Error()}
		}
		res.Content, res.StructuredContent = []text{{"text", string(b)}}, b
		return res, nil
	}
	return nil, &rpcError{-32601, "method not found: " + r.Method}
}

func handle(line []byte) []byte {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		b, _ := json.Marshal(response{JSONRPC: "2.0", Error: &rpcError{-32700, "parse error"}})
		return b
	}
	if r.ID == nil {
		return nil
	}
	res, e := dispatch(&r)
	b, err := json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Result: res, Error: e})
	if err != nil {
		b, _ = json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Error: &rpcError{-32603, err.Error()}})
	}
	return b
}

func serveStdio() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if b := handle(line); b != nil {
				out.Write(b)
				out.WriteByte('\n')
			}
		}
		if err != nil {
			out.Flush()
			return
		}
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

var sessions sync.Map

func serveHTTP(w http.ResponseWriter, hr *http.Request) {
	if hr.Method != http.MethodPost {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(hr.Body, 4<<20))
	if err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var r request
	if err := json.Unmarshal(body, &r); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		b, _ := json.Marshal(response{JSONRPC: "2.0", Error: &rpcError{-32700, "parse error"}})
		w.Write(b)
		return
	}
	if len(r.Params.Meta) == 0 || r.Method == "initialize" {
		if r.Method == "initialize" {
			sid := rand.Text()
			sessions.Store(sid, true)
			w.Header().Set("Mcp-Session-Id", sid)
		} else if _, ok := sessions.Load(hr.Header.Get("Mcp-Session-Id")); !ok {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	if r.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	res, e := dispatch(&r)
	b, _ := json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Result: res, Error: e})
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func main() {
	stdio := flag.Bool("stdio", false, "serve on stdin/stdout")
	addr := flag.String("http", "", "serve Streamable HTTP at /mcp")
	flag.Parse()
	switch {
	case *stdio:
		serveStdio()
	case *addr != "":
		mux := http.NewServeMux()
		mux.HandleFunc("/mcp", serveHTTP)
		log.Fatal(http.ListenAndServe(*addr, mux))
	default:
		flag.Usage()
		os.Exit(2)
	}
}
`
