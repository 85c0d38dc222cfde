#!/usr/bin/env bash
# Three replicas of the everything server behind nginx round-robin on loopback,
# sharing one requestState key (MCP_STATE_KEY) and one Redis (-store: change
# notifications fan out across replicas); 2025-11-25 sessions pinned to the
# replica that minted them (MCP_SESSION_PREFIX=rN-, nginx map on
# Mcp-Session-Id). Runs the official conformance suite through nginx for both
# revisions (every scenario in scripts/conformance-required.txt must pass),
# then checks that the rounds of one 2026-07-28 MRTR call land on more than
# one replica and still complete, and that listeners on every replica (three
# listen streams and a 2025-11-25 GET stream) each hear exactly one
# resources/updated caused by a call served by another replica. The replicas
# share one Redis (-store), so a task created through one is polled, answered
# and cancelled through the others, and a listen stream on a third replica
# hears its status change; last, the replica running a task is killed
# (SIGKILL) and the task must turn failed once its lease (MCP_TASK_LEASE=2s
# here) lapses: the script prints how long that took.
#
# usage: scripts/replicas.sh        (installs nginx and redis-server with apt-get when missing)
# env: CONFORMANCE (runner path; default ../shared/tools/conformance)
#      MCPGEN_TEST_REDIS (a Redis to share; default: a redis-server of its own)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
runner=${CONFORMANCE:-$repo/../shared/tools/conformance}
required=$repo/scripts/conformance-required.txt
[ -x "$runner" ] || { echo "replicas.sh: runner $runner not found" >&2; exit 2; }
need=()
command -v nginx >/dev/null || need+=(nginx)
[ -n "${MCPGEN_TEST_REDIS:-}" ] || command -v redis-server >/dev/null || need+=(redis-server)
if [ ${#need[@]} -gt 0 ]; then
  echo "replicas.sh: installing ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-replicas-XXXXXX")
mkdir -p "$work"/tmp-{body,proxy,fcgi,uwsgi,scgi}
pids=()
rpids=()
redis_pid=
cleanup() {
  for p in "${pids[@]}" $redis_pid; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}" $redis_pid; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

store=${MCPGEN_TEST_REDIS:-}
if [ -z "$store" ]; then
  rport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no --daemonize no </dev/null >"$work/redis.log" 2>&1 &
  redis_pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
  store=redis://127.0.0.1:$rport/0
fi

(cd "$repo" && go build -o "$work/everything-server" ./examples/everything/cmd/everything-server)
export MCP_STATE_KEY="replicas-shared-key-$(date +%s)-$$"
export MCP_TASK_LEASE=2s
ports=()
for n in 1 2 3; do
  MCP_SESSION_PREFIX="r$n-" "$work/everything-server" -http 127.0.0.1:0 -store "$store" 2>"$work/r$n.log" &
  rpids+=($!)
  pids+=($!)
  port=
  for _ in $(seq 1 100); do
    port=$(grep -o 'url=http://127.0.0.1:[0-9]*' "$work/r$n.log" | head -n1 | sed 's/.*://' || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$work/r$n.log" >&2; echo "replicas.sh: replica $n did not start" >&2; exit 1; }
  ports+=("$port")
done
front=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sed -e "s#@WORK@#$work#g" -e "s#@PORT@#$front#g" -e "s#@P1@#${ports[0]}#g" -e "s#@P2@#${ports[1]}#g" -e "s#@P3@#${ports[2]}#g" \
  "$repo/scripts/replicas-nginx.conf.tmpl" >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" &
pids+=($!)
url=http://127.0.0.1:$front/mcp
for _ in $(seq 1 100); do
  curl -s -o /dev/null "$url" && break
  sleep 0.1
done
echo "replicas at ports ${ports[*]} on $store behind nginx at $url"

status=0
for rev in 2025-11-25 2026-07-28; do
  echo "=== conformance $rev through nginx"
  "$runner" "$url" "$rev" | tee "$work/$rev.out" || true
done
while read -r rev scenario _; do
  case $rev in '' | '#'*) continue ;; esac
  if ! grep -Eq "^PASS $scenario( |\$)" "$work/$rev.out" 2>/dev/null; then
    echo "REQUIRED FAIL: $rev $scenario" >&2
    status=1
  fi
done <"$required"

# Every legacy session stayed on the replica whose tag it carries.
for n in 1 2 3; do
  if grep "\"r$n-" "$work/nginx-access.log" | grep -v "^127.0.0.1:${ports[$((n-1))]} " | grep -q .; then
    echo "FAIL: a session tagged r$n- reached another replica" >&2
    status=1
  fi
done

# MRTR: the rounds of one call, each a new POST, go round-robin across replicas.
python3 - "$url" "$work/nginx-access.log" <<'PY' || status=1
import json, sys, urllib.request
url, log = sys.argv[1], sys.argv[2]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "replicas", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}}}
def post(params, i):
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": params["name"]})
    return json.loads(urllib.request.urlopen(req).read())
