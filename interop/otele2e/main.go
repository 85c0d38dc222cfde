// Command otele2e drives an mcpgen server built with -with otel through the
// official Go SDK client, each call under a client span whose traceparent it
// sends in params._meta, then checks through Jaeger's query API what the
// server exported (scripts/otel-e2e.sh runs it).
//
//	otele2e drive -server URL -calls FILE  calls, writing the client spans' ids to FILE
//	otele2e task -server URL -calls FILE   one 2026-07-28 call that becomes a task, appended to FILE
//	otele2e check -jaeger URL -calls FILE  asserts the server spans (after the servers stopped)
//	otele2e serve-everything [serve.Main's flags] examples/everything with the OpenTelemetry extension
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/examples/everything"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/otel"
	"github.com/mcpgen/mcpgen/runtime/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// A clientCall is one call the driver made under a client span.
type clientCall struct {
	Name    string `json:"name"` // what the check expects of it
	Tool    string `json:"tool"`
	TraceID string `json:"traceID"`
	SpanID  string `json:"spanID"`
	// Service and Revision are the server's name and the call's protocol
	// revision; empty: incidents and 2025-11-25.
	Service  string `json:"service,omitempty"`
	Revision string `json:"revision,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: otele2e drive|task|check|serve-everything [flags]")
		os.Exit(2)
	}
	if os.Args[1] == "serve-everything" {
		// examples/everything (its task tools) as mcpgen -with otel would
		// generate it: the extension configured by the OTEL_* variables.
		os.Args = append([]string{os.Args[0]}, os.Args[2:]...)
		s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "everything", Version: "dev"}, nil)
		everything.RegisterMCP(s)
		otel.Use(s)
		os.Exit(serve.Main(s))
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	server := fs.String("server", "", "the MCP endpoint (drive)")
	jaeger := fs.String("jaeger", "", "Jaeger's query base URL (check)")
	file := fs.String("calls", "", "the file of the calls' span ids")
	_ = fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "drive":
		err = drive(*server, *file)
	case "task":
		err = driveTask(*server, *file)
	case "check":
		err = check(*jaeger, *file)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "otele2e:", err)
		os.Exit(1)
	}
}

// drive makes the calls.
func drive(server, file string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	exp, err := otlptracehttp.New(ctx) // OTEL_EXPORTER_OTLP_ENDPOINT
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "otele2e-client"))))
	defer tp.Shutdown(context.Background())
	tracer := tp.Tracer("otele2e")

	c := mcp.NewClient(&mcp.Implementation{Name: "otele2e", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		},
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: server, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	var calls []clientCall
	call := func(name, tool string, args map[string]any) error {
		cctx, span := tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindClient))
		defer span.End()
		carrier := propagation.MapCarrier{}
		propagation.TraceContext{}.Inject(cctx, carrier)
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args,
			Meta: mcp.Meta{"traceparent": carrier["traceparent"]}})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if res.IsError {
			raw, _ := json.Marshal(res)
			return fmt.Errorf("%s: isError: %s", name, raw)
		}
		sc := span.SpanContext()
		calls = append(calls, clientCall{Name: name, Tool: tool, TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String()})
		return nil
	}
	key := fmt.Sprintf("otele2e-%d", time.Now().UnixNano())
	ticket := map[string]any{"title": "Payments timeouts", "severity": "P1",
		"evidence_ids": []string{"status-payments-0001"}, "idempotency_key": key}
	if err := errors.Join(
		call("status", "get_service_status", map[string]any{"service": "payments", "window_minutes": 15}),
		call("ticket", "create_incident_ticket", ticket),
		call("replay", "create_incident_ticket", ticket),
	); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(calls, "", "  ")
	return os.WriteFile(file, data, 0o644)
}

// jaegerSpan is a span as Jaeger's /api/traces returns it.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	ProcessID string `json:"processID"`
}

func (s *jaegerSpan) tag(key string) (string, bool) {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value), true
		}
	}
	return "", false
}

func (s *jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// trace fetches trace id's spans, waiting for the server's.
func fetch(base, id string) ([]jaegerSpan, map[string]string, error) {
	var last error
	for range 50 {
		spans, procs, err := fetchOnce(base, id)
		if err == nil && slices.ContainsFunc(spans, func(s jaegerSpan) bool { return procs[s.ProcessID] != "otele2e-client" }) {
			return spans, procs, nil
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	return nil, nil, fmt.Errorf("trace %s: no server spans in Jaeger (last error: %v)", id, last)
}

func fetchOnce(base, id string) ([]jaegerSpan, map[string]string, error) {
	resp, err := http.Get(base + "/api/traces/" + id)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, nil, fmt.Errorf("%s: %s", resp.Status, body)
	}
	var r struct {
		Data []struct {
			Spans     []jaegerSpan `json:"spans"`
			Processes map[string]struct {
				ServiceName string `json:"serviceName"`
			} `json:"processes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Data) == 0 {
		return nil, nil, fmt.Errorf("no trace (%v)", err)
	}
	procs := map[string]string{}
	for k, p := range r.Data[0].Processes {
		procs[k] = p.ServiceName
	}
	return r.Data[0].Spans, procs, nil
}

