#!/usr/bin/env bash
# OpenTelemetry end to end with a real Jaeger: Jaeger v2 (cmd/jaeger v1.75.0, in-memory
# storage, OTLP receiver and query API on loopback) receives the spans of
# examples/incidents (generated -with otel) and of a client, the official Go SDK
# (interop/otele2e), that calls it over Streamable HTTP under client spans with their
# traceparent in params._meta: a status read, a ticket (consent round, idempotency claim)
# and the same ticket again (an idempotent replay); then a task (examples/everything's
# slow_compute, served with the extension by otele2e serve-everything, called in
# 2026-07-28 over plain HTTP: the Go SDK has no tasks). The server is stopped with SIGTERM
# before Jaeger is asked: its spans arrive only through the shutdown flush (the batch
# delay is an hour). interop/otele2e check then asserts through /api/traces that each
# server span is the child of its client span, with the MCP semantic conventions' name
# and attributes and the pipeline's stage spans (the task's handler span under its
# server span, mcpgen.task=true). Last, one 2026-07-28 call over -stdio
# with a traceparent in _meta: its span must reach Jaeger when stdin ends; and one
# 2025-11-25 call over -stdio, whose span has the session's negotiated revision.
#
# usage: scripts/otel-e2e.sh
# env:   MCPGEN_TOOLS_HOME  cache of the Jaeger binary (default ~/.cache/mcpgen-tools)
# Jaeger is built once from scripts/jaeger/go.mod (a tools module pinning v1.75.0) and
# reused while that file is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
prog=otel-e2e
. scripts/lib.sh

# --- Jaeger, built once ---
jaeger=$(cached_tool jaeger scripts/jaeger github.com/jaegertracing/jaeger/cmd/jaeger)

workdir
otlp=$(freeport) otlpgrpc=$(freeport) query=$(freeport) queryg=$(freeport) health=$(freeport) mcp=$(freeport)

# --- Jaeger in memory, everything on loopback ---
cat >"$work/jaeger.yaml" <<YAML
service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:$health
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:$query
    grpc:
      endpoint: 127.0.0.1:$queryg
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:$otlpgrpc
      http:
        endpoint: 127.0.0.1:$otlp
processors:
  batch: {}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
YAML
# Jaeger traces itself to localhost:4317 unless told not to.
OTEL_TRACES_EXPORTER=none "$jaeger" --config "$work/jaeger.yaml" >"$work/jaeger.log" 2>&1 &
pids+=($!)
waitfor "http://127.0.0.1:$query/api/services" 60

# serve_and_drive LOG PORT DRIVE SERVER...: runs SERVER (with the OTLP settings:
# no metrics, a batch delay of an hour) in the background with its output in
# LOG, waits for http://127.0.0.1:PORT/mcp, runs `otele2e DRIVE` against it,
# then stops it with SIGTERM: it drains, then flushes its spans, and must exit 0.
serve_and_drive() {
  local log=$1 port=$2 drive=$3 server
  shift 3
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$otlp OTEL_METRICS_EXPORTER=none OTEL_BSP_SCHEDULE_DELAY=3600000 \
    "$@" >"$log" 2>&1 &
  server=$!
  pids+=("$server")
  for _ in $(seq 1 150); do curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break; sleep 0.2; done
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$otlp "$work/otele2e" "$drive" -server "http://127.0.0.1:$port/mcp" -calls "$work/calls.json" ||
    { tail -30 "$log" >&2; die "$drive failed"; }
  kill -TERM "$server"
  wait "$server" || { tail -30 "$log" >&2; die "$1 did not exit 0 after SIGTERM"; }
}

# --- the incidents server, generated -with otel ---
go build -o "$work/incidents-server" ./examples/incidents/cmd/incidents-server
(cd interop && go build -o "$work/otele2e" ./otele2e)
INCIDENTS_DELAY=2ms MCP_ANONYMOUS_SCOPES="incident:create" INCIDENTS_JOURNAL="$work/journal" \
  serve_and_drive "$work/server.log" "$mcp" drive "$work/incidents-server" -http "127.0.0.1:$mcp" -audit
grep -q '"trace_id":"' "$work/server.log" || { tail -5 "$work/server.log" >&2; die "no trace_id in the audit records"; }

# --- a task: examples/everything's slow_compute (task=optional), served with the
# extension by otele2e serve-everything, called in 2026-07-28 with the tasks
# extension under a client span: answered with a task after the 100 ms threshold,
# polled until it completed; SIGTERM flushes the handler's span.
evport=$(freeport)
serve_and_drive "$work/everything.log" "$evport" task "$work/otele2e" serve-everything -http "127.0.0.1:$evport"

"$work/otele2e" check -jaeger "http://127.0.0.1:$query" -calls "$work/calls.json" \
  || { echo "--- jaeger log" >&2; tail -30 "$work/jaeger.log" >&2; die "check failed"; }
# stdio_case REVISION TRACE LINE...: serve LINE... to the incidents server over
# stdio (stdin's end flushes the spans), then check in Jaeger that the call's
# server span is the child of TRACE's span 00f067aa0ba902b7 with REVISION.
stdio_case() {
  local rev=$1 trace=$2
  shift 2
  printf '%s\n' "$@" |
    OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$otlp OTEL_METRICS_EXPORTER=none OTEL_BSP_SCHEDULE_DELAY=3600000 \
    "$work/incidents-server" -stdio >"$work/stdio.out" 2>"$work/stdio.log" || die "stdio server failed: $(tail -5 "$work/stdio.log")"
  for _ in $(seq 1 50); do
    curl -fsS "http://127.0.0.1:$query/api/traces/$trace" >"$work/stdio-trace.json" 2>/dev/null && break; sleep 0.2
  done
  python3 - "$work/stdio-trace.json" "$rev" <<'PY' || die "stdio $rev: the server span is not in Jaeger as documented"
import json, sys
spans = json.load(open(sys.argv[1]))["data"][0]["spans"]
s = [x for x in spans if x["operationName"] == "tools/call get_service_status"][0]
tags = {t["key"]: t["value"] for t in s["tags"]}
assert [r["spanID"] for r in s["references"]] == ["00f067aa0ba902b7"], s["references"]
for k, v in {"mcp.protocol.version": sys.argv[2], "network.transport": "pipe", "jsonrpc.request.id": "1", "span.kind": "server"}.items():
    assert tags.get(k) == v, (k, tags.get(k))
print(f"otele2e: stdio {sys.argv[2]}: server span child of the traceparent's span, with the revision, over a pipe")
PY
}
call='"method":"tools/call","params":{"name":"get_service_status","arguments":{"service":"payments","window_minutes":5}'
# --- stdio, 2026-07-28: the traceparent and the revision in _meta ---
trace=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
stdio_case 2026-07-28 "$trace" \
  '{"jsonrpc":"2.0","id":1,'"$call"',"_meta":{"traceparent":"00-'"$trace"'-00f067aa0ba902b7-01","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"otel-e2e","version":"1"}}}}'
# --- stdio, 2025-11-25: the call carries no revision; its span has the negotiated one ---
trace=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
stdio_case 2025-11-25 "$trace" \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"otel-e2e","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":1,'"$call"',"_meta":{"traceparent":"00-'"$trace"'-00f067aa0ba902b7-01"}}}'
echo "otel-e2e: ok"