before = len(open(log).readlines())
params = {"name": "test_input_required_result_multi_round", "arguments": {}, "_meta": meta}
rounds = 0
for i in range(1, 12):
    res = post(params, i)["result"]
    rounds += 1
    if res.get("resultType") != "input_required":
        break
    answers = {}
    for key, q in res["inputRequests"].items():
        if q["method"] == "elicitation/create":
            props = q["params"].get("requestedSchema", {}).get("properties", {})
            content = {k: ("x" if v.get("type") == "string" else True if v.get("type") == "boolean" else 1) for k, v in props.items()}
            answers[key] = {"action": "accept", "content": content}
        elif q["method"] == "sampling/createMessage":
            answers[key] = {"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}
        else:
            answers[key] = {"roots": []}
    params = {**params, "inputResponses": answers, "requestState": res.get("requestState")}
else:
    sys.exit("MRTR: no complete result after 11 rounds")
if res.get("isError"):
    sys.exit("MRTR: the call ended in an error: %s" % res)
ups = [l.split()[0] for l in open(log).readlines()[before:]]
print("MRTR: %d rounds served by %s" % (rounds, " ".join(ups)))
if len(set(ups)) < 2:
    sys.exit("MRTR: every round reached the same replica")
PY

# Fan-out: listen streams opened through nginx (round-robin: one per replica)
# and a 2025-11-25 session's GET stream each hear exactly one resources/updated
# when test_update_watched_resource runs on whichever replica nginx picks; the
# access log then shows listeners on replicas other than the caller's.
python3 - "$url" "$work/nginx-access.log" "${ports[@]}" <<'PY' || status=1
import json, queue, sys, threading, time, urllib.request
url, log, ports = sys.argv[1], sys.argv[2], sys.argv[3:]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "replicas-fanout", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}}
WATCHED = "test://watched-resource"
def request(body, headers, method="POST"):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    data = json.dumps(body).encode() if body is not None else None
    return urllib.request.urlopen(urllib.request.Request(url, data, h, method=method), timeout=30)
def reader(resp):
    q = queue.Queue()
    def run():
        try:
            for raw in resp:
                line = raw.decode().strip()
                if line.startswith("data: "):
                    line = line[6:]
                if line.startswith("{"):  # SSE data, or a plain JSON reply
                    q.put(json.loads(line))
        except Exception:
            pass
        q.put(None)
    threading.Thread(target=run, daemon=True).start()
    return q
def first(q, what):
    try:
        m = q.get(timeout=10)
    except queue.Empty:
        sys.exit("fan-out: no %s within 10s" % what)
    if m is None:
        sys.exit("fan-out: stream ended before %s" % what)
    return m
modern = lambda method, name=None: {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, **({"Mcp-Name": name} if name else {})}
before = len(open(log).readlines())
streams = []
for i in range(3):
    resp = request({"jsonrpc": "2.0", "id": "fan-%d" % i, "method": "subscriptions/listen",
                    "params": {"_meta": meta, "notifications": {"resourceSubscriptions": [WATCHED]}}}, modern("subscriptions/listen"))
    q = reader(resp)
    ack = first(q, "acknowledgement")
    if ack.get("method") != "notifications/subscriptions/acknowledged" or WATCHED not in json.dumps(ack):
        sys.exit("fan-out: listen %d: first message %s" % (i, ack))
    streams.append(("listen fan-%d" % i, resp, q))