// check asserts the server spans of the calls in file.
func check(base, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var calls []clientCall
	if err := json.Unmarshal(data, &calls); err != nil {
		return err
	}
	var problems []string
	bad := func(c clientCall, format string, args ...any) {
		problems = append(problems, c.Name+": "+fmt.Sprintf(format, args...))
	}
	for _, c := range calls {
		spans, procs, err := fetch(base, c.TraceID)
		if err != nil {
			bad(c, "%v", err)
			continue
		}
		var server *jaegerSpan
		children := map[string]bool{}
		var handler *jaegerSpan
		for i := range spans {
			s := &spans[i]
			if s.parent() == c.SpanID && procs[s.ProcessID] != "otele2e-client" {
				server = s
			}
		}
		if server == nil {
			bad(c, "no server span is a child of the client span %s", c.SpanID)
			continue
		}
		for _, s := range spans {
			if s.parent() == server.SpanID {
				children[s.OperationName] = true
				if s.OperationName == "handler" {
					handler = &s
				}
			}
		}
		if want := "tools/call " + c.Tool; server.OperationName != want {
			bad(c, "server span named %q, want %q", server.OperationName, want)
		}
		service, revision := cmp.Or(c.Service, "incidents"), cmp.Or(c.Revision, "2025-11-25")
		if svc := procs[server.ProcessID]; svc != service {
			bad(c, "server span's service %q, want %s (the server's name)", svc, service)
		}
		for key, want := range map[string]string{"span.kind": "server", "mcp.method.name": "tools/call",
			"gen_ai.tool.name": c.Tool, "gen_ai.operation.name": "execute_tool", "mcp.protocol.version": revision,
			"network.transport": "tcp", "jsonrpc.protocol.version": "2.0"} {
			if got, _ := server.tag(key); got != want {
				bad(c, "server span's %s = %q, want %q", key, got, want)
			}
		}
		ids := []string{"jsonrpc.request.id"}
		if revision != "2026-07-28" { // 2026-07-28 has no sessions
			ids = append(ids, "mcp.session.id")
		}
		for _, key := range ids {
			if _, ok := server.tag(key); !ok {
				bad(c, "server span has no %s", key)
			}
		}
		var want []string // validate, authorize and a handler have spans only when slow (100 µs), refused or a task
		idem := ""
		switch c.Name {
		case "ticket":
			want, idem = []string{"consent", "claim", "handler", "receipt"}, "fresh"
		case "task":
			// The handler outlives the request (answered with the
			// CreateTaskResult): its span, under the server span, says so.
			want = []string{"handler"}
			if handler != nil {
				if got, _ := handler.tag("mcpgen.task"); got != "true" {
					bad(c, "the task's handler span has mcpgen.task = %q, want true", got)
				}
			}
		case "replay":
			// The ledger answers at its replay check or at the claim: no handler.
			want, idem = nil, "replayed"
			if children["handler"] {
				bad(c, "a replay ran the handler")
			}
			if !children["replay"] && !children["claim"] {
				bad(c, "a replay has neither a replay nor a claim span (children: %v)", keys(children))
			}
		}
		for _, w := range want {
			if !children[w] {
				bad(c, "no %q child span (children: %v)", w, keys(children))
			}
		}
		if got, _ := server.tag("mcpgen.idempotency.outcome"); got != idem {
			bad(c, "mcpgen.idempotency.outcome = %q, want %q", got, idem)
		}
		fmt.Printf("otele2e: %s: trace %s: server span %q child of client span %s; children %v\n",
			c.Name, c.TraceID, server.OperationName, c.SpanID, keys(children))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func keys(m map[string]bool) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// driveTask calls examples/everything's slow_compute in 2026-07-28 (plain
// HTTP: the Go SDK has no tasks) under a client span, with the tasks
// extension declared: the call outlives the task threshold and is answered
// with a CreateTaskResult; it polls tasks/get until the task completed, so
// the handler's span has ended before the server stops, and appends the call
// to file.
func driveTask(server, file string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "otele2e-client"))))
	defer tp.Shutdown(context.Background())
	cctx, span := tp.Tracer("otele2e").Start(ctx, "tools/call slow_compute", trace.WithSpanKind(trace.SpanKindClient))
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(cctx, carrier)
	meta := map[string]any{"traceparent": carrier["traceparent"],
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "otele2e", "version": "1.0.0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	var created struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	err = post(cctx, server, "tools/call", "slow_compute", map[string]any{"name": "slow_compute",
		"arguments": map[string]any{"seconds": 1, "label": "otele2e"}, "_meta": meta}, &created)
	span.End()
	if err != nil {
		return fmt.Errorf("task: %w", err)
	}
	if created.ResultType != "task" || created.TaskID == "" {
		return fmt.Errorf("task: slow_compute was not answered with a task: %+v", created)
	}
	delete(meta, "traceparent")
	for {
		var got struct {
			Status string `json:"status"`
		}
		if err := post(ctx, server, "tasks/get", created.TaskID, map[string]any{"taskId": created.TaskID, "_meta": meta}, &got); err != nil {
			return fmt.Errorf("tasks/get: %w", err)
		}
		if got.Status == "completed" {
			break
		}
		if got.Status != "working" {
			return fmt.Errorf("task %s: status %q, want working, then completed", created.TaskID, got.Status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("task %s did not complete: %w", created.TaskID, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	var calls []clientCall
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, &calls); err != nil {
			return err
		}
	}
	sc := span.SpanContext()
	calls = append(calls, clientCall{Name: "task", Tool: "slow_compute", TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(),
		Service: "everything", Revision: "2026-07-28"})
	data, _ := json.MarshalIndent(calls, "", "  ")
	fmt.Printf("otele2e: task %s completed\n", created.TaskID)
	return os.WriteFile(file, data, 0o644)
}

// post sends one 2026-07-28 request over Streamable HTTP and decodes its
// result (a JSON body or the last message of an event stream) into out.
func post(ctx context.Context, server, method, name string, params map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, server, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, raw)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last []byte
		for line := range strings.Lines(string(raw)) {
			if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data:"); ok && strings.Contains(data, `"id"`) {
				last = []byte(strings.TrimSpace(data))
			}
		}
		raw = last
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fmt.Errorf("reply %q: %w", raw, err)
	}
	if msg.Error != nil {
		return fmt.Errorf("error %d: %s", msg.Error.Code, msg.Error.Message)
	}
	return json.Unmarshal(msg.Result, out)
}