init = request({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
               "capabilities": {}, "clientInfo": {"name": "replicas-fanout", "version": "1"}}}, {})
sid = init.headers["Mcp-Session-Id"]
first(reader(init), "initialize result")
legacy = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
request({"jsonrpc": "2.0", "method": "notifications/initialized"}, legacy).read()
sub = request({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": WATCHED}}, legacy)
if first(reader(sub), "resources/subscribe result").get("result") != {}:
    sys.exit("fan-out: resources/subscribe failed")
get = request(None, {**legacy, "Accept": "text/event-stream"}, method="GET")
streams.append(("session %s GET stream" % sid, get, reader(get)))
calls = len(open(log).readlines())
res = json.loads(request({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "test_update_watched_resource", "_meta": meta}},
                         modern("tools/call", "test_update_watched_resource")).read())
if "result" not in res or res["result"].get("isError"):
    sys.exit("fan-out: test_update_watched_resource: %s" % res)
caller = None
for _ in range(50):  # nginx logs the call once its response is out
    served = [l.split()[0] for l in open(log).readlines()[calls:] if '"tools/call"' in l]
    if served:
        caller = served[-1]
        break
    time.sleep(0.1)
if caller is None:
    sys.exit("fan-out: the call is not in nginx's access log")
for name, _, q in streams:
    m = first(q, "resources/updated on the " + name)
    if m.get("method") != "notifications/resources/updated" or m["params"].get("uri") != WATCHED:
        sys.exit("fan-out: %s got %s" % (name, m))
time.sleep(1)  # a repeat would have arrived by now
for name, _, q in streams:
    while not q.empty():
        m = q.get()
        if m is not None:
            sys.exit("fan-out: %s got a second message %s" % (name, m))
for _, resp, _ in streams:
    resp.close()
listeners = []
for _ in range(50):  # nginx logs a stream when it ends
    listeners = [l.split()[0] for l in open(log).readlines()[before:] if '"subscriptions/listen"' in l]
    if len(listeners) == 3:
        break
    time.sleep(0.1)
session_port = ports[int(sid[1]) - 1]
listeners.append("127.0.0.1:" + session_port)
others = [u for u in listeners if u != caller]
print("fan-out: update served by %s; listeners on %s each heard it once" % (caller, " ".join(listeners)))
if len(listeners) != 4 or not others:
    sys.exit("fan-out: no listener on a replica other than the caller's")
PY

for n in 1 2 3; do
  kill -0 "${rpids[$((n-1))]}" 2>/dev/null || { echo "FAIL: replica $n died" >&2; status=1; }
done

# Tasks across replicas, then a replica killed mid-task.
python3 - "$url" "$work/nginx-access.log" "${ports[*]}" "${rpids[*]}" <<'PY' || status=1
import json, os, queue, signal, sys, threading, time, urllib.error, urllib.request
url, log, ports, rpids = sys.argv[1], sys.argv[2], sys.argv[3].split(), [int(p) for p in sys.argv[4].split()]
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}}
def rpc(method, params, at=None):
    params = {**params, "_meta": meta}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(at or url, body, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Mcp-Name": params.get("taskId", params.get("name", ""))})
    raw = urllib.request.urlopen(req).read().decode()
    if raw.startswith("event:") or raw.startswith("id:") or "\ndata: " in raw:
        raw = [l[6:] for l in raw.splitlines() if l.startswith("data: ")][-1]
    msg = json.loads(raw)
    if "error" in msg:
        sys.exit("tasks: %s %s: %s" % (method, params, msg["error"]))
    return msg["result"]
def poll(tid, until, limit=15):
    start, t, gateway = time.time(), None, 0
    while time.time() - start < limit:
        try:
            t = rpc("tasks/get", {"taskId": tid})
        except urllib.error.HTTPError as e:
            # Right after a replica is killed, nginx may hand a request to a
            # kept-alive connection of the dead one and answer 502 (it does not
            # retry a POST once sent). tasks/get is a read: poll again.
            if e.code != 502 or gateway == 5:
                raise
            gateway += 1
            time.sleep(0.1)
            continue
        if until(t):
            return t
        time.sleep(0.05)
    sys.exit("tasks: task %s stuck: %s" % (tid, t))
ended = lambda t: t["status"] in ("completed", "failed", "cancelled")
before = len(open(log).readlines())
# Answered through other replicas.
tid = rpc("tools/call", {"name": "confirm_delete", "arguments": {"filename": "replicas.txt"}})["taskId"]
t = poll(tid, lambda t: t["status"] == "input_required")
rpc("tasks/update", {"taskId": tid, "inputResponses": {k: {"action": "accept", "content": {"confirm": True}} for k in t["inputRequests"]}})
t = poll(tid, ended)
if t["status"] != "completed" or "Deleted replicas.txt." not in json.dumps(t["result"]):
    sys.exit("tasks: answered task: %s" % t)
# Created on replica 2, listened to on replica 3, cancelled through replica 1:
# the listener hears the status change (fan-out), and the task reads
# cancelled on every replica.
direct = lambda i: "http://127.0.0.1:%s/mcp" % ports[i]
tid = rpc("tools/call", {"name": "slow_compute", "arguments": {"seconds": 60, "label": "cancel"}}, direct(1))["taskId"]
body = json.dumps({"jsonrpc": "2.0", "id": "task-listen", "method": "subscriptions/listen",
                   "params": {"_meta": meta, "notifications": {"taskIds": [tid]}}}).encode()
listen = urllib.request.urlopen(urllib.request.Request(direct(2), body, {"Content-Type": "application/json",
    "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}), timeout=20)
heard = queue.Queue()
def read_listen():
    try:
        for raw in listen:
            line = raw.decode().strip()
            if line.startswith("data: {"):
                heard.put(json.loads(line[6:]))
    except Exception:
        pass
threading.Thread(target=read_listen, daemon=True).start()
ack = heard.get(timeout=10)
if ack.get("method") != "notifications/subscriptions/acknowledged" or tid not in json.dumps(ack):
    sys.exit("tasks: listen on replica 3 was not acknowledged with the task id: %s" % ack)
rpc("tasks/cancel", {"taskId": tid}, direct(0))
try:
    while True:
        m = heard.get(timeout=10)
        if m.get("method") == "notifications/tasks" and m["params"].get("taskId") == tid and m["params"].get("status") == "cancelled":
            break
except queue.Empty:
    sys.exit("tasks: the listener on replica 3 did not hear the task cancelled through replica 1")
listen.close()
print("tasks: a listener on replica 3 heard task %s... cancelled through replica 1 (created on replica 2)" % tid[:8])
for _ in range(3):
    if rpc("tasks/get", {"taskId": tid})["status"] != "cancelled":
        sys.exit("tasks: a cancelled task is not cancelled on every replica")
ups = set(l.split()[0] for l in open(log).readlines()[before:])
print("tasks: created, polled, answered and cancelled through %d replicas" % len(ups))
if len(ups) < 3:
    sys.exit("tasks: fewer than 3 replicas served the task requests")
# Kill the replica running a task (created on it directly); through nginx,
# another marks it failed after the lease.
runner = ports[0]
tid = rpc("tools/call", {"name": "slow_compute", "arguments": {"seconds": 60, "label": "killed"}}, "http://127.0.0.1:%s/mcp" % runner)["taskId"]
poll(tid, lambda t: "computing" in t.get("statusMessage", ""))
os.kill(rpids[0], signal.SIGKILL)
killed = time.time()
t = poll(tid, ended)
took = time.time() - killed
if t["status"] != "failed" or "stopped renewing its lease" not in t.get("statusMessage", ""):
    sys.exit("tasks: killed replica's task: %s" % t)
print("tasks: replica on port %s killed mid-task; the task failed %.2f s later (lease 2 s): %s" % (runner, took, t["statusMessage"][:80]))
PY

[ "$status" -eq 0 ] && echo "replicas: all required scenarios passed through nginx; MRTR rounds crossed replicas; change notifications and tasks crossed replicas; a task outlived its killed replica"
exit "$status"
